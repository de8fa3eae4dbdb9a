#!/usr/bin/env python3
"""Writes the CSV / HTML / text sources used by capture.sh (stdlib only, deterministic)."""
import csv, random, html, os
R = random.Random(20240611)
HERE = os.path.dirname(os.path.abspath(__file__))
def w(name, text):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        f.write(text)

# ---------------------------------------------------------------- orders.csv
first = "Amelia Jonas Priya Mateo Sofia Lukas Hannah Omar Chloe Felix Ingrid Tomasz Noor Kenji Elena Rafael Astrid Dmitri Leila Oscar".split()
last = "Fischer Okafor Lindqvist Moreau Tanaka Kowalski Brennan Haddad Novak Ferreira Castellano Whitfield Sorensen Yilmaz Marchetti".split()
cities = ["Rotterdam", "Gdansk", "Lyon", "Valencia", "Tampere", "Bratislava", "Porto", "Leipzig", "Aarhus", "Ljubljana", "Cork", "Graz"]
status = ["shipped", "pending", "refunded", "on-hold", "delivered"]
rows = [["order_id", "customer", "city", "product_code", "qty", "unit_price", "amount_eur", "status", "warehouse", "order_date"]]
for i in range(42):
    qty = R.randint(1, 48); price = round(R.uniform(3, 420), 2)
    rows.append([f"ORD-{58120+i*7}", f"{R.choice(first)} {R.choice(last)}", R.choice(cities),
                 f"{R.choice(['KX','TR','VB','ML','QP'])}-{R.randint(100,999)}{R.choice('ABCDEFGH')}", qty, f"{price:.2f}",
                 f"{qty*price:.2f}", R.choice(status), R.choice(["WH-NORTH-2", "WH-SOUTH-1", "WH-EAST-4"]),
                 f"2024-03-{R.randint(1,28):02d}"])
rows[7][1] = "Ingrid Lindqvist"; rows[7][3] = "VB-731K"; rows[19][2] = "Ljubljana"; rows[33][3] = "QP-208F"
with open(os.path.join(HERE, "orders.csv"), "w", newline="") as f:
    csv.writer(f).writerows(rows)

# ---------------------------------------------------------------- dark chat
CSS_BASE = "*{box-sizing:border-box}body{margin:0;font-family:'DejaVu Sans',sans-serif}"
msgs = [
 ("marta.k", "09:12", "Morning! The <code>payment-gateway</code> canary looks healthy, p95 at 212ms."),
 ("devon", "09:14", "Nice. Did anyone touch <code>deployment-redis.yaml</code> yesterday? replicas went from 3 to 1"),
 ("sana.r", "09:15", "That was me, rolling back now. Sorry, I was testing the failover script on staging"),
 ("marta.k", "09:17", "no worries. Can you also bump the memory limit to 2Gi while you are there"),
 ("ci-bot", "09:18", "Build #4821 passed on branch <b>feature/invoice-export</b> (14m 02s)"),
 ("devon", "09:21", "Reminder: quarterly access review is due Friday. Spreadsheet is in the shared drive"),
 ("olu", "09:24", "I'm seeing timeouts from <code>api-worker-03</code> again, same pattern as last Tuesday"),
 ("sana.r", "09:25", "Is it the connection pool? we set max_connections=80 on <code>db-replica-eu-2</code>"),
 ("olu", "09:27", "Looks like it. Pool exhausted at 09:22:41, recovered 09:23:10"),
 ("marta.k", "09:30", "Let's open an incident. I'll take comms, Olu can you be incident commander?"),
 ("olu", "09:31", "Yes. Opening INC-7734 now, channel #inc-7734-worker-timeouts"),
 ("ci-bot", "09:33", "Deploy of <b>checkout-service v2.18.4</b> to production started by devon"),
 ("devon", "09:40", "Checkout deploy is done, error rate flat. Grabbing lunch early today"),
 ("priya", "09:42", "Can someone review my PR for <code>reconcile_ledger_entries</code>? it's small, 40 lines"),
 ("sana.r", "09:44", "On it after standup. Also the Grafana board for the warehouse sync is finally fixed"),
 ("marta.k", "09:47", "Thanks everyone. Standup in 13 minutes, bring your blockers"),
]
colors = ["#e8a87c", "#85dcb0", "#41b3a3", "#c38d9e", "#e27d60", "#a3bded", "#f7d794"]
ucol = {}
mh = ""
for u, t, m in msgs:
    c = ucol.setdefault(u, colors[len(ucol) % len(colors)])
    mh += f'<div class="m"><div class="av" style="background:{c}">{u[0].upper()}</div><div><span class="u" style="color:{c}">{u}</span><span class="t">{t}</span><div class="tx">{m}</div></div></div>\n'
