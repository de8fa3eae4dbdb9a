"""English screens of the quality set: a week of work and life of Wei Chen, an engineer at
Northbeam in Berlin (mail, banking, code, terminals, chat, calendar, docs, shopping, news...)."""

from bench.quality.layouts import Screen, calendar, chat, editor, mail, sheet, terminal

NB_FOLDERS = ["Inbox", "Starred", "Snoozed", "Sent", "Drafts", "Purchases", "Travel", "Receipts", "More"]

MAIL_OFFSITE = Screen(
    key="mail-offsite",
    lang="en",
    app_name="Google Chrome",
    window_name="Q4 offsite: Lisbon hotel block - wei.chen@northbeam.io - Northbeam Mail",
    browser_url="https://mail.google.com/mail/u/0/#inbox/FMfcgzQXJQbvKzHlmXcWqPnRtTqz",
    tabs=("Northbeam Wiki - Home", "Standup notes - Google Docs"),
    when="2026-11-02 09:12",
    body=mail(
        folders=NB_FOLDERS,
        items=[
            ("Priya Raman", "Q4 offsite: Lisbon hotel block", "We've reserved 14 rooms at Memmo Alfama for December 9-11", "9:04 AM"),
            ("GitHub", "[northbeam/api] Dependabot alert: urllib3", "A moderate severity vulnerability was found in requirements.txt", "8:51 AM"),
            ("Lena Fischer", "Re: hiring loop for the staff designer role", "Works for me, I can take the portfolio review on Monday", "8:30 AM"),
            ("Notion", "Weekly digest for Northbeam HQ", "12 pages were updated in your workspace this week", "Sun"),
            ("Carta", "Your option grant has vested", "1,250 shares vested on November 1 under grant ES-0193", "Sat"),
            ("Marco Bianchi", "Dinner Saturday?", "There's a new Georgian place on Kastanienallee, they do khachapuri", "Sat"),
            ("Figma", "Your Professional plan renews soon", "EUR 180.00 will be charged on November 15", "Fri"),
            ("Strava", "Lena gave you kudos", "Morning run along the Spree, 8.2 km", "Fri"),
        ],
        open_index=0,
        reader="""
<h2>Q4 offsite: Lisbon hotel block</h2>
<div class="hdr"><div class="avatar">P</div><div><b>Priya Raman</b> &lt;priya.raman@northbeam.io&gt;<br>
<span class="muted">to eng-all@northbeam.io</span></div><div class="grow"></div><span class="muted">Mon, Nov 2, 9:04 AM</span></div>
<div class="body">
<p>Hi all,</p>
<p>Quick logistics for the Q4 offsite. We've reserved a block of 14 rooms at Memmo Alfama (Travessa das Merceeiras 27)
for the nights of December 9-11. Use the group code NB-OFFSITE when you book; the block is released on November 20.</p>
<p>Please book your flights by November 14 and file the receipts in Expensify under "Offsite Q4". The agenda draft is in the
Wiki: day two is the product strategy session with Anders, and the dinner on the 10th is at Taberna da Rua das Flores.</p>
<p>If you have dietary needs, add them to the sheet by Friday.</p>
<p>Thanks,<br>Priya</p>
</div>""",
    ),
)

BANK = Screen(
    key="bank-n26",
    lang="en",
    app_name="Google Chrome",
    window_name="N26 - Transactions",
    browser_url="https://app.n26.com/account/transactions",
    tabs=("Inbox (3) - Northbeam Mail",),
    when="2026-11-02 10:05",
    css="""
.n26 { display: flex; height: 100%; background: #f4f5f5; }
.n26 nav { width: 240px; background: #fff; padding: 24px 18px; border-right: 1px solid #e6e6e6; }
.n26 nav div { padding: 9px 10px; font-size: 14.5px; } .n26 nav .on { background: #e6f4f1; border-radius: 6px; color: #1f7a6b; font-weight: bold; }
.n26 main { flex: 1; padding: 26px 40px; }
.n26 .bal { display: flex; gap: 24px; margin-bottom: 22px; }
.n26 .card { background: #fff; border-radius: 10px; padding: 16px 22px; box-shadow: 0 1px 2px rgba(0,0,0,.06); }
.n26 .card .big { font-size: 28px; font-weight: bold; }
.n26 table.grid td { font-size: 14px; background: #fff; } .n26 .cat { color: #5f6b6b; font-size: 12.5px; }
.n26 .plus { color: #1f7a6b; font-weight: bold; }
""",
    body="""
<div class="n26"><nav><div style="font-size:22px;font-weight:bold;margin-bottom:20px">N26</div>
<div>Home</div><div class="on">Transactions</div><div>Spaces</div><div>Statements</div><div>Cards</div><div>Insights</div>
<div>Standing orders</div><div>Settings</div></nav>
<main>
<div class="bal"><div class="card"><div class="muted">Main Account &middot; DE44 1001 1001 2629 4821 77</div><div class="big">&euro;6,312.47</div></div>
<div class="card"><div class="muted">Space: Holiday Lisbon</div><div class="big">&euro;820.00</div></div>
<div class="card"><div class="muted">Space: Emergency fund</div><div class="big">&euro;5,000.00</div></div></div>
<div class="row" style="margin-bottom:12px"><b style="font-size:18px">October 2026</b><span class="grow"></span><span class="pill">Export CSV</span></div>
<table class="grid">
<tr><th>Date</th><th>Merchant</th><th>Category</th><th>Reference</th><th class="num">Amount</th></tr>
<tr><td>30 Oct</td><td>Northbeam GmbH</td><td class="cat">Income</td><td>Gehalt Oktober 2026</td><td class="num plus">+&euro;4,210.55</td></tr>
<tr><td>29 Oct</td><td>REWE Markt GmbH</td><td class="cat">Food &amp; Groceries</td><td>Kastanienallee 12</td><td class="num">-&euro;84.17</td></tr>
<tr><td>28 Oct</td><td>Marco Bianchi</td><td class="cat">Transfers</td><td>Rent share November</td><td class="num">-&euro;600.00</td></tr>
<tr><td>27 Oct</td><td>Vattenfall Europe Sales GmbH</td><td class="cat">Household &amp; Utilities</td><td>Abschlag Strom 10/2026</td><td class="num">-&euro;142.88</td></tr>
<tr><td>27 Oct</td><td>Shell Deutschland</td><td class="cat">Transport &amp; Car</td><td>Station 57442</td><td class="num">-&euro;52.30</td></tr>
<tr><td>25 Oct</td><td>Netflix</td><td class="cat">Leisure &amp; Entertainment</td><td>Monthly plan</td><td class="num">-&euro;13.99</td></tr>
<tr><td>24 Oct</td><td>Lidl</td><td class="cat">Food &amp; Groceries</td><td>Bernauer Str.</td><td class="num">-&euro;46.02</td></tr>
<tr><td>23 Oct</td><td>BVG</td><td class="cat">Transport &amp; Car</td><td>Deutschlandticket November</td><td class="num">-&euro;58.00</td></tr>
<tr><td>22 Oct</td><td>Cafe Bondi</td><td class="cat">Bars &amp; Restaurants</td><td>Card 4821</td><td class="num">-&euro;12.40</td></tr>
<tr><td>21 Oct</td><td>Hansemerkur</td><td class="cat">Insurance</td><td>Haftpflicht 2026/27</td><td class="num">-&euro;64.80</td></tr>
</table></main></div>""",
)

CODE_RATELIMIT = Screen(
    key="code-ratelimit",
    lang="en",
    app_name="Code",
    window_name="ratelimit.py - gateway - Visual Studio Code",
    when="2026-11-02 11:20",
    theme="dark",
    body=editor(
        tree=["GATEWAY", " app", "  __init__.py", "  main.py", "  ratelimit.py", "  routes.py", "  tenants.py", " tests",
              "  test_ratelimit.py", " pyproject.toml", " README.md"],
        active_file="ratelimit.py",
        tabs=["ratelimit.py", "main.py", "test_ratelimit.py"],
        crumbs="app > ratelimit.py > TokenBucket > take",
        code='''
"""Per-tenant token bucket kept in Redis, shared by every gateway replica."""
import time
from dataclasses import dataclass

from redis.asyncio import Redis
from starlette.responses import JSONResponse

LUA_TAKE = """
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens') or ARGV[1])
local stamp = tonumber(redis.call('HGET', KEYS[1], 'stamp') or ARGV[3])
tokens = math.min(tonumber(ARGV[1]), tokens + (ARGV[3] - stamp) * ARGV[2])
"""


@dataclass(frozen=True)
class TokenBucket:
    capacity: int = 120
    refill_rate: float = 2.0  # tokens per second

    async def take(self, redis: Redis, tenant_id: str, cost: int = 1) -> bool:
        key = f"rl:{tenant_id}"
        allowed = await redis.eval(LUA_TAKE, 1, key, self.capacity, self.refill_rate, time.time(), cost)
        return bool(allowed)


BUCKETS = {"free": TokenBucket(capacity=30, refill_rate=0.5), "team": TokenBucket(), "enterprise": TokenBucket(600, 10.0)}


async def ratelimit_middleware(request, call_next):
    bucket = BUCKETS.get(request.state.plan, BUCKETS["free"])
    if not await bucket.take(request.app.state.redis, request.state.tenant_id):
        return JSONResponse({"error": "rate limited"}, status_code=429, headers={"Retry-After": "1"})
    return await call_next(request)
''',
        status=["main", "Python 3.12.7 ('.venv')", "Ln 24, Col 41", "Spaces: 4", "UTF-8", "LF"],
    ),
)

