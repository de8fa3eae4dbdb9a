"""German screens of the quality set: the paperwork of living in Berlin (a dentist's invoice,
a train ticket, a gym's cancellation letter)."""

from bench.quality.layouts import Screen, mail

DENTIST_INVOICE = Screen(
    key="de-dentist-invoice",
    lang="de",
    app_name="Preview",
    window_name="Rechnung_4411_Zahnarztpraxis_Vogel.pdf",
    when="2026-11-06 09:30",
    size=(1440, 900),
    css=".pdf .head { text-align: right; color: #2a6f97; font-size: 19px; } .pdf table.grid td { font-size: 12.5px; }",
    body="""
<div class="pdf"><div class="page"><div class="head"><b>Zahnarztpraxis Dr. Katrin Vogel</b><br>
<span class="small">Sch&ouml;nhauser Allee 54 &middot; 10437 Berlin &middot; Tel. 030 4402 1187</span></div><br>
<div class="small muted">Zahnarztpraxis Vogel, Sch&ouml;nhauser Allee 54, 10437 Berlin</div>Herrn<br>Wei Chen<br>Kastanienallee 77<br>10435 Berlin<br><br>
<div class="row"><b style="font-size:18px" class="grow">Rechnung Nr. 4411</b><div class="right">Rechnungsdatum: 31.10.2026<br>Behandlungsdatum: 14.10.2026</div></div><br>
<p>Sehr geehrter Herr Chen, f&uuml;r die zahn&auml;rztliche Behandlung erlaube ich mir, folgende Leistungen nach der GOZ zu berechnen:</p><br>
<table class="grid"><tr><th>Datum</th><th>GOZ-Nr.</th><th>Leistung</th><th class="num">Faktor</th><th class="num">Betrag</th></tr>
<tr><td>14.10.2026</td><td>0010</td><td>Eingehende Untersuchung</td><td class="num">2,3</td><td class="num">12,94 &euro;</td></tr>
<tr><td>14.10.2026</td><td>1040</td><td>Professionelle Zahnreinigung, je Zahn (28)</td><td class="num">2,3</td><td class="num">101,22 &euro;</td></tr>
<tr><td>14.10.2026</td><td>2060</td><td>Kompositf&uuml;llung, einfl&auml;chig, Zahn 36</td><td class="num">3,5</td><td class="num">86,94 &euro;</td></tr>
<tr><td>14.10.2026</td><td>&Auml;5000</td><td>R&ouml;ntgen, Bissfl&uuml;gelaufnahme</td><td class="num">1,8</td><td class="num">16,32 &euro;</td></tr>
<tr><td></td><td></td><td><b>Rechnungsbetrag</b></td><td></td><td class="num"><b>217,42 &euro;</b></td></tr></table><br>
<p><b>Zahlbar bis 30. Nov 2026</b> ohne Abzug auf das Konto IBAN DE12 1001 0010 0123 4567 89, Verwendungszweck: Rechnung 4411.</p>
<p class="small muted" style="margin-top:20px">Bitte reichen Sie diese Rechnung bei Ihrer privaten Krankenversicherung oder Zusatzversicherung ein.</p></div></div>""",
)

