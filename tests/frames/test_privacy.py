"""Privacy rules: what the patterns mean, refused frames from every source (API, import), the
rules edited through the API and the Settings page, and secrets redacted before indexing."""

import json
import time

import pytest

from frames.models import Frame, OcrResult
from myrecall.privacy_rules import PrivacyRules, exclusion_find, pattern_matches, secrets_redact
from tests.conftest import post_frame, render_text_image

RULES = {
    "excluded_apps": ["1Password", "KeePass*"],
    "excluded_windows": ["*Private Browsing*", "incognito"],
    "excluded_urls": ["bank.example", "https://mail.example.com/*"],
    "redact_secrets": False,
    "capture_paused": False,
}


@pytest.mark.parametrize(
    "pattern, value, whole, expected",
    [
        ("1password", "1Password", True, True),
        ("Code", "VS Codeium", True, False),  # app names match whole
        ("Code", "VS Codeium", False, True),  # titles and URLs: anywhere
        ("*Private Browsing*", "Bank — Mozilla Firefox Private Browsing", False, True),
        ("https://*.bank.example/*", "https://login.bank.example/account", False, True),
        ("https://*.bank.example/*", "https://bank.example.evil.com/", False, False),
        ("[draft]*", "[draft] letter", False, True),  # brackets are literal
        ("", "anything", False, False),
    ],
)
def test_what_a_pattern_matches(pattern, value, whole, expected):
    assert pattern_matches(pattern, value, whole=whole) is expected


def test_secrets_are_redacted_and_ordinary_text_is_not():
    text = (
        "Contact alice.smith@example.co.uk about invoice 4411\n"
        "Card 4242 4242 4242 4242 exp 12/29, order 1234567890123\n"
        "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx1234\n"
        "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 and AKIAIOSFODNN7EXAMPLE\n"
        "Meeting at 14:00 in room 3.12, call +49 30 1234567"
    )
    redacted = secrets_redact(text)
    for secret in ("alice.smith@example.co.uk", "4242 4242 4242 4242", "sk-proj-", "ghp_", "AKIAIOSFODNN7EXAMPLE"):
        assert secret not in redacted
    assert "[email]" in redacted and "[card number]" in redacted and redacted.count("[api key]") == 3
    # not a card (fails the Luhn check), and ordinary text, stay
    assert "1234567890123" in redacted and "Meeting at 14:00 in room 3.12, call +49 30 1234567" in redacted


@pytest.mark.django_db
def test_rules_are_read_and_replaced_through_the_api(api):
    assert api.get("/api/v1/privacy").json()["excluded_apps"] == []
    response = api.put("/api/v1/privacy", data=json.dumps({**RULES, "excluded_apps": [" 1Password ", "", "1Password", "KeePass*"]}), content_type="application/json")
    assert response.status_code == 200, response.content
    assert response.json()["excluded_apps"] == ["1Password", "KeePass*"]  # stripped, blanks and repeats dropped
    assert api.get("/api/v1/privacy").json()["excluded_urls"] == RULES["excluded_urls"]
    too_many = api.put("/api/v1/privacy", data=json.dumps({**RULES, "excluded_windows": [f"w{i}" for i in range(201)]}), content_type="application/json")
    assert too_many.status_code == 400 and "at most 200" in too_many.json()["message"]
    from django.test import Client

    assert Client().get("/api/v1/privacy").status_code == 401


@pytest.mark.django_db
def test_a_read_only_token_cannot_change_the_rules(client):
    from myrecall.services import api_token_create

    _, raw = api_token_create(name="agent", read_only=True)
    response = client.put("/api/v1/privacy", data=json.dumps(RULES), content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fields, excluded_by",
    [
        ({"app_name": "1password"}, "app"),
        ({"app_name": "KeePassXC"}, "app"),
        ({"window_name": "Mozilla Firefox Private Browsing"}, "window"),
        ({"window_name": "New Incognito Tab - Chromium"}, "window"),
        ({"browser_url": "https://www.bank.example/login"}, "url"),
    ],
)
def test_an_excluded_frame_is_refused_with_the_rule_and_nothing_is_stored(api, fields, excluded_by, data_dir):
    api.put("/api/v1/privacy", data=json.dumps(RULES), content_type="application/json")
    response = post_frame(api, render_text_image(["secret screen"]), **fields)
    assert response.status_code == 422, response.content
    body = response.json()
    assert body["message"].startswith("Not stored:") and body["extra"]["excluded_by"] == excluded_by
    assert not Frame.objects.exists()
    assert not list((data_dir / "frames").rglob("*.webp")) if (data_dir / "frames").exists() else True