TERM_K8S = Screen(
    key="term-k8s",
    lang="en",
    app_name="iTerm2",
    window_name="dev@mbp: ~/src/ledger (zsh)",
    when="2026-11-02 11:48",
    theme="dark",
    body=terminal("""
$ kubectl get pods -n payments
NAME                               READY   STATUS             RESTARTS        AGE
ledger-api-6c8b9d7f5-2xkqp         1/1     Running            0               3d4h
ledger-api-6c8b9d7f5-9hzl4         1/1     Running            0               3d4h
ledger-worker-7d9f8c6b4-wq2rt      0/1     [e]CrashLoopBackOff[/e]   14 (2m ago)     47m
payouts-scheduler-5f7c9d8b-kd8sm   1/1     Running            1 (3d ago)      6d
$ kubectl logs ledger-worker-7d9f8c6b4-wq2rt -n payments --tail=12
[d]2026-11-02T10:47:13Z[/d] INFO  starting ledger-worker v2.14.0 (commit 9f3e1ab)
[d]2026-11-02T10:47:13Z[/d] INFO  connecting to pg-ledger-primary.payments.svc:5432 db=ledger
[d]2026-11-02T10:47:18Z[/d] [e]ERROR psycopg2.OperationalError: could not connect to server: Connection refused[/e]
        Is the server running on host "pg-ledger-primary.payments.svc" (10.42.7.19) and accepting
        TCP/IP connections on port 5432?
Traceback (most recent call last):
  File "/app/ledger/worker.py", line 88, in main
    conn = psycopg2.connect(settings.DATABASE_URL)
[d]2026-11-02T10:47:18Z[/d] [e]FATAL giving up after 5 attempts[/e]
$ kubectl get svc -n payments | grep pg-ledger
pg-ledger-primary    ClusterIP   10.42.7.19    <none>   5432/TCP   212d
$ kubectl get endpoints pg-ledger-primary -n payments
NAME                ENDPOINTS   AGE
pg-ledger-primary   [w]<none>[/w]      212d
$ """),
)

SLACK_DESIGN = Screen(
    key="slack-design",
    lang="en",
    app_name="Slack",
    window_name="design-review (Channel) - Northbeam - Slack",
    when="2026-11-02 14:05",
    body=chat(
        title="Northbeam",
        convs=[("# general", "Anders: town hall moved to 4pm"), ("# design-review", "Anders: ship behind the flag Thursday"),
               ("# eng-backend", "Tomas: ledger-worker is crashlooping"), ("# offsite-q4", "Priya: hotel code NB-OFFSITE"),
               ("# random", "Kenji: who took the last oat milk"), ("Lena Fischer", "sure, 3pm works"),
               ("Anders Holm", "can you look at the QBR numbers"), ("Priya Raman", "thanks!")],
        active=1,
        head="# design-review",
        messages=[
            ("Lena Fischer", "1:42 PM", "Uploaded v3 of the onboarding flow to Figma. Main change: we ask for the workspace name after the invite step, not before."),
            ("Anders Holm", "1:47 PM", "Love the progress bar. Can we drop the 'How did you hear about us' screen? Completion fell 18% at that step in the last cohort."),
            ("Lena Fischer", "1:50 PM", "Agree. Moving it to a dismissible card on the dashboard instead."),
            ("Kenji Watanabe", "1:58 PM", "Copy nit: 'Let's get you set up' on screen 2 clashes with the empty-state illustration. I'll send alternatives tonight."),
            ("Wei Chen", "2:01 PM", "Backend is ready: the invite endpoint accepts an empty workspace name since yesterday's deploy."),
            ("Anders Holm", "2:03 PM", "Great. Let's aim to ship behind the flag on Thursday and A/B it against v2 for two weeks."),
        ],
        compose="Message #design-review",
    ),
)

GCAL = Screen(
    key="gcal-week",
    lang="en",
    app_name="Google Chrome",
    window_name="Google Calendar - Week of November 2, 2026",
    browser_url="https://calendar.google.com/calendar/u/0/r/week/2026/11/2",
    tabs=("Inbox (5) - Northbeam Mail",),
    when="2026-11-02 16:30",
    body=calendar(
        side="""<div class="btn" style="margin-bottom:18px">+ Create</div><b>November 2026</b>
<div class="muted small" style="margin:8px 0 18px;line-height:1.9">M T W T F S S<br>26 27 28 29 30 31 1<br>2 3 4 5 6 7 8<br>9 10 11 12 13 14 15<br>
16 17 18 19 20 21 22<br>23 24 25 26 27 28 29</div><b>My calendars</b><div class="small" style="line-height:2">Wei Chen<br>Northbeam<br>Birthdays<br>Holidays in Germany</div>""",
        days=[("MON", "2"), ("TUE", "3"), ("WED", "4"), ("THU", "5"), ("FRI", "6"), ("SAT", "7"), ("SUN", "8")],
        events=[
            (0, 10, 10.5, "Eng standup", "#039be5"),
            (0, 13, 14, "Lunch with Kenji", "#33b679"),
            (0, 15, 16, "Interview: Staff Designer - Olu Adeyemi", "#7986cb"),
            (1, 9, 11, "Sprint 47 planning<br>Room Spree", "#039be5"),
            (1, 14, 15.5, "Board prep: Series B deck review", "#e67c73"),
            (1, 18.5, 20, "Climbing at Berta Block", "#33b679"),
            (2, 10, 10.5, "Eng standup", "#039be5"),
            (2, 12, 13, "Vendor call: Snowflake renewal", "#7986cb"),
            (3, 10, 11, "Onboarding v3 goes live (flag)", "#f4511e"),
            (3, 16, 17, "QBR - Globex Corporation", "#e67c73"),
            (4, 11, 12, "Postmortem review: checkout outage", "#039be5"),
            (4, 17, 19, "Drinks at Prater Garten", "#33b679"),
            (5, 10, 12, "Flea market Mauerpark", "#33b679"),
        ],
    ),
)