chans = ["general", "deploy-alerts", "payments-team", "inc-7734-worker-timeouts", "random", "warehouse-sync", "oncall-handoff", "design-reviews", "data-platform"]
ch = "".join(f'<div class="c{" on" if c=="payments-team" else ""}"># {c}</div>' for c in chans)
w("chat_dark.html", f"""<!doctype html><html><head><meta charset="utf-8"><title>#payments-team | Relay</title><style>{CSS_BASE}
body{{background:#1e1f22;color:#dbdee1;font-size:13px;display:flex;height:100vh}}
.side{{width:240px;background:#2b2d31;padding:12px 8px}} .side h2{{font-size:14px;color:#f2f3f5;margin:4px 8px 14px}}
.c{{padding:5px 8px;color:#80848e;font-size:13px;border-radius:4px}} .c.on{{background:#404249;color:#f2f3f5}}
.sec{{font-size:11px;color:#949ba4;margin:16px 8px 6px;letter-spacing:.5px}}
.main{{flex:1;display:flex;flex-direction:column}} .top{{height:44px;border-bottom:1px solid #111214;padding:12px 16px;color:#f2f3f5;font-weight:bold}}
.top span{{color:#949ba4;font-weight:normal;font-size:12px;margin-left:12px}}
.log{{flex:1;padding:8px 16px;overflow:hidden}} .m{{display:flex;gap:12px;padding:7px 0}}
.av{{width:34px;height:34px;border-radius:50%;color:#1e1f22;font-weight:bold;display:flex;align-items:center;justify-content:center;flex:none}}
.u{{font-weight:bold;font-size:13px}} .t{{color:#6d6f78;font-size:11px;margin-left:8px}} .tx{{margin-top:2px;line-height:1.35}}
code{{background:#2b2d31;color:#e3b341;padding:1px 4px;border-radius:3px;font-size:12px}}
.in{{margin:12px 16px 20px;background:#383a40;border-radius:8px;padding:12px;color:#6d6f78}}
.right{{width:220px;background:#2b2d31;padding:12px;font-size:12px;color:#949ba4}} .right div{{padding:4px 0}}
</style></head><body><div class="side"><h2>Northwind Ops</h2><div class="sec">CHANNELS</div>{ch}<div class="sec">DIRECT MESSAGES</div><div class="c">marta.k</div><div class="c">olu</div><div class="c">priya</div></div>
<div class="main"><div class="top"># payments-team<span>Refunds, payouts and the ledger service. On-call: olu</span></div><div class="log">{mh}</div><div class="in">Message #payments-team</div></div>
<div class="right"><div style="color:#f2f3f5;font-weight:bold">Online — 6</div><div>marta.k</div><div>devon</div><div>sana.r</div><div>olu</div><div>priya</div><div>ci-bot</div><div style="margin-top:12px;color:#f2f3f5;font-weight:bold">Offline — 3</div><div>henrik</div><div>lucia.m</div><div>tobias</div></div></body></html>""")

# ---------------------------------------------------------------- webmail
senders = ["GitHub", "Jira Cloud", "Marta Kowalski", "AWS Billing", "Olu Adeyemi", "Figma", "HR Team", "Priya Raman", "Stripe", "PagerDuty",
           "Linear", "Devon Price", "Google Calendar", "Notion", "Sana Rahimi", "Datadog", "Zoom", "Travel Desk", "IT Helpdesk", "Lukas Brenner"]
subjects = [
 ("[shop-api] PR #1432: Fix rounding in parse_order_total", "devon requested your review on this pull request. 3 files changed"),
 ("INV-2291 Quarterly invoice export failing", "Status changed from In Progress to Blocked by priya"),
 ("Re: offsite agenda for April", "Sounds good, I booked the room on the 4th floor for the afternoon"),
 ("Your AWS bill for March is available", "Total amount due: USD 14,382.17 for account 4471-2209"),
 ("Postmortem draft: worker timeouts", "Attached is the timeline for INC-7734, please add comments by Thursday"),
 ("Weekly design digest", "12 files updated in Checkout Redesign, 4 new comments"),
 ("Updated parental leave policy", "We have updated the handbook, effective 1 May. Please read section 4.2"),
 ("Question about reconcile_ledger_entries", "Why do we skip entries with a zero amount? I think it hides refunds"),
 ("Payout of EUR 48,210.55 is on its way", "Expected to arrive in your bank account on Mar 14"),
 ("[Triggered] High latency on checkout-service", "p99 latency above 1200ms for 5 minutes on prod-eu-west"),
 ("ENG-882 assigned to you", "Migrate warehouse sync cron to the new scheduler"),
 ("Lunch on Friday?", "The new ramen place near the station opened, want to try it"),
 ("Invitation: Capacity planning Q2", "Thursday 14:00 - 15:00 (CET) Room Lovelace"),
 ("Meeting notes: data retention", "Decisions: keep raw events for 90 days, aggregates for 2 years"),
 ("Re: deployment-redis.yaml replicas", "I rolled it back to 3 replicas, memory limit is 2Gi now"),
 ("Monitor recovered: disk usage db-replica-eu-2", "Disk usage back below 80 percent on /var/lib/postgresql"),
 ("Cloud recording is ready", "Sprint review recording (58 min) is available for 30 days"),
 ("Your trip to Lisbon is confirmed", "Booking ref KQ7XPL, hotel check-in 16 April"),
 ("Laptop replacement scheduled", "Ticket HD-40517: please bring your old device to desk 3B"),
 ("Benchmark numbers for load_config", "Cold start went from 840ms to 95ms after the caching change"),
]
rows_html = ""
for i in range(36):
    s = senders[i % len(senders)]; sub, snip = subjects[(i * 7) % len(subjects)] if i >= 20 else subjects[i]
    unread = i in (0, 1, 3, 4, 9, 14, 22, 27)
    d = f"{9 + (36-i)//4 if i < 12 else 'Mar'} {'' if i < 12 else 30 - i//2}"
    t = f"{(17 - i//3) % 24:02d}:{(i*13)%60:02d}" if i < 12 else f"Mar {30 - i//2}"
    rows_html += f'<tr class="{"u" if unread else ""}"><td class="cb">&#9744;</td><td class="st">{"&#9733;" if i%5==2 else "&#9734;"}</td><td class="s">{s}</td><td class="sub"><span class="sj">{sub}</span> <span class="sn">- {snip}</span></td><td class="d">{t}</td></tr>\n'
