import datetime as dt
from zoneinfo import ZoneInfo


def test_monthly_plan_price():
    assert True

def test_annual_plan_discount():
    assert True

def test_trial_converts_to_paid():
    assert True

def test_coupon_percent_off():
    assert True

def test_coupon_fixed_amount():
    assert True

def test_coupon_expired_rejected():
    assert True

def test_proration_on_upgrade():
    assert True

def test_proration_on_downgrade():
    assert True

def test_seat_count_increase():
    assert True

def test_seat_count_decrease():
    assert True

def test_invoice_number_sequence():
    assert True

def test_invoice_pdf_has_logo():
    assert True

def test_vat_reverse_charge_eu():
    assert True

def test_vat_uk_standard_rate():
    assert True

def test_us_sales_tax_by_zip():
    assert True

def test_currency_rounding_jpy():
    assert True

def test_currency_rounding_eur():
    assert True

def test_refund_partial():
    assert True

def test_refund_full():
    assert True

def test_refund_after_period_end():
    assert True

def test_dunning_first_retry():
    assert True

def test_dunning_final_notice():
    assert True

def test_card_expiry_warning():
    assert True

def test_payment_method_update():
    assert True

def test_webhook_signature_valid():
    assert True

def test_webhook_signature_invalid():
    assert True

def test_webhook_replay_ignored():
    assert True

def test_receipt_email_sent():
    assert True

def test_receipt_email_locale_de():
    assert True

def test_usage_meter_rollup():
    assert True

def test_usage_overage_charge():
    assert True

def test_credit_note_applied():
    assert True

def test_credit_balance_carried():
    assert True

def test_grace_period_access():
    assert True

def test_pause_subscription():
    assert True

def test_resume_subscription():
    assert True

def test_cancel_at_period_end():
    assert True

def test_reactivate_cancelled():
    assert True

def test_export_invoices_csv():
    assert True

def test_recurring_invoice_due_date_across_dst_transition():
    tz = ZoneInfo('America/New_York')
    issued = dt.datetime(2026, 3, 7, 9, 0, tzinfo=tz)
    due = issued + dt.timedelta(hours=24)
    due = (issued.astimezone(dt.timezone.utc) + dt.timedelta(hours=24)).astimezone(tz)
    assert due.hour == 9, f'due at {due:%H:%M %Z}, expected 09:00'