DOCS_ASYNCIO = Screen(
    key="docs-asyncio",
    lang="en",
    app_name="Firefox",
    window_name="Coroutines and Tasks - Python 3.13.2 documentation",
    browser_url="https://docs.python.org/3/library/asyncio-task.html#task-groups",
    tabs=("ratelimit middleware - Stack Overflow", "Starlette - Middleware"),
    when="2026-11-03 09:40",
    css="""
.pydoc { display: flex; height: 100%; font-family: var(--font); }
.pydoc aside { width: 300px; background: #f2f2f2; padding: 18px 20px; font-size: 13px; line-height: 1.9; }
.pydoc main { flex: 1; padding: 20px 48px; max-width: 1100px; font-size: 15px; }
.pydoc h1 { font-size: 26px; font-weight: normal; margin: 8px 0 14px; }
.pydoc h2 { font-size: 21px; font-weight: normal; margin: 18px 0 10px; }
.pydoc p { margin-bottom: 10px; } .pydoc pre { background: #eeffcc; border: 1px solid #ac9; padding: 10px 14px; font-family: var(--mono); font-size: 13.5px; margin: 10px 0; }
.pydoc dt { font-family: var(--mono); background: #e8eef5; border-top: 3px solid #6ab0de; padding: 4px 8px; margin-top: 12px; }
.pydoc dd { margin: 8px 0 8px 28px; }
""",
    body="""
<div class="pydoc"><aside><b>Table of Contents</b><br>Coroutines and Tasks<br>&nbsp; Coroutines<br>&nbsp; Awaitables<br>&nbsp; Creating Tasks<br>
&nbsp; Task Cancellation<br>&nbsp; <b>Task Groups</b><br>&nbsp;&nbsp; Terminating a Task Group<br>&nbsp; Sleeping<br>&nbsp; Running Tasks Concurrently<br>
&nbsp; Eager Task Factory<br>&nbsp; Shielding From Cancellation<br>&nbsp; Timeouts<br><br><b>Previous topic</b><br>Runners<br><b>Next topic</b><br>Streams</aside>
<main><div class="small muted">3.13.2 Documentation &raquo; The Python Standard Library &raquo; Networking and Interprocess Communication &raquo; asyncio</div>
<h2>Task Groups</h2>
<p>Task groups combine a task creation API with a convenient and reliable way to wait for all tasks in the group to finish.</p>
<dl><dt>class asyncio.TaskGroup</dt><dd>An asynchronous context manager holding a group of tasks. Tasks can be added to the group using
<code>create_task()</code>. All tasks are awaited when the context manager exits. <i>Added in version 3.11.</i></dd>
<dt>create_task(coro, *, name=None, context=None)</dt><dd>Create a task in this task group. The signature matches that of asyncio.create_task().
If the task group is inactive (e.g. not yet entered, already finished, or in the process of shutting down), we will close the given coro.</dd></dl>
<pre>async def main():
    async with asyncio.TaskGroup() as tg:
        task1 = tg.create_task(some_coro(...))
        task2 = tg.create_task(another_coro(...))
    print(f"Both tasks have completed now: {task1.result()}, {task2.result()}")</pre>
<p>The async with statement will wait for all tasks in the group to finish. While waiting, new tasks may still be added to the group.
Once the last task has finished and the async with block is exited, no new tasks may be added to the group.</p>
<p>The first time any of the tasks belonging to the group fails with an exception other than asyncio.CancelledError, the remaining tasks
in the group are cancelled. No further tasks can then be added to the group. At this point, if the body of the async with statement is
still active, the task directly containing the async with statement is also cancelled.</p>
<p>Once all tasks have finished, if any tasks have failed with an exception other than asyncio.CancelledError, those exceptions are combined
in an ExceptionGroup or BaseExceptionGroup and then raised.</p>
</main></div>""",
)

CART = Screen(
    key="cart-amazon",
    lang="en",
    app_name="Google Chrome",
    window_name="Amazon.de Shopping Basket",
    browser_url="https://www.amazon.de/-/en/gp/cart/view.html?ref_=nav_cart",
    tabs=("Sony WH-1000XM5 review: still the one to beat - The Verge",),
    when="2026-11-02 21:40",
    css="""
.amz-top { background: #131921; color: #fff; padding: 10px 20px; display: flex; gap: 22px; align-items: center; font-size: 13.5px; }
.amz-top .search { flex: 1; background: #fff; color: #555; border-radius: 4px; padding: 7px 12px; }
.amz { display: flex; gap: 24px; padding: 20px 24px; background: #eaeded; height: 100%; }
.amz .box { background: #fff; padding: 18px 22px; }
.amz h1 { font-size: 27px; font-weight: normal; } .amz .item { display: flex; gap: 20px; padding: 16px 0; border-bottom: 1px solid #ddd; }
.amz .img { width: 150px; height: 130px; background: #f3f3f3; border: 1px solid #e3e3e3; flex: none; }
.amz .title { font-size: 17px; } .amz .price { font-size: 18px; font-weight: bold; margin-left: auto; white-space: nowrap; }
.amz .stock { color: #007600; font-size: 12.5px; } .amz .yellow { background: #ffd814; border-radius: 20px; padding: 8px 20px; text-align: center; margin-top: 10px; }
""",
    body="""
<div class="amz-top"><b style="font-size:20px">amazon.de</b><span>Deliver to Wei<br><b>Berlin 10435</b></span><div class="search">Search Amazon.de</div>
<span>Hello, Wei<br><b>Account &amp; Lists</b></span><span>Returns<br><b>&amp; Orders</b></span><b>Basket (3)</b></div>
<div class="amz"><div class="box grow"><h1>Shopping Basket</h1><div class="muted right small">Price</div>
<div class="item"><div class="img"></div><div><div class="title">Sony WH-1000XM5 Wireless Noise Cancelling Headphones, 30 hours, Bluetooth, Black</div>
<div class="stock">In stock</div><div class="small">Eligible for FREE Shipping &middot; Colour: Black</div><div class="small">Qty: 1 &nbsp;|&nbsp; Delete &nbsp;|&nbsp; Save for later</div></div>
<div class="price">&euro;328.00</div></div>
<div class="item"><div class="img"></div><div><div class="title">Anker 737 Power Bank (PowerCore 24K), 24,000mAh, 140W USB-C for laptops</div>
<div class="stock">In stock</div><div class="small">Qty: 1 &nbsp;|&nbsp; Delete &nbsp;|&nbsp; Save for later</div></div><div class="price">&euro;89.99</div></div>
<div class="item"><div class="img"></div><div><div class="title">Moleskine Classic Notebook, Hard Cover, Large, Ruled, Black</div>
<div class="stock">Only 4 left in stock</div><div class="small">Qty: 1 &nbsp;|&nbsp; Delete &nbsp;|&nbsp; Save for later</div></div><div class="price">&euro;21.95</div></div>
<div class="right" style="font-size:18px;margin-top:12px">Subtotal (3 items): <b>&euro;439.94</b></div></div>
<div style="width:330px"><div class="box"><div class="small stock">Your order qualifies for FREE Delivery.</div><div style="font-size:18px;margin-top:8px">Subtotal (3 items): <b>&euro;439.94</b></div>
<div class="yellow">Proceed to checkout</div></div>
<div class="box" style="margin-top:16px"><b>Customers who viewed this also viewed</b><div class="small" style="margin-top:8px;line-height:1.8">
Hard carrying case for WH-1000XM5<br>&euro;24.99<br>USB-C to USB-C cable 2 m, 100W<br>&euro;9.99</div></div></div></div>""",
)

SHEET_BUDGET = Screen(
    key="sheet-budget",
    lang="en",
    app_name="Google Chrome",
    window_name="FY2026 Marketing Budget - Google Sheets",
    browser_url="https://docs.google.com/spreadsheets/d/1hQx7LmB0aX9tR4uVw2YcK8pN3sZ5eJ6dF/edit#gid=0",
    tabs=("Marketing plan FY2026 - Google Docs",),
    when="2026-11-03 10:30",
    body=sheet(
        doc="FY2026 Marketing Budget",
        menus=["File", "Edit", "View", "Insert", "Format", "Data", "Tools", "Extensions", "Help"],
        tools="100%   $  %  .0  .00  123   Default (Arial)   10   B  I  S  A",
        fx="G8   fx   =SUM(G2:G7)",
        header=["Channel", "Owner", "Q1", "Q2", "Q3", "Q4", "FY2026", "vs FY2025"],
        widths=[300, 90, 100, 100, 100, 100, 110, 100],
        rows=[
            ["Paid search (Google Ads)", "Maya", "42,000", "45,000", "40,000", "48,000", "175,000", "+12%"],
            ["LinkedIn Ads", "Maya", "18,000", "18,000", "22,000", "22,000", "80,000", "+30%"],
            ["Conferences & events", "Jonas", "25,000", "60,000", "15,000", "35,000", "135,000", "-5%"],
            ["Content agency (Wordsmith Co.)", "Priya", "12,000", "12,000", "12,000", "12,000", "48,000", "0%"],
            ["Podcast sponsorships", "Jonas", "8,000", "8,000", "10,000", "10,000", "36,000", "new"],
            ["Swag & print", "Anna", "3,500", "6,000", "2,000", "4,500", "16,000", "-20%"],
            ["Total", "", "108,500", "149,000", "101,000", "131,500", "490,000", "+9%"],
        ],
        total_rows=(6,),
        sheets=["Budget by channel", "Headcount", "Assumptions", "FY2025 actuals"],
    ),
)