w("webmail.html", f"""<!doctype html><html><head><meta charset="utf-8"><title>Inbox (8) - marta.kowalski@northwind.example - Postbox</title><style>{CSS_BASE}
body{{font-size:14px;color:#202124;background:#f6f8fc}} .hdr{{height:64px;display:flex;align-items:center;padding:0 16px;gap:40px}}
.logo{{font-size:22px;color:#5f6368;width:200px}} .search{{background:#eaf1fb;border-radius:24px;padding:12px 20px;width:720px;color:#5f6368}}
.wrap{{display:flex}} .nav{{width:256px;padding:8px 0}} .compose{{background:#c2e7ff;border-radius:16px;padding:18px 24px;margin:0 0 16px 8px;display:inline-block;font-weight:bold}}
.nav div.i{{padding:6px 26px;border-radius:0 16px 16px 0}} .nav div.on{{background:#d3e3fd;font-weight:bold}}
.box{{flex:1;background:#fff;border-radius:16px;margin-right:16px}} .tool{{padding:12px 16px;color:#5f6368;border-bottom:1px solid #eee}}
.tabs{{display:flex;border-bottom:1px solid #eee}} .tabs div{{padding:14px 24px;width:250px;color:#5f6368}} .tabs .on{{color:#0b57d0;border-bottom:3px solid #0b57d0}}
table{{width:100%;border-collapse:collapse}} td{{padding:9px 6px;border-bottom:1px solid #f1f3f4;white-space:nowrap;overflow:hidden}}
.cb,.st{{width:28px;color:#9aa0a6}} .s{{width:200px}} .sub{{max-width:900px;text-overflow:ellipsis}} .sn{{color:#5f6368}} .d{{width:80px;text-align:right;font-size:12px;color:#5f6368}}
tr.u td{{font-weight:bold;background:#fff}} tr td{{background:#f2f6fc}} tr.u .sn{{font-weight:normal}}
</style></head><body><div class="hdr"><div class="logo">&#9993; Postbox</div><div class="search">Search mail</div></div><div class="wrap"><div class="nav"><div class="compose">&#9998; Compose</div>
<div class="i on">Inbox &nbsp; 8</div><div class="i">Starred</div><div class="i">Snoozed</div><div class="i">Sent</div><div class="i">Drafts &nbsp; 3</div><div class="i">Invoices</div><div class="i">Receipts</div><div class="i">Travel</div><div class="i">Spam</div><div class="i">Trash</div></div>
<div class="box"><div class="tool">&#9744; &#8635; &#8942; <span style="float:right">1-36 of 2,418</span></div><div class="tabs"><div class="on">Primary</div><div>Promotions</div><div>Updates</div></div><table>{rows_html}</table></div></div></body></html>""")

# ---------------------------------------------------------------- low contrast settings
opts = [("Sync frequency", "Every 15 minutes"), ("Backup retention", "30 days"), ("Preferred region", "eu-central-2"), ("Default workspace", "Northwind Logistics"),
        ("Session timeout", "45 minutes"), ("Export format", "Parquet (snappy)"), ("Notification digest", "Weekdays at 08:30"), ("Audit log level", "Verbose")]