@pytest.mark.django_db
def test_frames_outside_the_rules_are_stored(api):
    api.put("/api/v1/privacy", data=json.dumps(RULES), content_type="application/json")
    response = post_frame(api, render_text_image(["ordinary screen"]), app_name="Firefox", window_name="Weather", browser_url="https://weather.example/")
    assert response.status_code == 201


@pytest.mark.django_db
def test_the_import_obeys_the_rules(tmp_path, settings):
    from django.core.management import call_command

    from frames.services import privacy_update

    privacy_update(**{**RULES})
    folder = tmp_path / "shots"
    folder.mkdir()
    for name, app in (("a.png", "1Password"), ("b.png", "Editor")):
        (folder / name).write_bytes(render_text_image([f"screen {name}"]))
        (folder / f"{name[0]}.json").write_text(json.dumps({"timestamp": time.time() - 60, "app_name": app}))
    call_command("frames_import", str(folder))
    assert list(Frame.objects.values_list("app_name", flat=True)) == ["Editor"]


@pytest.mark.django_db(transaction=True)
def test_secrets_are_redacted_before_the_text_is_stored_and_indexed(api, immediate_ocr):
    api.put("/api/v1/privacy", data=json.dumps({**RULES, "redact_secrets": True}), content_type="application/json")
    image = render_text_image(["Mail from bob.jones@example.org", "Card 4242 4242 4242 4242"], size=(1100, 60))
    frame_id = post_frame(api, image).json()["frame_id"]
    ocr = OcrResult.objects.get(frame_id=frame_id)
    assert "bob.jones" not in ocr.text and "4242 4242" not in ocr.text and "[email]" in ocr.text, ocr.text
    assert not any("bob.jones" in word[0] for line in ocr.lines for word in line["w"])
    window = {"start_time": time.time() - 600, "mode": "keyword"}
    assert api.get("/api/v1/search", {"q": "bob.jones", **window}).json()["data"] == []
    assert [hit["content"]["frame_id"] for hit in api.get("/api/v1/search", {"q": "Mail", **window}).json()["data"]] == [frame_id]


@pytest.mark.django_db
def test_the_settings_page_edits_the_rules(client, django_user_model):
    from frames.selectors import privacy_rules

    user = django_user_model.objects.create_user(username="u", password="p")
    client.force_login(user)
    page = client.get("/settings")
    assert page.status_code == 200 and b"Excluded apps" in page.content
    response = client.post("/settings", {"excluded_apps": "1Password\n\nSignal", "excluded_windows": "*Private*", "excluded_urls": "", "redact_secrets": "on"})
    assert response.status_code == 200 and b"Saved." in response.content
    rules = privacy_rules()
    assert rules == PrivacyRules(apps=("1Password", "Signal"), windows=("*Private*",), urls=(), redact_secrets=True, capture_paused=False)
    assert exclusion_find(rules, app_name="signal") is not None
    assert "1Password\nSignal" in client.get("/settings").content.decode()


@pytest.mark.django_db
def test_a_settings_post_that_is_not_the_whole_form_changes_no_rule(client, django_user_model):
    from frames.selectors import privacy_rules

    client.force_login(django_user_model.objects.create_user(username="u", password="p"))
    form = {"excluded_apps": "1Password", "excluded_windows": "*Private*", "excluded_urls": "bank.example", "redact_secrets": "on"}
    assert client.post("/settings", form).status_code == 200
    before = privacy_rules()
    for post in ({}, {"excluded_apps": "1Password"}, {**form, "excluded_urls": "x" * 301}):
        response = client.post("/settings", post)
        assert response.status_code == 400 and b"Saved." not in response.content, post
        assert privacy_rules() == before