NEWS_RHINE = Screen(
    key="news-rhine",
    lang="en",
    app_name="Safari",
    window_name="Rhine water level hits record low at Kaub, halting heavy barge traffic | Europe | The Guardian",
    browser_url="https://www.theguardian.com/world/2026/nov/03/rhine-record-low-kaub-barges",
    tabs=("BBC News - Home",),
    when="2026-11-03 12:55",
    size=(1440, 900),
    css="""
.gu-top { background: #052962; color: #fff; padding: 14px 40px; font-family: var(--serif); font-size: 30px; font-weight: bold; }
.gu-nav { background: #052962; color: #fff; padding: 4px 40px 10px; display: flex; gap: 22px; font-size: 14px; border-top: 1px solid #506991; }
.gu { display: flex; gap: 36px; padding: 18px 40px; font-family: var(--serif); }
.gu main { width: 760px; } .gu .kicker { color: #c70000; font-weight: bold; font-size: 15px; }
.gu h1 { font-size: 32px; line-height: 1.15; margin: 8px 0 12px; font-weight: normal; }
.gu .stand { font-size: 17px; margin-bottom: 14px; } .gu p { font-size: 16px; line-height: 1.55; margin-bottom: 12px; }
.gu aside { width: 320px; font-size: 14px; border-top: 1px solid #ddd; padding-top: 10px; line-height: 1.8; }
""",
    body="""
<div class="gu-top">The Guardian</div><div class="gu-nav"><span>News</span><span>Opinion</span><span>Sport</span><span>Culture</span><span>Lifestyle</span>
<span>World</span><span>Europe</span><span>Environment</span></div>
<div class="gu"><main><div class="kicker">Germany</div>
<h1>Rhine water level hits record low at Kaub, halting heavy barge traffic</h1>
<div class="stand">Gauge at key bottleneck reads 21cm after months without significant rainfall in the Alps, forcing freight on to rail and road</div>
<div class="small muted">Kate Connolly in Berlin &middot; Tue 3 Nov 2026 11.42 CET</div><br>
<p>The gauge at Kaub, a narrow stretch between Mainz and Koblenz that serves as the benchmark for shipping on the Rhine, read 21cm on Tuesday
morning, below the previous low of 25cm set in October 2022.</p>
<p>At that level most barges can carry only a fraction of their usual load. Operators have added low-water surcharges of up to
&euro;90 a tonne, and several coal and fuel deliveries to power stations in the south have been cancelled.</p>
<p>BASF said production at its Ludwigshafen site was not yet affected but that it had chartered additional rail capacity.
The federal waterways agency said levels were unlikely to recover before mid-November.</p>
</main><aside><b>Most viewed</b><br>1 Berlin rents rise 9% in a year<br>2 Storm Amy leaves 200,000 homes without power<br>
3 The best winter coats for cyclists<br>4 Why Dutch bike lanes are so wide<br>5 Champions League: Dortmund 2-1 Juventus</aside></div>""",
)

INVOICE_HOSTING = Screen(
    key="invoice-hosting",
    lang="en",
    app_name="Preview",
    window_name="Northwind_INV-2026-0917.pdf (page 1 of 2)",
    when="2026-11-03 14:10",
    size=(1440, 900),
    css=".pdf h1 { font-size: 26px; letter-spacing: .04em; color: #1b3a6b; } .pdf table.grid td { padding: 6px 8px; }",
    body="""
<div class="pdf"><div class="page"><div class="row"><div class="grow"><h1>NORTHWIND CLOUD</h1>
<div class="small">Northwind Cloud Services B.V. &middot; Keizersgracht 241 &middot; 1016 EA Amsterdam &middot; VAT NL861234567B01</div></div>
<div class="right"><b style="font-size:20px">INVOICE</b><br>INV-2026-0917<br>Issue date: 1 Nov 2026<br>Due date: 1 Dec 2026</div></div><br>
<div class="row"><div class="grow"><b>Bill to</b><br>Northbeam GmbH<br>Attn: Accounts Payable<br>Torstra&szlig;e 110, 10119 Berlin, Germany</div>
<div><b>Account</b><br>NB-20431<br>Period: 1-31 Oct 2026</div></div><br>
<table class="grid"><tr><th>Description</th><th class="num">Qty</th><th class="num">Unit</th><th class="num">Amount</th></tr>
<tr><td>Dedicated compute c6.4xlarge (eu-central)</td><td class="num">6 &times; 744 h</td><td class="num">&euro;0.70</td><td class="num">&euro;3,124.80</td></tr>
<tr><td>Block storage, SSD, 12 TB-month</td><td class="num">12</td><td class="num">&euro;80.00</td><td class="num">&euro;960.00</td></tr>
<tr><td>Egress traffic</td><td class="num">18.4 TB</td><td class="num">&euro;80.00</td><td class="num">&euro;1,472.00</td></tr>
<tr><td>Managed PostgreSQL, ha-2 cluster</td><td class="num">1</td><td class="num">&euro;1,150.00</td><td class="num">&euro;1,150.00</td></tr>
<tr><td></td><td></td><td class="num">Subtotal</td><td class="num">&euro;6,706.80</td></tr>
<tr><td></td><td></td><td class="num">VAT 19%</td><td class="num">&euro;1,274.29</td></tr>
<tr><td></td><td></td><td class="num"><b>Total due</b></td><td class="num"><b>&euro;7,981.09</b></td></tr></table><br>
<p>Please pay by SEPA transfer to IBAN NL91 ABNA 0417 1643 00 (BIC ABNANL2A), quoting INV-2026-0917.</p></div></div>""",
)

SETTINGS_PRIVACY = Screen(
    key="settings-privacy",
    lang="en",
    app_name="System Settings",
    window_name="Privacy & Security",
    when="2026-11-03 15:02",
    size=(1440, 900),
    css="""
.ss { display: flex; height: 100%; background: #f5f5f7; }
.ss aside { width: 260px; padding: 12px 10px; font-size: 13.5px; line-height: 2.05; }
.ss aside .on { background: #0a64d8; color: #fff; border-radius: 6px; padding-left: 8px; }
.ss main { flex: 1; padding: 18px 30px; background: #ececec; }
.ss .group { background: #fff; border-radius: 10px; margin: 12px 0; }
.ss .group div { padding: 10px 16px; border-bottom: 1px solid #eee; display: flex; font-size: 14px; }
.ss .toggle { margin-left: auto; width: 38px; height: 22px; border-radius: 11px; background: #34c759; }
.ss .toggle.off { background: #d1d1d6; }
""",
    body="""
<div class="ss"><aside><div>Wi-Fi</div><div>Bluetooth</div><div>Network</div><div>Notifications</div><div>Sound</div><div>Focus</div><div>Screen Time</div>
<div>General</div><div>Appearance</div><div>Accessibility</div><div>Control Centre</div><div>Desktop &amp; Dock</div><div>Displays</div>
<div>Wallpaper</div><div>Battery</div><div>Lock Screen</div><div>Touch ID &amp; Password</div><div>Users &amp; Groups</div>
<div class="on">Privacy &amp; Security</div></aside>
<main><b style="font-size:17px">&lsaquo; Screen &amp; System Audio Recording</b>
<p class="small muted" style="margin-top:10px">Allow the applications below to record the content of your screen and audio, even while using other applications.</p>
<div class="group"><div>MyRecall<span class="toggle"></span></div><div>zoom.us<span class="toggle"></span></div><div>OBS Studio<span class="toggle off"></span></div>
<div>Slack<span class="toggle"></span></div><div>Loom<span class="toggle off"></span></div><div>+ &nbsp; &minus;</div></div>
<div class="group"><div>Accessibility<span class="muted" style="margin-left:auto">3 apps</span></div><div>Input Monitoring<span class="muted" style="margin-left:auto">1 app</span></div>
<div>Full Disk Access<span class="muted" style="margin-left:auto">2 apps</span></div><div>Camera<span class="muted" style="margin-left:auto">4 apps</span></div></div></main></div>""",
)