oh = "".join(f'<div class="row"><div><div class="lab">{a}</div><div class="hint">Applies to all members of this workspace after the next sync.</div></div><div class="val">{b} &#9662;</div></div>' for a, b in opts)
tg = [("Allow guest access to shared dashboards", True), ("Send crash reports automatically", False), ("Enable experimental query planner", True), ("Show archived projects in search", False)]
th = "".join(f'<div class="row"><div class="lab">{a}</div><div class="tg {"on" if b else ""}"><i></i></div></div>' for a, b in tg)
w("settings_lowcontrast.html", f"""<!doctype html><html><head><meta charset="utf-8"><title>Workspace settings</title><style>{CSS_BASE}
body{{background:#c9cbcf;font-size:13px;color:#a9acb1}} .dlg{{width:980px;margin:60px auto;background:#e4e5e7;border-radius:10px;box-shadow:0 8px 40px rgba(0,0,0,.15);display:flex;min-height:900px}}
.left{{width:230px;border-right:1px solid #d8d9dc;padding:22px 0}} .left div{{padding:8px 24px;color:#b0b3b8}} .left .on{{background:#dbdcdf;color:#9a9ea4}}
.body{{flex:1;padding:24px 34px}} h1{{font-size:19px;font-weight:normal;color:#a3a6ab;margin:0 0 4px}} .sub{{color:#bbbdc1;margin-bottom:22px}}
h3{{font-size:12px;color:#b3b5b9;letter-spacing:1px;margin:26px 0 6px}}
.row{{display:flex;justify-content:space-between;align-items:center;padding:12px 0;border-bottom:1px solid #dadbde}} .lab{{color:#a5a8ad}} .hint{{font-size:11px;color:#c0c2c6;margin-top:3px}}
.val{{background:#ebeced;border:1px solid #d6d7da;border-radius:5px;padding:6px 12px;color:#a9acb0;min-width:200px}}
.tg{{width:34px;height:18px;border-radius:9px;background:#d2d3d6;position:relative}} .tg i{{position:absolute;width:14px;height:14px;top:2px;left:2px;background:#eee;border-radius:50%}} .tg.on{{background:#b9c3d1}} .tg.on i{{left:18px}}
.btns{{text-align:right;margin-top:26px}} .btns span{{display:inline-block;padding:8px 18px;border-radius:5px;margin-left:8px;border:1px solid #d3d4d7;color:#a6a9ae}}
.key{{font-family:'DejaVu Sans Mono',monospace;font-size:12px;color:#b1b4b8;background:#ebeced;padding:6px 10px;border-radius:4px;margin-top:6px}}
</style></head><body><div class="dlg"><div class="left"><div>Profile</div><div class="on">Workspace</div><div>Members</div><div>Billing</div><div>Integrations</div><div>API tokens</div><div>Security</div><div>Danger zone</div></div>
<div class="body"><h1>Workspace settings</h1><div class="sub">Changes are saved automatically and synced to every device.</div>
<h3>GENERAL</h3>{oh}<h3>PRIVACY</h3>{th}<h3>API</h3><div class="lab">Webhook signing secret</div><div class="key">whsec_7Hq2vLx9Kp4mTz81</div>
<div class="btns"><span>Cancel</span><span>Reset to defaults</span><span>Done</span></div></div></div></body></html>""")

# ---------------------------------------------------------------- photo overlay
w("photo_overlay.html", f"""<!doctype html><html><head><meta charset="utf-8"><title>Trailhead</title><style>{CSS_BASE}
body{{background:#000 url(file:///usr/share/backgrounds/picosdeeuropa_by_Aitzol_Berasategi.jpg) center/cover no-repeat;height:100vh;color:#fff;overflow:hidden}}
.nav{{display:flex;gap:34px;padding:22px 48px;font-size:14px}} .nav b{{font-size:20px;margin-right:40px}}
.hero{{position:absolute;left:80px;top:300px;width:900px}} .hero h1{{font-size:54px;margin:0 0 12px;font-weight:bold}} .hero p{{font-size:17px;line-height:1.5}}
.meta{{position:absolute;left:80px;bottom:60px;font-size:13px;display:flex;gap:48px}} .meta div b{{display:block;font-size:22px}}
.card{{position:absolute;right:70px;top:150px;width:330px;font-size:13px;line-height:1.6}} .card h4{{font-size:15px;margin:0 0 8px}}
.clock{{position:absolute;right:80px;bottom:60px;font-size:64px;font-weight:200}} .clock small{{display:block;font-size:16px;text-align:right}}
</style></head><body><div class="nav"><b>Trailhead</b><span>Routes</span><span>Huts</span><span>Weather</span><span>Permits</span><span>Journal</span></div>
<div class="card"><h4>Conditions today</h4>Snow above 1900 m, icy in the morning.<br>Wind from the northwest, gusts 40 km/h.<br>Cable car Fuente De runs until 18:00.<br>Refugio Collado Jermoso is open.</div>
<div class="hero"><h1>Picos de Europa</h1><p>A two day loop from Sotres through the Vega de Urriellu meadows, with an overnight stay below Naranjo de Bulnes. Bring crampons before May.</p></div>
<div class="meta"><div><b>23.4 km</b>distance</div><div><b>1,870 m</b>elevation gain</div><div><b>9h 40m</b>moving time</div><div><b>Difficult</b>grade</div></div>
<div class="clock">07:42<small>Saturday, 18 May</small></div></body></html>""")