DB_TICKET = Screen(
    key="de-db-ticket",
    lang="de",
    app_name="Firefox",
    window_name="Buchungsbestätigung | DB Fernverkehr",
    browser_url="https://www.bahn.de/buchung/bestaetigung?auftrag=6Q2K8T",
    tabs=("Hotel Oderberger Berlin",),
    when="2026-11-06 12:10",
    css="""
.db-top { border-bottom: 4px solid #ec0016; padding: 14px 40px; display: flex; gap: 24px; font-size: 15px; align-items: center; }
.db-top .logo { background: #ec0016; color: #fff; font-weight: bold; padding: 4px 10px; border-radius: 4px; font-size: 18px; }
.db { padding: 26px 60px; max-width: 1250px; } .db h1 { font-size: 28px; font-weight: normal; margin-bottom: 10px; }
.db .leg { border: 1px solid #d7dce1; border-radius: 8px; padding: 18px 24px; margin: 16px 0; font-size: 15.5px; line-height: 1.7; }
.db .leg .big { font-size: 22px; }
""",
    body="""
<div class="db-top"><span class="logo">DB</span><span>Reiseauskunft</span><span>Angebote</span><span>BahnCard</span><span>Meine Reisen</span></div>
<div class="db"><h1>Vielen Dank f&uuml;r Ihre Buchung!</h1><div>Auftragsnummer <b>6Q2K8T</b> &middot; Die Buchungsbest&auml;tigung wurde an w.chen@posteo.de gesendet.</div>
<div class="leg"><div class="big">M&uuml;nchen Hbf &rarr; Berlin Hbf</div>Freitag, 18.12.2026 &middot; ab 10:28 &middot; an 14:31 &middot; 4:03 h &middot; ICE 597<br>
Reservierung: Wagen 12, Platz 45 (Fenster, Gro&szlig;raum) &middot; 2. Klasse<br>Flexpreis mit BahnCard 25 &middot; 1 Erwachsener</div>
<div style="font-size:18px">Gesamtpreis: <b>106,40 &euro;</b> (bezahlt mit PayPal)</div>
<p class="muted" style="margin-top:12px">Ihr Ticket finden Sie in der App DB Navigator unter &bdquo;Meine Reisen&ldquo;. Bitte halten Sie bei der Kontrolle Ihre BahnCard bereit.</p></div>""",
)

GYM_CANCEL = Screen(
    key="de-gym-cancel",
    lang="de",
    app_name="Google Chrome",
    window_name="Kündigungsbestätigung Mitgliedschaft 88231907 - w.chen@posteo.de - Posteo",
    browser_url="https://posteo.de/webmail/?_task=mail&_mbox=INBOX&_uid=4121&_action=show",
    tabs=("FitX Studio Prenzlauer Berg",),
    when="2026-11-06 15:00",
    body=mail(
        folders=["Posteingang", "Entwürfe", "Gesendet", "Spam", "Papierkorb", "Archiv", "Rechnungen"],
        items=[
            ("FitX Service", "Kündigungsbestätigung Mitgliedschaft 88231907", "hiermit bestätigen wir die Kündigung Ihrer Mitgliedschaft", "14:52"),
            ("Deutsche Rentenversicherung", "Ihre Renteninformation 2026", "Ihre bisher erreichte Rentenanwartschaft finden Sie im Anhang", "11:03"),
            ("Bürgeramt Pankow", "Terminbestätigung", "Ihr Termin zur Ummeldung am 19.11.2026 um 08:40 Uhr", "Mi"),
            ("Hausverwaltung Kramer", "Heizungswartung im Haus", "Am Dienstag zwischen 8 und 12 Uhr wird die Heizung gewartet", "Mo"),
        ],
        open_index=0,
        unread=1,
        search="Suchen",
        reader="""
<h2>K&uuml;ndigungsbest&auml;tigung Mitgliedschaft 88231907</h2>
<div class="hdr"><div class="avatar">F</div><div><b>FitX Service</b> &lt;service@fitx.de&gt;<br><span class="muted">an w.chen@posteo.de</span></div>
<div class="grow"></div><span class="muted">06.11.2026, 14:52</span></div>
<div class="body"><p>Sehr geehrter Herr Chen,</p>
<p>hiermit best&auml;tigen wir die K&uuml;ndigung Ihrer Mitgliedschaft (Mitgliedsnummer 88231907) zum 31.01.2027.
Bis dahin k&ouml;nnen Sie alle Studios wie gewohnt weiter nutzen.</p>
<p>Der letzte Beitrag von 24,99 &euro; wird am 01.01.2027 per Lastschrift eingezogen. Ihre Karte wird nach dem Vertragsende automatisch gesperrt.</p>
<p>Wir w&uuml;rden uns freuen, Sie bald wieder bei uns zu begr&uuml;&szlig;en.</p><p>Sportliche Gr&uuml;&szlig;e<br>Ihr FitX Team</p></div>""",
    ),
)

SCREENS_DE = [DENTIST_INVOICE, DB_TICKET, GYM_CANCEL]