JIRA = Screen(
    key="jira-refund",
    lang="en",
    app_name="Google Chrome",
    window_name="[PAY-2291] Refund webhook fires twice for partial refunds - Jira",
    browser_url="https://northbeam.atlassian.net/browse/PAY-2291",
    tabs=("Sprint 47 board - Jira",),
    when="2026-11-03 16:20",
    css="""
.jira { display: flex; height: 100%; }
.jira nav { width: 240px; background: #f7f8f9; padding: 18px 14px; font-size: 14px; line-height: 2.1; border-right: 1px solid #ddd; }
.jira main { flex: 1; padding: 20px 34px; } .jira h1 { font-size: 24px; margin: 8px 0 16px; font-weight: 500; }
.jira .desc p { margin-bottom: 10px; font-size: 14.5px; } .jira .side { width: 380px; padding: 20px; }
.jira .side div { display: flex; padding: 7px 0; font-size: 13.5px; } .jira .side div span:first-child { width: 130px; color: #626f86; }
.jira .status { background: #0c66e4; color: #fff; padding: 5px 12px; border-radius: 4px; font-weight: bold; display: inline-block; }
""",
    body="""
<div class="jira"><nav><b>Payments</b><div>Timeline</div><div>Backlog</div><div>Board</div><div>Reports</div><div>Issues</div><div>Components</div></nav>
<main><div class="small muted">Projects / Payments / PAY-2291</div><h1>Refund webhook fires twice for partial refunds</h1>
<div class="desc"><b>Description</b>
<p>When a partial refund is issued from the admin console, Stripe sends charge.refunded and we also emit our own refund.created event,
so the ledger books the refund twice.</p>
<p>Seen on 23 accounts since the 2.13 release; the largest double credit was &euro;1,920.00 (Globex).</p>
<p><b>Steps to reproduce</b><br>1. Create a charge of &euro;100<br>2. Refund &euro;40 from the console<br>3. The ledger shows two entries of -&euro;40</p>
<p><b>Expected</b>: one ledger entry per refund.</p></div><br>
<b>Activity</b><div style="margin-top:10px;font-size:14px"><b>Tom&aacute;s Ortega</b> <span class="muted">yesterday at 17:12</span><br>
An idempotency key on the Stripe refund id should fix it; PR incoming.</div></main>
<div class="side"><span class="status">IN PROGRESS</span><br><br><div><span>Assignee</span><span>Tom&aacute;s Ortega</span></div>
<div><span>Reporter</span><span>Lena Fischer</span></div><div><span>Priority</span><span>High</span></div><div><span>Sprint</span><span>Sprint 47</span></div>
<div><span>Labels</span><span>stripe, webhooks</span></div><div><span>Story points</span><span>5</span></div><div><span>Fix versions</span><span>2.14.1</span></div>
<div><span>Created</span><span>October 30, 2026</span></div></div></div>""",
)

NOTES_1040 = Screen(
    key="notes-1040",
    lang="en",
    app_name="Notes",
    window_name="Notes",
    when="2026-11-03 20:45",
    size=(1440, 900),
    css="""
.notes { display: flex; height: 100%; }
.notes .folders { width: 200px; background: #f0eee9; padding: 14px; font-size: 13.5px; line-height: 2; }
.notes .list { width: 280px; border-right: 1px solid #ddd; } .notes .list div { padding: 10px 14px; border-bottom: 1px solid #eee; font-size: 13px; }
.notes .list .on { background: #fbe58b; } .notes main { flex: 1; padding: 26px 40px; font-size: 15.5px; line-height: 1.7; }
.notes h1 { font-size: 24px; margin-bottom: 8px; }
""",
    body="""
<div class="notes"><div class="folders"><b>iCloud</b><div>All iCloud</div><div>Notes</div><div>Home</div><div>Recipes</div><div>Travel</div><div>Recently Deleted</div></div>
<div class="list"><div class="on"><b>Form 1040 checklist</b><br><span class="muted">20:44 Filing deadline April 15</span></div>
<div><b>Berlin Anmeldung documents</b><br><span class="muted">Yesterday Wohnungsgeberbest&auml;tigung</span></div>
<div><b>Gift ideas</b><br><span class="muted">Mum: silk scarf, tea set</span></div><div><b>Climbing log</b><br><span class="muted">6b+ at Berta Block</span></div></div>
<main><h1>Form 1040 checklist</h1>
<div>Filing deadline April 15 (extension to October 15 with Form 4868)</div>
<div>&#9744; W-2 from Acme Robotics (January to March, before the move)</div>
<div>&#9744; 1099-INT from Ally Bank: $412.60 interest</div>
<div>&#9744; 1099-B from Schwab: sold 40 VOO in June</div>
<div>&#9744; FBAR: report the N26 and DKB accounts (max balance over $10k), FinCEN 114 due the same day</div>
<div>&#9744; Foreign earned income exclusion: Form 2555, physical presence (330 days abroad)</div>
<div>&#9744; Ask Dana (CPA) about the German Steuer-ID and the treaty</div></main></div>""",
)

GITHUB_PR = Screen(
    key="github-pr",
    lang="en",
    app_name="Google Chrome",
    window_name="Migrate auth to OAuth 2.1 with PKCE by tomas-ortega - Pull Request #1842 - northbeam/api",
    browser_url="https://github.com/northbeam/api/pull/1842",
    tabs=("RFC 9700 - OAuth 2.0 Security Best Current Practice",),
    when="2026-11-04 09:15",
    theme="dark",
    css="""
.gh { background: #0d1117; color: #e6edf3; height: 100%; padding: 20px 40px; }
.gh h1 { font-size: 28px; font-weight: normal; } .gh h1 span { color: #7d8590; }
.gh .open { background: #238636; color: #fff; padding: 5px 12px; border-radius: 16px; display: inline-block; margin: 10px 10px 10px 0; }
.gh .tabsx { border-bottom: 1px solid #30363d; padding: 8px 0; display: flex; gap: 26px; color: #7d8590; margin-bottom: 16px; }
.gh .cmt { border: 1px solid #30363d; border-radius: 6px; margin-bottom: 16px; max-width: 1150px; }
.gh .cmt .h { background: #161b22; padding: 9px 14px; border-bottom: 1px solid #30363d; color: #7d8590; }
.gh .cmt .b { padding: 12px 16px; font-size: 14.5px; line-height: 1.6; } .gh code { background: #343942; padding: 1px 5px; border-radius: 4px; font-family: var(--mono); }
.gh .checks div { padding: 4px 0; } .gh .ok { color: #3fb950; }
""",
    body="""
<div class="gh"><div class="muted">northbeam / api &nbsp; Public</div>
<h1>Migrate auth to OAuth 2.1 with PKCE <span>#1842</span></h1>
<span class="open">Open</span><span class="muted">tomas-ortega wants to merge 14 commits into main from auth/pkce</span>
<div class="tabsx"><span>Conversation 6</span><span>Commits 14</span><span>Checks 3</span><span>Files changed 22</span></div>
<div class="cmt"><div class="h"><b style="color:#e6edf3">tomas-ortega</b> commented 2 days ago</div><div class="b">
This replaces the implicit grant in the dashboard with the authorization code flow plus PKCE, as OAuth 2.1 requires.<br>
&bull; Adds <code>/oauth/authorize</code> and <code>/oauth/token</code> handlers<br>
&bull; Stores the <code>code_verifier</code> hash in Redis for 10 minutes<br>
&bull; Removes the implicit-grant fallback behind <code>AUTH_LEGACY_IMPLICIT</code></div></div>
<div class="cmt"><div class="h"><b style="color:#e6edf3">lena-fischer</b> reviewed yesterday</div><div class="b">
Should refresh tokens rotate on every use? RFC 9700 recommends it for public clients.</div></div>
<div class="cmt"><div class="b checks"><b>All checks have passed</b><div class="ok">&#10003; ci / test (3.12)</div><div class="ok">&#10003; ci / lint</div>
<div class="ok">&#10003; codecov/patch 87.4%</div><div>Review required: 1 approving review by reviewers with write access</div></div></div></div>""",
)

MEET = Screen(
    key="meet-benelux",
    lang="en",
    app_name="Google Chrome",
    window_name="Meet - Weekly revenue review",
    browser_url="https://meet.google.com/qxa-hnbv-tyr",
    tabs=("Revenue dashboard - Looker",),
    when="2026-11-04 10:05",
    theme="dark",
    css="""
.meet { background: #202124; height: 100%; position: relative; color: #fff; }
.meet .tiles { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; padding: 16px; height: 700px; }
.meet .tile { background: #3c4043; border-radius: 10px; position: relative; display: flex; align-items: center; justify-content: center; }
.meet .tile .face { width: 120px; height: 120px; border-radius: 60px; background: #5f6368; font-size: 54px; display: flex; align-items: center; justify-content: center; }
.meet .tile .name { position: absolute; left: 14px; bottom: 10px; font-size: 14px; }
.meet .cc { position: absolute; left: 200px; right: 200px; bottom: 90px; background: rgba(0,0,0,.72); padding: 12px 18px; font-size: 19px; line-height: 1.45; border-radius: 6px; }
.meet .bar { position: absolute; left: 0; right: 0; bottom: 0; height: 74px; display: flex; align-items: center; gap: 16px; padding: 0 24px; font-size: 14px; }
""",
    body="""
<div class="meet"><div class="tiles"><div class="tile"><div class="face">A</div><div class="name">Anders Holm</div></div>
<div class="tile"><div class="face">S</div><div class="name">Sofie de Vries</div></div><div class="tile"><div class="face">W</div><div class="name">You</div></div>
<div class="tile"><div class="face">M</div><div class="name">Maya Lindqvist</div></div></div>
<div class="cc"><b>Anders Holm:</b> so churn in the Benelux region went up to 4.2 percent in October, mostly small accounts on the Starter plan,
and Sofie thinks the price change in August is the main reason.</div>
<div class="bar"><span>10:05 | qxa-hnbv-tyr</span><span class="grow"></span><span>Turn off captions</span><span>Raise hand</span><span>Present now</span>
<span style="background:#ea4335;padding:8px 18px;border-radius:20px">Leave call</span></div></div>""",
)