# ---------------------------------------------------------------- dark dashboard
svc = [("checkout-service", "412 rps", "ok"), ("payment-gateway", "198 rps", "ok"), ("api-worker-03", "31 err/m", "crit"), ("db-replica-eu-2", "lag 48s", "warn"),
       ("search-indexer", "1.2k docs/s", "ok"), ("ledger-sync", "queue 2,941", "warn"), ("auth-proxy", "880 rps", "ok"), ("media-resizer", "77 jobs", "ok"),
       ("warehouse-etl", "last run 03:10", "ok"), ("notifier-sms", "5xx 4.1%", "crit"), ("redis-cache-01", "hit 97.2%", "ok"), ("kafka-broker-2", "ISR 2/3", "warn"),
       ("cdn-edge-fra", "p95 38ms", "ok"), ("billing-cron", "next 04:00", "ok"), ("geo-lookup", "p99 410ms", "warn"), ("inventory-api", "233 rps", "ok")]
col = {"ok": "#2ea043", "warn": "#d29922", "crit": "#f85149"}
tiles = "".join(f'<div class="tile"><div class="nm"><span class="dot" style="background:{col[s]}"></span>{n}</div><div class="v">{v}</div><div class="sm">{"healthy" if s=="ok" else ("degraded" if s=="warn" else "failing")} &middot; {R.randint(2,9)} pods &middot; {R.randint(1,99)}% cpu</div></div>' for n, v, s in svc)
ev = "".join(f'<tr><td>{h:02d}:{m:02d}:{R.randint(0,59):02d}</td><td class="{l}">{l.upper()}</td><td>{s}</td><td>{t}</td></tr>' for (h, m, l, s, t) in [
 (14, 2, "crit", "api-worker-03", "upstream connect error or disconnect/reset before headers"), (14, 1, "warn", "db-replica-eu-2", "replication lag 48s exceeds threshold 30s"),
 (13, 58, "crit", "notifier-sms", "provider returned HTTP 503 for 4.1% of requests"), (13, 51, "info", "checkout-service", "deploy v2.18.4 finished, 12/12 pods ready"),
 (13, 44, "warn", "kafka-broker-2", "under-replicated partitions: orders-events-7"), (13, 30, "info", "billing-cron", "invoice batch 2024-03 completed in 4m12s"),
 (13, 12, "warn", "geo-lookup", "p99 latency 410ms above SLO 300ms"), (12, 57, "info", "auth-proxy", "certificate renewed, expires 2024-09-02")])
w("dashboard_dark.html", f"""<!doctype html><html><head><meta charset="utf-8"><title>Ops overview - Beacon</title><style>{CSS_BASE}
body{{background:#0d1117;color:#c9d1d9;font-size:12px}} .top{{display:flex;justify-content:space-between;padding:10px 20px;background:#161b22;border-bottom:1px solid #30363d;font-size:13px}}
.ban{{margin:10px 20px 0;padding:9px 14px;border-radius:6px;font-size:13px}} .ban b{{margin-right:10px}}
.r{{background:#b62324;color:#fff}} .a{{background:#d29922;color:#1c1300}} .g{{background:#238636;color:#fff}}
.grid{{display:grid;grid-template-columns:repeat(8,1fr);gap:10px;margin:14px 20px}} .tile{{background:#161b22;border:1px solid #30363d;border-radius:6px;padding:10px}}
.nm{{color:#8b949e;font-size:11px}} .dot{{display:inline-block;width:8px;height:8px;border-radius:50%;margin-right:6px}} .v{{font-size:20px;color:#e6edf3;margin:6px 0 4px}} .sm{{font-size:10px;color:#6e7681}}
.row{{display:flex;gap:10px;margin:0 20px}} .panel{{flex:1;background:#161b22;border:1px solid #30363d;border-radius:6px;padding:10px 14px}} .panel h3{{font-size:12px;color:#8b949e;margin:0 0 8px;font-weight:normal}}
table{{width:100%;border-collapse:collapse;font-family:'DejaVu Sans Mono',monospace;font-size:11px}} td{{padding:4px 6px;border-top:1px solid #21262d}}
.crit{{color:#f85149}} .warn{{color:#d29922}} .info{{color:#58a6ff}} svg{{width:100%;height:150px}}
</style></head><body><div class="top"><span><b>Beacon</b> &nbsp; Ops overview / prod-eu-west</span><span>Last 6 hours &nbsp; Refresh 30s &nbsp; UTC 14:03:27</span></div>
<div class="ban r"><b>CRITICAL</b>api-worker-03: error rate 31/min exceeds SLO (5/min) &mdash; paging olu (INC-7734)</div>
<div class="ban a"><b>WARNING</b>db-replica-eu-2 replication lag 48s &middot; kafka-broker-2 ISR shrink on orders-events-7</div>
<div class="ban g"><b>RESOLVED</b>disk usage on redis-cache-01 back to 61% after log rotation</div>
<div class="grid">{tiles}</div>
<div class="row"><div class="panel"><h3>Requests per second (checkout-service)</h3><svg viewBox="0 0 600 150" preserveAspectRatio="none"><polyline fill="none" stroke="#58a6ff" stroke-width="2" points="{' '.join(f'{x*10},{90-30*((x*37)%11)/11+((x*x)%7)}' for x in range(61))}"/></svg></div>
<div class="panel"><h3>Recent events</h3><table>{ev}</table></div></div></body></html>""")

# ---------------------------------------------------------------- Chinese news page (light)
news = ["国务院常务会议部署进一步优化营商环境", "北京地铁新线路年底开通试运营", "长三角城市群推进数据跨境流动试点", "新能源汽车出口量同比增长三成",
        "多地发布高温预警，注意防暑降温", "教育部：严禁校外培训机构违规收费", "深圳发布人工智能产业扶持新政", "国内首条跨海高铁完成联调联试",
        "春耕备耕有序推进，粮食播种面积稳定", "央行下调存款准备金率零点二五个百分点", "杭州亚运场馆向市民免费开放", "西部陆海新通道班列开行突破万列",
        "广州南沙港区四期全面投产", "文旅部：五一假期国内出游人次创新高", "成都大运会志愿者招募启动", "气象台：今年汛期降水偏多"]
nh = "".join(f'<li><span class="tg">{R.choice(["要闻","财经","科技","社会","体育"])}</span><a>{t}</a><span class="tm">{R.randint(8,23):02d}:{R.randint(0,59):02d}</span></li>' for t in news)
w("zh_news.html", f"""<!doctype html><html lang="zh-CN" translate="no"><head><meta charset="utf-8"><meta name="google" content="notranslate"><title>新闻中心 - 今日要闻</title><style>{CSS_BASE}
body{{font-family:'Noto Sans CJK SC',sans-serif;font-size:14px;color:#333;background:#fff}} .top{{background:#c8161d;color:#fff;padding:10px 60px;font-size:13px}}
.hd{{padding:18px 60px;display:flex;align-items:center;gap:40px;border-bottom:2px solid #c8161d}} .hd b{{font-size:28px;color:#c8161d}} .hd span{{font-size:15px}}
.wrap{{display:flex;gap:40px;padding:16px 60px}} .main{{flex:2}} .side{{flex:1}} h2{{font-size:18px;border-left:4px solid #c8161d;padding-left:10px}}
ul{{list-style:none;padding:0}} li{{padding:8px 0;border-bottom:1px dashed #ddd;display:flex;gap:12px}} li a{{flex:1;color:#1a1a1a}} .tg{{color:#c8161d;font-size:12px;border:1px solid #f0b0b0;padding:0 4px}} .tm{{color:#999;font-size:12px}}
.lead{{font-size:22px;font-weight:bold;margin:10px 0 6px}} .ld{{color:#555;line-height:1.7}} .rank li{{font-size:13px}} .rank b{{color:#c8161d;width:18px}}
</style></head><body><div class="top">首页 | 登录 | 注册 | 手机版 | 无障碍浏览</div><div class="hd"><b>新闻中心</b><span>要闻</span><span>国内</span><span>国际</span><span>财经</span><span>科技</span><span>体育</span><span>文化</span><span>评论</span></div>
<div class="wrap"><div class="main"><div class="lead">全国统一大市场建设取得阶段性进展</div><div class="ld">记者从国家发展改革委获悉，今年以来各地清理妨碍统一市场和公平竞争的政策文件一千余件，市场准入门槛进一步降低，物流成本持续下降。专家表示，下一步将重点推进要素市场化配置改革。</div>
<h2>最新动态</h2><ul>{nh}</ul></div><div class="side"><h2>热点排行</h2><ul class="rank">{''.join(f'<li><b>{i+1}</b>{t}</li>' for i, t in enumerate(news[3:13]))}</ul>
<h2>专题报道</h2><div class="ld">乡村振兴 · 科技创新 · 生态保护 · 民生实事</div></div></div></body></html>""")

# ---------------------------------------------------------------- Chinese dark chat
zmsg = [("王磊", "10:02", "早上好，今天发布窗口是下午三点"), ("李娜", "10:03", "我先检查一下 deployment-redis.yaml 的副本数"), ("张伟", "10:05", "昨晚 api-worker-03 报警了三次，日志在共享盘"),
        ("李娜", "10:06", "收到，我来排查数据库连接池的问题"), ("陈静", "10:09", "产品需求文档已经更新，请大家review一下"), ("王磊", "10:12", "测试环境的 load_config() 还是报错：找不到 config.toml"),
        ("张伟", "10:15", "可能是路径问题，我提交一个修复"), ("陈静", "10:18", "周五下午团建，地点在西湖边"), ("刘洋", "10:21", "财务系统下月迁移，请提前备份数据"),
        ("王磊", "10:25", "好的，大家注意代码冻结时间"), ("李娜", "10:30", "监控面板显示延迟恢复正常了"), ("刘洋", "10:33", "订单导出任务今晚十点执行")]