RECIPE = Screen(
    key="recipe-pancakes",
    lang="en",
    app_name="Safari",
    window_name="lemon ricotta pancakes - smitten kitchen",
    browser_url="https://smittenkitchen.com/2026/10/lemon-ricotta-pancakes/",
    tabs=("Farmers markets in Prenzlauer Berg",),
    when="2026-11-07 09:10",
    size=(1440, 900),
    css="""
.sk { padding: 26px 120px; font-family: var(--serif); } .sk .logo { font-size: 34px; font-style: italic; text-align: center; margin-bottom: 18px; }
.sk h1 { font-size: 30px; font-weight: normal; margin-bottom: 6px; } .sk .cols { display: flex; gap: 40px; margin-top: 16px; }
.sk .ing { width: 360px; font-size: 15px; line-height: 1.9; } .sk .steps { flex: 1; font-size: 15.5px; line-height: 1.6; } .sk .steps p { margin-bottom: 12px; }
""",
    body="""
<div class="sk"><div class="logo">smitten kitchen</div><div class="small muted">October 27, 2026 &middot; 212 comments</div>
<h1>lemon ricotta pancakes</h1><div class="muted">Fearless cooking from a tiny NYC kitchen</div>
<div class="cols"><div class="ing"><b>Ingredients</b><br>1 cup (250 grams) whole-milk ricotta<br>3 large eggs, separated<br>1 tablespoon finely grated lemon zest<br>
2 tablespoons fresh lemon juice<br>3/4 cup (95 grams) all-purpose flour<br>1/4 teaspoon fine sea salt<br>2 tablespoons sugar<br>Butter, for the pan<br>Maple syrup or blueberries, to serve</div>
<div class="steps"><b>Method</b><p>Whisk the ricotta, egg yolks, zest and juice together until smooth. Stir in the flour, salt and sugar just until combined.</p>
<p>In a separate bowl, beat the egg whites until they hold soft peaks, then fold them into the batter in two additions. It will be thick and fluffy.</p>
<p>Melt a little butter in a large skillet over medium-low heat. Drop 1/4-cup scoops of batter and cook until the undersides are golden,
about 3 minutes; flip and cook 2 minutes more. Keep warm in a 100&deg;C oven while you finish the rest.</p></div></div></div>""",
)

FLIGHT = Screen(
    key="flight-lh",
    lang="en",
    app_name="Google Chrome",
    window_name="Your booking confirmation - Lufthansa",
    browser_url="https://www.lufthansa.com/de/en/my-bookings?recordLocator=K7QXPM",
    tabs=("Q4 offsite: Lisbon hotel block - Northbeam Mail",),
    when="2026-11-04 13:30",
    css="""
.lh-top { background: #05164d; color: #fff; padding: 16px 40px; font-size: 22px; } .lh { padding: 26px 60px; max-width: 1300px; }
.lh h1 { font-size: 26px; font-weight: normal; color: #05164d; margin-bottom: 6px; }
.lh .seg { border: 1px solid #d7d7d7; border-radius: 6px; padding: 16px 22px; margin: 14px 0; display: flex; gap: 50px; font-size: 15px; }
.lh .seg .t { font-size: 26px; color: #05164d; }
""",
    body="""
<div class="lh-top">Lufthansa</div><div class="lh"><h1>Your booking is confirmed</h1>
<div>Booking code <b style="font-size:18px">K7QXPM</b> &middot; Passenger: Mr Wei Chen &middot; Miles &amp; More 992 004 118 733</div>
<div class="seg"><div><div class="muted small">Outbound &middot; Tue, 8 Dec 2026</div><div class="t">09:55 FRA</div>Frankfurt</div>
<div><div class="muted small">LH 1172 &middot; 3h 20m &middot; nonstop</div><div class="t">12:15 LIS</div>Lisbon</div>
<div><div class="muted small">Fare</div>Economy Light<br>Seat 23A</div></div>
<div class="seg"><div><div class="muted small">Return &middot; Sat, 12 Dec 2026</div><div class="t">13:05 LIS</div>Lisbon</div>
<div><div class="muted small">LH 1173 &middot; 3h 00m &middot; nonstop</div><div class="t">17:05 FRA</div>Frankfurt</div>
<div><div class="muted small">Fare</div>Economy Light<br>Seat 21C</div></div>
<div style="font-size:17px">Total price: <b>EUR 286.40</b> (paid with Visa ending 4821)</div>
<div class="muted" style="margin-top:10px">Online check-in opens 23 hours before departure. Hand luggage only: 1 piece up to 8 kg.</div></div>""",
)

STACKOVERFLOW = Screen(
    key="so-git-lock",
    lang="en",
    app_name="Firefox",
    window_name="git pull fails with \"cannot lock ref\" - Stack Overflow",
    browser_url="https://stackoverflow.com/questions/49662929/git-pull-fails-with-cannot-lock-ref",
    tabs=("northbeam/api - GitHub",),
    when="2026-11-04 15:40",
    css="""
.so { display: flex; gap: 24px; padding: 20px 30px; } .so main { width: 1100px; } .so h1 { font-size: 25px; font-weight: normal; margin-bottom: 8px; }
.so .q { display: flex; gap: 18px; padding: 14px 0; border-bottom: 1px solid #e3e6e8; } .so .votes { width: 50px; text-align: center; font-size: 20px; color: #6a737c; }
.so .txt { font-size: 15px; line-height: 1.55; } .so pre { background: #f6f6f6; padding: 10px; font-family: var(--mono); font-size: 13.5px; margin: 8px 0; }
.so .accepted { color: #2f6f44; font-size: 26px; }
""",
    body="""
<div class="so"><main><h1>git pull fails with "cannot lock ref"</h1><div class="small muted">Asked 8 years ago &middot; Modified 1 year ago &middot; Viewed 612k times</div>
<div class="q"><div class="votes">&#9650;<br>487<br>&#9660;</div><div class="txt">When I run git pull I get:
<pre>error: cannot lock ref 'refs/remotes/origin/feature/Auth-PKCE': is at 3fa2c1e but expected 9be07d4
 ! 9be07d4..7c1d2aa  feature/auth-pkce -> origin/feature/auth-pkce  (unable to update local ref)</pre>
Other branches update fine. I'm on macOS. What does this mean and how do I fix it?</div></div>
<div class="q"><div class="votes">&#9650;<br>1291<br>&#9660;<br><span class="accepted">&#10003;</span></div><div class="txt">
Your local copy keeps a stale remote-tracking ref that clashes with the new one. Two branches whose names differ only in case
(feature/Auth-PKCE and feature/auth-pkce) cannot both exist on a case-insensitive filesystem such as APFS. Prune them:
<pre>git remote prune origin
# or
git fetch --prune</pre>Then pull again. Ask the team to delete one of the two branches on the server so it does not come back.</div></div></main>
<aside style="width:300px" class="small"><b>Linked</b><br>Git: unable to update local ref<br>Git branch names are case sensitive?<br><br><b>Hot Network Questions</b><br>
Why do airliners fly at 35,000 feet?<br>Is it rude to decline a second helping?</aside></div>""",
)

LAB_RESULTS = Screen(
    key="lab-results",
    lang="en",
    app_name="Google Chrome",
    window_name="Results from 2 Nov 2026 - Praxis Dr. Köhler - Patient portal",
    browser_url="https://portal.praxis-koehler.de/results/2026-11-02",
    tabs=("Inbox (2) - Northbeam Mail",),
    when="2026-11-04 18:20",
    css="""
.portal { padding: 24px 50px; } .portal h1 { font-size: 24px; font-weight: normal; margin-bottom: 4px; }
.portal table.grid td { font-size: 14.5px; } .portal .h { color: #c62828; font-weight: bold; } .portal .l { color: #1565c0; font-weight: bold; }
.portal .note { background: #fff8e1; border-left: 4px solid #f9a825; padding: 12px 16px; margin-top: 18px; font-size: 14.5px; max-width: 1100px; }
""",
    body="""
<div class="portal"><div class="muted">Praxis Dr. Jana K&ouml;hler &middot; Internal medicine &middot; Eberswalder Str. 30, Berlin</div>
<h1>Lab results: sample of 2 November 2026</h1><div class="muted small">Patient: Wei Chen, born 14.03.1992 &middot; Fasting: yes</div><br>
<table class="grid" style="max-width:1100px"><tr><th>Test</th><th class="num">Result</th><th>Unit</th><th>Reference range</th><th>Flag</th></tr>
<tr><td>LDL cholesterol</td><td class="num">162</td><td>mg/dL</td><td>&lt; 116</td><td class="h">H</td></tr>
<tr><td>HDL cholesterol</td><td class="num">48</td><td>mg/dL</td><td>&gt; 40</td><td></td></tr>
<tr><td>Triglycerides</td><td class="num">180</td><td>mg/dL</td><td>&lt; 150</td><td class="h">H</td></tr>
<tr><td>HbA1c</td><td class="num">5.4</td><td>%</td><td>4.0 - 5.6</td><td></td></tr>
<tr><td>TSH</td><td class="num">2.1</td><td>mU/L</td><td>0.27 - 4.2</td><td></td></tr>
<tr><td>Vitamin D (25-OH)</td><td class="num">18</td><td>ng/mL</td><td>30 - 100</td><td class="l">L</td></tr>
<tr><td>Ferritin</td><td class="num">96</td><td>&micro;g/L</td><td>30 - 400</td><td></td></tr></table>
<div class="note"><b>Comment from Dr. K&ouml;hler:</b> LDL is above target. Repeat the lipid panel in 3 months; if it is still above 160,
we will discuss a statin. Start vitamin D3 2,000 IU daily.</div></div>""",
)

JOB = Screen(
    key="job-klarna",
    lang="en",
    app_name="Google Chrome",
    window_name="Senior Data Engineer - Klarna - LinkedIn",
    browser_url="https://www.linkedin.com/jobs/view/4079312256/",
    tabs=("Levels.fyi - Klarna salaries",),
    when="2026-11-05 08:50",
    css="""
.li { background: #f4f2ee; height: 100%; padding: 22px 200px; } .li .box { background: #fff; border-radius: 8px; padding: 22px 26px; }
.li h1 { font-size: 24px; margin: 4px 0; } .li p, .li li { font-size: 14.5px; line-height: 1.6; } .li ul { margin: 6px 0 10px 22px; }
""",
    body="""
<div class="li"><div class="box"><div class="muted">Klarna</div><h1>Senior Data Engineer</h1>
<div class="muted">Stockholm, Stockholm County, Sweden &middot; Hybrid &middot; Reposted 3 days ago &middot; Over 100 applicants</div>
<div style="margin:12px 0"><span class="btn">Easy Apply</span> &nbsp; <span class="btn ghost">Save</span></div>
<b>About the job</b><p>You'll build the data pipelines behind Klarna's credit risk and fraud models, which score millions of purchases every day.</p>
<ul><li>Stack: Airflow, dbt, Snowflake, Kafka, Python</li><li>5+ years building batch and streaming pipelines</li>
<li>Experience with data contracts and data quality monitoring</li><li>Relocation support to Stockholm and Swedish lessons</li></ul>
<b>Pay range</b><p>SEK 75,000 - 95,000 per month</p></div></div>""",
)

YOUTUBE = Screen(
    key="yt-descale",
    lang="en",
    app_name="Google Chrome",
    window_name="How to descale a Breville Barista Express (step by step) - YouTube",
    browser_url="https://www.youtube.com/watch?v=Yq3Zk9fWm2s",
    tabs=("Breville BES870 manual.pdf",),
    when="2026-11-07 11:30",
    theme="dark",
    css="""
.yt { background: #0f0f0f; color: #f1f1f1; height: 100%; display: flex; gap: 24px; padding: 20px 26px; }
.yt .player { width: 1240px; height: 560px; background: #000; border-radius: 12px; position: relative; }
.yt .player .cap { position: absolute; bottom: 40px; left: 0; right: 0; text-align: center; font-size: 22px; }
.yt h1 { font-size: 20px; margin: 12px 0 6px; } .yt .desc { background: #272727; border-radius: 10px; padding: 12px; font-size: 14px; margin-top: 10px; width: 1240px; }
.yt aside { font-size: 14px; line-height: 1.5; } .yt aside div { margin-bottom: 14px; }
""",
    body="""
<div class="yt"><div><div class="player"><div class="cap">Fill the tank with the descaling solution up to the MAX line</div></div>
<h1>How to descale a Breville Barista Express (step by step)</h1><div class="muted">Whole Latte Love &middot; 1.2M subscribers &middot; Subscribe</div>
<div class="desc">1.4M views &middot; 2 years ago<br>Descaling removes mineral build-up from the boiler and thermocoil. You need one sachet of citric-acid descaler
dissolved in 1 litre of water. Chapters: 0:00 Intro &middot; 1:12 Entering descale mode &middot; 3:40 Flushing the steam wand &middot; 6:05 Rinse cycle</div></div>
<aside><div>Dialing in espresso grind size<br><span class="muted">Lance Hedrick &middot; 890K views</span></div><div>Cleaning the group head and shower screen<br>
<span class="muted">Whole Latte Love &middot; 410K views</span></div><div>Milk steaming for latte art<br><span class="muted">Emilee Bryant &middot; 2.1M views</span></div></aside></div>""",
)

CONFLUENCE = Screen(
    key="confluence-postmortem",
    lang="en",
    app_name="Google Chrome",
    window_name="Postmortem: 2026-10-28 checkout outage - Engineering - Confluence",
    browser_url="https://northbeam.atlassian.net/wiki/spaces/ENG/pages/2281473/Postmortem+2026-10-28+checkout+outage",
    tabs=("PAY-2291 - Jira",),
    when="2026-11-05 11:10",
    css="""
.cf { display: flex; height: 100%; } .cf nav { width: 260px; background: #f7f8f9; padding: 18px; font-size: 13.5px; line-height: 2; }
.cf main { flex: 1; padding: 24px 60px; max-width: 1200px; } .cf h1 { font-size: 28px; margin-bottom: 12px; }
.cf h2 { font-size: 19px; margin: 16px 0 6px; } .cf p, .cf li { font-size: 15px; line-height: 1.6; } .cf ul { margin-left: 22px; }
""",
    body="""
<div class="cf"><nav><b>Engineering</b><div>Runbooks</div><div>Architecture decisions</div><div>Postmortems</div><div>&nbsp; 2026-10-28 checkout outage</div>
<div>&nbsp; 2026-09-14 search latency</div><div>On-call handbook</div></nav>
<main><h1>Postmortem: 2026-10-28 checkout outage</h1><div class="muted small">Owned by Tom&aacute;s Ortega &middot; Last updated 2 days ago &middot; 6 min read</div>
<h2>Summary</h2><p>For 47 minutes (14:02 to 14:49 CET) every checkout request failed with TLS handshake errors. The certificate on api-gw-eu had expired:
the cert-manager renewal had been failing since 2 October because the DNS-01 solver lost its Route 53 credentials when we rotated IAM keys.</p>
<h2>Impact</h2><p>About 3,100 orders failed; estimated &euro;182k of GMV delayed. No data was lost.</p>
<h2>Action items</h2><ul><li>Alert when any certificate expires in less than 14 days (owner: Tom&aacute;s, due 13 Nov)</li>
<li>Move DNS-01 credentials to IRSA so key rotation cannot break renewals (owner: Wei)</li><li>Add a synthetic checkout probe from eu-west-1 (owner: Lena)</li></ul></main></div>""",
)