zh = "".join(f'<div class="m"><div class="av">{u[0]}</div><div><span class="u">{u}</span><span class="t">{t}</span><div class="tx">{m}</div></div></div>' for u, t, m in zmsg)
w("zh_chat_dark.html", f"""<!doctype html><html lang="zh-CN" translate="no"><head><meta charset="utf-8"><meta name="google" content="notranslate"><title>研发群 - 消息</title><style>{CSS_BASE}
body{{font-family:'Noto Sans CJK SC',sans-serif;background:#191919;color:#d5d5d5;font-size:14px;display:flex;height:100vh}}
.side{{width:280px;background:#262626;padding:10px 0}} .it{{padding:10px 16px;display:flex;gap:10px}} .it.on{{background:#333}} .it .a{{width:40px;height:40px;border-radius:6px;background:#3d6fb6;color:#fff;display:flex;align-items:center;justify-content:center}}
.it .n{{color:#e5e5e5}} .it .p{{color:#7a7a7a;font-size:12px}} .main{{flex:1;display:flex;flex-direction:column}} .top{{padding:14px 20px;border-bottom:1px solid #2f2f2f;font-size:16px;color:#eee}}
.log{{flex:1;padding:10px 20px}} .m{{display:flex;gap:12px;padding:9px 0}} .av{{width:36px;height:36px;border-radius:6px;background:#4a7c59;color:#fff;display:flex;align-items:center;justify-content:center;flex:none}}
.u{{color:#9aa7b8;font-size:13px}} .t{{color:#5f5f5f;font-size:11px;margin-left:8px}} .tx{{background:#2c2c2c;display:inline-block;padding:7px 11px;border-radius:6px;margin-top:4px}}
.in{{height:150px;border-top:1px solid #2f2f2f;padding:14px 20px;color:#555}}
</style></head><body><div class="side">{''.join(f'<div class="it{" on" if i==0 else ""}"><div class="a">{n[0]}</div><div><div class="n">{n}</div><div class="p">{p}</div></div></div>' for i,(n,p) in enumerate([("研发群","刘洋：订单导出任务今晚十点执行"),("运维值班","张伟：已重启服务"),("产品设计","陈静：原型图已上传"),("财务报销","请在月底前提交发票"),("文件传输助手","周报模板.docx"),("项目管理","迭代计划评审会议纪要")]))}</div>
<div class="main"><div class="top">研发群（12）</div><div class="log">{zh}</div><div class="in">输入消息……</div></div></body></html>""")

# ---------------------------------------------------------------- Chinese inbox (spreadsheet-like table)
zrows = [("人事部", "关于调整年假制度的通知", "自下月起，员工年假天数按工龄重新核定"), ("财务部", "三月份报销单据汇总", "请各部门于本周五前提交报销单"), ("王磊", "回复：数据库迁移方案", "我同意第二种方案，周末执行"),
         ("系统通知", "您的密码即将过期", "请在七天内修改登录密码"), ("陈静", "产品需求评审会议", "时间：周三下午两点，地点：三号会议室"), ("李娜", "订单统计报表", "附件为三月份各城市订单数量和金额"),
         ("行政部", "办公楼停电通知", "本周六上午八点至十二点停电检修"), ("张伟", "服务器告警汇总", "api-worker-03 连接超时，已扩容"), ("客户服务", "用户投诉处理进度", "共收到投诉二十三件，已处理十九件"),
         ("刘洋", "合同续签提醒", "供应商合同将于四月底到期"), ("培训中心", "新员工入职培训安排", "培训为期三天，请准时参加"), ("市场部", "品牌推广活动总结", "活动期间新增注册用户八千余人")]
zr = "".join(f'<tr class="{"u" if i%3==0 else ""}"><td>&#9744;</td><td>{a}</td><td><b>{b}</b> <span>- {c}</span></td><td>{R.randint(1,28)}日</td></tr>' for i, (a, b, c) in enumerate(zrows * 2))
w("zh_inbox.html", f"""<!doctype html><html lang="zh-CN" translate="no"><head><meta charset="utf-8"><meta name="google" content="notranslate"><title>收件箱 - 企业邮箱</title><style>{CSS_BASE}
body{{font-family:'Noto Sans CJK SC',sans-serif;font-size:13px;color:#222;display:flex}} .nav{{width:200px;background:#f3f5f8;height:100vh;padding:16px}} .nav div{{padding:7px 10px}} .nav .on{{background:#dde7f5;color:#1a5fb4}}
.w{{background:#1a5fb4;color:#fff;padding:9px;text-align:center;border-radius:4px;margin-bottom:14px}} .box{{flex:1}} .bar{{padding:12px 16px;border-bottom:1px solid #e5e5e5;color:#666}}
table{{width:100%;border-collapse:collapse}} td{{padding:8px 10px;border-bottom:1px solid #eee;white-space:nowrap}} td span{{color:#888}} tr.u td{{background:#f8fbff}} td:nth-child(2){{width:120px}} td:last-child{{color:#888;width:60px}}
</style></head><body><div class="nav"><div class="w">写信</div><div class="on">收件箱（8）</div><div>星标邮件</div><div>已发送</div><div>草稿箱</div><div>已删除</div><div>垃圾邮件</div><div>通讯录</div></div>
<div class="box"><div class="bar">收件箱 共 24 封，其中未读邮件 8 封 &nbsp; | &nbsp; 全部标为已读 &nbsp; 删除 &nbsp; 移动到</div><table>{zr}</table></div></body></html>""")