OUTLOOK_GLOBEX = Screen(
    key="outlook-globex",
    lang="en",
    app_name="Microsoft Edge",
    window_name="Re: Contract renewal - Globex Corporation - Wei Chen - Outlook",
    browser_url="https://outlook.office.com/mail/inbox/id/AAQkAGI2TG93AAA%3D",
    tabs=("Globex MSA 2024 redline.docx",),
    when="2026-11-05 14:30",
    theme="dark",
    body=mail(
        folders=["Inbox", "Drafts", "Sent Items", "Archive", "Deleted Items", "Junk Email", "Conversation History"],
        items=[
            ("Hank Scorpio", "Re: Contract renewal - Globex Corporation", "We can accept the 3-year term if the uplift is capped at 5%", "2:12 PM"),
            ("Maya Lindqvist", "Podcast sponsorship shortlist", "Three shows fit our audience: Software Engineering Daily, ...", "1:40 PM"),
            ("Microsoft Teams", "You have 2 missed messages", "Anders Holm: can you look at the QBR numbers", "12:58 PM"),
            ("DocuSign", "Completed: Northbeam DPA v4", "All parties have completed the envelope", "11:20 AM"),
            ("Sofie de Vries", "Benelux pricing feedback", "Three customers mentioned the August change on calls", "Tue"),
            ("IT Service Desk", "Your laptop refresh is scheduled", "Pick up your new MacBook Pro at the Torstrasse office", "Tue"),
        ],
        open_index=0,
        unread=1,
        search="Search",
        reader="""
<h2>Re: Contract renewal - Globex Corporation</h2>
<div class="hdr"><div class="avatar">H</div><div><b>Hank Scorpio</b> &lt;h.scorpio@globex.com&gt;<br><span class="muted">To: Wei Chen; Cc: Anders Holm</span></div>
<div class="grow"></div><span class="muted">Thu 11/5/2026 2:12 PM</span></div>
<div class="body"><p>Wei,</p>
<p>Thanks for the draft. We can accept the 3-year term if the annual uplift is capped at 5% instead of 7%, and payment terms move
from net 30 to net 45.</p>
<p>Our legal team also wants the data processing addendum updated to the 2021 SCCs before signature. If you can send a redline by
Monday, I think we can close by November 20.</p>
<p>Best,<br>Hank<br><span class="muted">VP Procurement, Globex Corporation</span></p></div>""",
    ),
)

SPOTIFY = Screen(
    key="spotify-focus",
    lang="en",
    app_name="Spotify",
    window_name="Nils Frahm - Says",
    when="2026-11-05 16:00",
    theme="dark",
    css="""
.sp { background: #121212; color: #fff; height: 100%; display: flex; }
.sp aside { width: 300px; background: #000; padding: 20px; font-size: 14px; line-height: 2.1; color: #b3b3b3; }
.sp main { flex: 1; background: linear-gradient(#3d4a5c, #121212 340px); padding: 30px; }
.sp h1 { font-size: 64px; margin: 6px 0 10px; } .sp table { width: 100%; border-collapse: collapse; margin-top: 20px; font-size: 14.5px; }
.sp td { padding: 8px 10px; color: #b3b3b3; } .sp td b { color: #fff; font-weight: normal; } .sp tr.on b { color: #1ed760; }
.sp .now { position: absolute; left: 0; right: 0; bottom: 0; height: 80px; background: #181818; border-top: 1px solid #282828; display: flex; align-items: center; padding: 0 20px; gap: 30px; color: #fff; }
""",
    body="""
<div class="sp"><aside><b style="color:#fff">Your Library</b><div>Liked Songs</div><div>Deep Focus</div><div>Discover Weekly</div><div>Release Radar</div>
<div>Chill Lofi Study Beats</div><div>Running 170 BPM</div></aside>
<main><div class="small">Playlist</div><h1>Deep Focus</h1><div class="small" style="color:#ddd">Ambient and neo-classical to help you concentrate. Spotify &middot; 5,204,118 saves &middot; 240 songs</div>
<table><tr><td>#</td><td>Title</td><td>Album</td><td>Duration</td></tr>
<tr class="on"><td>1</td><td><b>Says</b><br>Nils Frahm</td><td>Spaces</td><td>8:17</td></tr>
<tr><td>2</td><td><b>Near Light</b><br>&Oacute;lafur Arnalds</td><td>Living Room Songs</td><td>3:54</td></tr>
<tr><td>3</td><td><b>Experience</b><br>Ludovico Einaudi</td><td>In a Time Lapse</td><td>5:15</td></tr>
<tr><td>4</td><td><b>Avril 14th</b><br>Aphex Twin</td><td>Drukqs</td><td>2:05</td></tr>
<tr><td>5</td><td><b>Saman</b><br>&Oacute;lafur Arnalds</td><td>re:member</td><td>2:46</td></tr>
<tr><td>6</td><td><b>An Ending (Ascent)</b><br>Brian Eno</td><td>Apollo</td><td>4:26</td></tr></table></main>
<div class="now"><div><b>Says</b><br><span class="small" style="color:#b3b3b3">Nils Frahm</span></div><div class="grow" style="text-align:center">3:41 / 8:17</div><div>Volume</div></div></div>""",
)

TRELLO = Screen(
    key="trello-relaunch",
    lang="en",
    app_name="Google Chrome",
    window_name="Website relaunch | Trello",
    browser_url="https://trello.com/b/Xr7pQm2L/website-relaunch",
    tabs=("Astro docs - Getting started",),
    when="2026-11-05 17:20",
    css="""
.tr { background: #0079bf; height: 100%; padding: 14px; } .tr .head { color: #fff; font-size: 20px; font-weight: bold; margin-bottom: 12px; }
.tr .cols { display: flex; gap: 12px; align-items: flex-start; } .tr .col { width: 290px; background: #f1f2f4; border-radius: 12px; padding: 10px; }
.tr .col b { display: block; margin: 0 4px 8px; } .tr .card { background: #fff; border-radius: 8px; padding: 8px 10px; margin-bottom: 8px; font-size: 14px; box-shadow: 0 1px 0 #091e4240; }
.tr .lbl { display: inline-block; width: 40px; height: 8px; border-radius: 4px; margin-right: 4px; }
""",
    body="""
<div class="tr"><div class="head">Website relaunch</div><div class="cols">
<div class="col"><b>Backlog</b><div class="card">Pricing page: annual/monthly toggle</div><div class="card"><span class="lbl" style="background:#f5cd47"></span><br>Migrate blog from WordPress to Astro</div>
<div class="card">Cookie banner (TTDSG compliant)</div><div class="card">Customer logos strip</div></div>
<div class="col"><b>In progress</b><div class="card"><span class="lbl" style="background:#4bce97"></span><br>Hero illustration - Kenji</div>
<div class="card">Case study: Globex rollout</div><div class="card">Redirect map for 340 old URLs</div></div>
<div class="col"><b>Review</b><div class="card">New navigation and footer IA</div><div class="card">Lighthouse score above 90 on mobile</div></div>
<div class="col"><b>Done</b><div class="card">Domain move to northbeam.io</div><div class="card">Brand colours in Figma tokens</div></div></div></div>""",
)

TERM_PYTEST = Screen(
    key="term-pytest",
    lang="en",
    app_name="Terminal",
    window_name="billing — pytest — 160×48",
    when="2026-11-06 10:15",
    size=(1440, 900),
    body=terminal("""
$ pytest tests/billing -q
........................................F...........                     [100%]
=================================== FAILURES ===================================
[e]____________________ test_midcycle_upgrade_prorates_by_day ____________________[/e]

    def test_midcycle_upgrade_prorates_by_day():
        sub = subscription(plan="team", seats=5, started="2026-10-01")
        invoice = upgrade(sub, plan="enterprise", on="2026-10-21")
>       assert invoice.proration == Decimal("13.34")
[e]E       AssertionError: assert Decimal('13.33') == Decimal('13.34')[/e]
[e]E        +  where Decimal('13.33') = Invoice(total=Decimal('413.33'), proration=Decimal('13.33')).proration[/e]

tests/billing/test_proration.py:58: AssertionError
=========================== short test summary info ============================
[e]FAILED tests/billing/test_proration.py::test_midcycle_upgrade_prorates_by_day[/e]
[e]1 failed[/e], [p]51 passed[/p] in 3.84s
$ git log --oneline -3 -- billing/proration.py
4e1a9c2 Use ROUND_HALF_EVEN for proration (finance asked)
b77f0d1 Prorate upgrades by day, not by hour
$ """),
)

SCREENS_EN = [
    MAIL_OFFSITE, BANK, CODE_RATELIMIT, TERM_K8S, SLACK_DESIGN, GCAL, DOCS_ASYNCIO, CART, SHEET_BUDGET, NEWS_RHINE,
    INVOICE_HOSTING, SETTINGS_PRIVACY, JIRA, NOTES_1040, GITHUB_PR, MEET, RECIPE, FLIGHT, STACKOVERFLOW, LAB_RESULTS, JOB,
    YOUTUBE, CONFLUENCE, OUTLOOK_GLOBEX, SPOTIFY, TRELLO, TERM_PYTEST,
]