# ---------------------------------------------------------------- Chinese docs page
w("zh_docs.html", f"""<!doctype html><html lang="zh-CN" translate="no"><head><meta charset="utf-8"><meta name="google" content="notranslate"><title>配置文件说明 - 开发者文档</title><style>{CSS_BASE}
body{{font-family:'Noto Sans CJK SC',sans-serif;font-size:15px;color:#24292f;display:flex}} .toc{{width:260px;padding:24px;background:#f6f8fa;height:100vh;font-size:14px}} .toc div{{padding:5px 0;color:#0969da}}
.doc{{max-width:900px;padding:24px 48px;line-height:1.8}} h1{{font-size:30px;border-bottom:1px solid #d0d7de}} h2{{font-size:22px;margin-top:28px}} code,pre{{font-family:'DejaVu Sans Mono',monospace;background:#f6f8fa;font-size:13px}} pre{{padding:12px;line-height:1.5}}
.note{{border-left:4px solid #0969da;background:#ddf4ff;padding:8px 14px}}
</style></head><body><div class="toc"><b>目录</b><div>快速开始</div><div>安装与升级</div><div>配置文件说明</div><div>环境变量</div><div>日志与监控</div><div>常见问题</div><div>更新日志</div></div>
<div class="doc"><h1>配置文件说明</h1><p>应用启动时会调用 <code>load_config()</code> 读取项目根目录下的 <code>config.toml</code> 文件。如果文件不存在，程序将使用默认配置并在日志中输出警告信息。</p>
<h2>基本结构</h2><p>配置文件分为三个部分：服务设置、数据库连接和缓存策略。每个部分都可以通过环境变量覆盖，环境变量的优先级高于配置文件。</p>
<pre>[server]
host = "0.0.0.0"
port = 8080
workers = 4

[database]
url = "postgres://app@db-replica-eu-2/orders"
pool_size = 20</pre>
<div class="note">注意：修改数据库连接参数后需要重启服务才能生效。</div>
<h2>缓存策略</h2><p>默认情况下，缓存过期时间为十分钟。对于访问频率较高的接口，建议适当延长过期时间，以减轻数据库压力。</p>
<h2>常见错误</h2><p>如果启动时出现“找不到配置文件”的错误，请检查当前工作目录是否正确，或者通过 <code>--config</code> 参数指定配置文件的完整路径。</p></div></body></html>""")

# ---------------------------------------------------------------- text files for editors
w("release_notes.txt", """Release checklist - shop-api 2.19 (draft, do not share outside the team)
=========================================================================

Owner: marta.k        Release train: 2024-04-02        Status: collecting changes

1. Freeze the branch release/2.19 on Thursday at 17:00 CET.
2. Run the migration dry run against a snapshot of db-replica-eu-2.
3. Confirm that parse_order_total handles negative quantities (refund lines).
4. Bump the Helm chart and check deployment-redis.yaml keeps replicas: 3.
5. Ask the warehouse team to pause the nightly inventory reconciliation.
6. Update the changelog and the public status page template.

Known issues
------------
- load_config() reads config.toml twice on cold start; fix scheduled for 2.20.
- The invoice exporter truncates customer names longer than 64 characters.
- api-worker-03 occasionally logs "connection reset by peer" under load tests.
- Currency rounding differs between the PDF invoice and the CSV export for HUF.

Contacts
--------
  Release captain ........ Devon Price (devon@northwind.example)
  Database on-call ....... Sana Rahimi
  Payments reviewer ...... Priya Raman
  Customer comms ......... Lucia Marchetti

Rollback plan: helm rollback shop-api 41 --namespace payments-prod
Smoke tests:   make smoke ENV=prod-eu-west SUITE=checkout,refunds,ledger
""")
w("mixed_zh_notes.txt", """# 上线记录 2024-04-02（shop-api 2.19）

修改 deployment-redis.yaml 里的 replicas 配置，从 1 改回 3
运行 load_config() 失败：找不到 config.toml
原因：容器里的工作目录是 /srv/app，不是项目根目录
解决办法：启动参数加上 --config /srv/app/config.toml

待办事项：
  - 检查 parse_order_total 对退款订单的处理（数量为负数）
  - 通知仓库团队暂停夜间库存同步任务
  - api-worker-03 连接超时的问题需要再观察一天
  - 更新监控告警阈值：db-replica-eu-2 复制延迟超过 30 秒报警

负责人：王磊（发布）、李娜（数据库）、张伟（监控）
回滚命令：helm rollback shop-api 41 --namespace payments-prod
""")
print("sources written to", HERE)
