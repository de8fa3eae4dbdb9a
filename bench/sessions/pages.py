"""The local pages the captured sessions show in Chromium, written as HTML files.

The documentation pages are dense real text of this machine, laid out as documentation sites
lay it out (a sidebar, a column of text with code, a table of contents):
- English: the reference of a few standard library modules of this Python, from their own
  docstrings and signatures (inspect), as the language's documentation shows them;
- Chinese: the zh_CN translations of GNU coreutils' and bash's help texts (their gettext catalogs
  in /usr/share/locale), as a Chinese command reference shows them.
The chat and mail pages are fixed conversations; a key adds the next message as it arrives
(Alt+N), so a session drives them with key presses. Everything is the same for the same machine.
"""

import gettext
import html
import importlib
import inspect
import re
from pathlib import Path

DOC_MODULES = ["argparse", "subprocess", "pathlib", "collections", "textwrap", "shutil", "json", "logging"]
ZH_CATALOGS = ["coreutils", "bash", "dpkg", "git", "grep"]

BASE_CSS = """
* { box-sizing: border-box; margin: 0; padding: 0; }
body { font-family: "DejaVu Sans", "Noto Sans CJK SC", sans-serif; color: #222; background: #fff; }
code, pre { font-family: "DejaVu Sans Mono", monospace; }
"""

DOCS_CSS = """
.top { position: fixed; top: 0; left: 0; right: 0; height: 44px; background: #2b5b84; color: #fff; display: flex;
       align-items: center; padding: 0 20px; font-size: 15px; gap: 24px; z-index: 2; }
.top input { margin-left: auto; width: 260px; padding: 4px 8px; border: 0; border-radius: 3px; }
.side { position: fixed; top: 44px; bottom: 0; left: 0; width: 250px; overflow: hidden; background: #f2f4f6;
        border-right: 1px solid #d8dde2; padding: 14px 16px; font-size: 13px; line-height: 1.6; }
.side h3 { font-size: 13px; margin: 10px 0 4px; color: #555; text-transform: uppercase; }
.side a { display: block; color: #2b5b84; text-decoration: none; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.toc { position: fixed; top: 44px; right: 0; width: 300px; bottom: 0; overflow: hidden; padding: 14px 16px;
       font-size: 12.5px; line-height: 1.55; border-left: 1px solid #e3e6e9; }
.toc a { display: block; color: #444; text-decoration: none; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
main { margin: 44px 300px 0 250px; padding: 20px 40px 400px; font-size: 15px; line-height: 1.55; }
main h1 { font-size: 30px; margin: 18px 0 10px; } main h2 { font-size: 23px; margin: 26px 0 8px; border-bottom: 1px solid #ddd; }
main h3 { font-size: 16px; margin: 18px 0 6px; } main p { margin: 6px 0 8px; }
dl.api { margin: 14px 0; } dl.api > dt { font-family: "DejaVu Sans Mono", monospace; font-size: 14px; background: #eef3f8;
         border-top: 3px solid #6c98c2; padding: 4px 8px; } dl.api > dd { margin: 4px 0 10px 28px; }
pre { background: #f6f8fa; border: 1px solid #e1e4e8; padding: 8px 12px; font-size: 13px; line-height: 1.45; white-space: pre-wrap; margin: 6px 0 10px; }
a.hl { color: #2b5b84; } a.hl:hover { background: #ffe98a; }
"""


def _page(title: str, css: str, body: str, lang: str = "en") -> str:
    return (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"<style>{BASE_CSS}{css}</style></head><body>{body}</body></html>")


def _paragraphs(text: str) -> str:
    """A docstring as documentation shows it: paragraphs, and indented or example blocks as code."""
    out = []
    for block in re.split(r"\n\s*\n", inspect.cleandoc(text)):
        lines = block.splitlines()
        if not lines:
            continue
        if all(line.startswith(("    ", ">>>", "...")) or not line.strip() for line in lines) or lines[0].startswith(">>>"):
            out.append(f"<pre>{html.escape(block)}</pre>")
        else:
            out.append(f"<p>{html.escape(' '.join(line.strip() for line in lines))}</p>")
    return "".join(out)


def _signature(obj) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"


def docs_en() -> str:
    """The standard library reference of DOC_MODULES, one long page."""
    side, toc, main = [], [], []
    for name in DOC_MODULES:
        module = importlib.import_module(name)
        side.append(f'<h3>{name}</h3>')
        main.append(f'<h2 id="{name}">{name} — {html.escape((module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else name)}</h2>')
        if module.__doc__:
            main.append(_paragraphs(module.__doc__))
        toc.append(f'<a href="#{name}"><b>{name}</b></a>')
        public = [n for n in getattr(module, "__all__", dir(module)) if not n.startswith("_")]
        for member in sorted(public):
            obj = getattr(module, member, None)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)) or not obj.__doc__:
                continue
            kind = "class" if inspect.isclass(obj) else "function"
            side.append(f'<a href="#{name}.{member}">{member}</a>')
            toc.append(f'<a href="#{name}.{member}">&nbsp;&nbsp;{name}.{member}</a>')
            main.append(f'<dl class="api" id="{name}.{member}"><dt>{kind} {name}.{member}{html.escape(_signature(obj))}</dt>'
                        f"<dd>{_paragraphs(obj.__doc__)}")
            if inspect.isclass(obj):
                for method_name, method in sorted(vars(obj).items()):
                    if method_name.startswith("_") or not inspect.isfunction(method) or not method.__doc__:
                        continue
                    main.append(f'<h3>method {member}.{method_name}{html.escape(_signature(method))}</h3>{_paragraphs(method.__doc__)}')
            main.append("</dd></dl>")
    body = (
        '<div class="top"><b>Python 3 Documentation</b><span>Library Reference</span><span>Modules</span>'
        '<input value="Quick search"></div>'
        f'<nav class="side">{"".join(side)}</nav><nav class="toc"><b>On this page</b>{"".join(toc)}</nav>'
        f'<main><h1>The Python Standard Library: selected modules</h1>{"".join(main)}</main>'
    )
    return _page("Library Reference — Python 3 documentation", DOCS_CSS, body)


def _catalog_texts(name: str) -> list[tuple[str, str]]:
    """(English original, zh_CN translation) of a catalog's long messages, in the catalog's order."""
    path = Path("/usr/share/locale/zh_CN/LC_MESSAGES") / f"{name}.mo"
    if not path.exists():
        return []
    with open(path, "rb") as fh:
        catalog = gettext.GNUTranslations(fh)._catalog  # noqa: SLF001 - the messages as the catalog keeps them
    return [(key, value) for key, value in catalog.items() if isinstance(key, str) and isinstance(value, str) and len(value) > 120]


def docs_zh() -> str:
    """A Chinese command reference from the zh_CN help texts of ZH_CATALOGS."""
    side, toc, main = [], [], []
    for name in ZH_CATALOGS:
        texts = _catalog_texts(name)
        if not texts:
            continue
        side.append(f"<h3>{name}</h3>")
        toc.append(f'<a href="#{name}"><b>{name} 参考手册</b></a>')
        main.append(f'<h2 id="{name}">{name} 参考手册</h2>')
        for number, (original, text) in enumerate(texts):
            first = text.strip().splitlines()[0][:40]
            anchor = f"{name}-{number}"
            if number % 4 == 0:
                side.append(f'<a href="#{anchor}">{html.escape(first)}</a>')
                toc.append(f'<a href="#{anchor}">&nbsp;&nbsp;{html.escape(first)}</a>')
                main.append(f'<h3 id="{anchor}">{number // 4 + 1}. {html.escape(first)}</h3>')
            lines = [line for line in text.splitlines() if line.strip()]
            if any(line.startswith("  ") for line in lines):
                main.append(f"<pre>{html.escape(text.strip(chr(10)))}</pre>")
            else:
                main.append(f"<p>{html.escape(''.join(line.strip() for line in lines))}</p>")
    body = (
        '<div class="top"><b>Linux 命令中文手册</b><span>命令参考</span><span>Shell 内建命令</span><span>软件包管理</span>'
        '<input value="搜索文档"></div>'
        f'<nav class="side">{"".join(side)}</nav><nav class="toc"><b>本页目录</b>{"".join(toc)}</nav>'
        f'<main><h1>GNU 核心工具与 Bash 中文参考</h1>{"".join(main)}</main>'
    )
    return _page("命令参考 — Linux 命令中文手册", DOCS_CSS + "main { font-size: 15.5px; line-height: 1.7; }", body, lang="zh-CN")


CHAT_CSS = """
body { display: flex; height: 100vh; font-size: 14.5px; }
.rail { width: 64px; background: #3f0e40; } .chans { width: 260px; background: #4a154b; color: #e8dfe8; padding: 14px; line-height: 1.9; font-size: 14px; }
.chans b { color: #fff; font-size: 17px; display: block; margin-bottom: 10px; } .chans .on { background: #1264a3; color: #fff; margin: 0 -14px; padding: 0 14px; }
.room { flex: 1; display: flex; flex-direction: column; } .head { height: 52px; border-bottom: 1px solid #ddd; padding: 14px 20px; font-weight: bold; font-size: 16px; }
#log { flex: 1; overflow: hidden; display: flex; flex-direction: column; justify-content: flex-end; padding: 10px 20px; }
.msg { display: flex; gap: 10px; padding: 6px 0; } .av { width: 36px; height: 36px; border-radius: 4px; flex: none; }
.who { font-weight: bold; } .when { color: #777; font-size: 12px; margin-left: 6px; } .text { line-height: 1.45; }
textarea { margin: 0 20px 20px; height: 74px; border: 1px solid #aaa; border-radius: 6px; padding: 10px; font: inherit; resize: none; }
"""

MAIL_CSS = """
body { display: flex; height: 100vh; font-size: 14px; } .folders { width: 220px; background: #f3f3f3; padding: 16px; line-height: 2.1; }
.list { width: 560px; border-right: 1px solid #ddd; overflow: hidden; } .item { padding: 9px 14px; border-bottom: 1px solid #eee; line-height: 1.4; }
.item.sel { background: #cfe3fa; } .item.new { font-weight: bold; } .item .sub { color: #333; } .item .pre { color: #777; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.read { flex: 1; padding: 22px 32px; line-height: 1.6; font-size: 15px; } .read h2 { font-size: 21px; margin-bottom: 8px; } .read .from { color: #555; margin-bottom: 16px; }
.read p { margin-bottom: 12px; }
"""

CHAT_MESSAGES = [
    ("Maya Chen", "#e8912d", "Morning! The nightly import failed again at 03:12, same stack trace as Tuesday."),
    ("Jonas Weber", "#2bac76", "I saw it. It is the retry loop in the fetcher: it gives up after three attempts and the queue never drains."),
    ("Maya Chen", "#e8912d", "Can we raise the limit to five and add a backoff? The upstream API was slow between 03:00 and 03:20."),
    ("Priya Natarajan", "#cd2553", "Before we do that: the job also holds the database lock while it waits. That is why the dashboard froze."),
    ("Jonas Weber", "#2bac76", "Right, the wait should happen outside the transaction. I will move the fetch before the write block."),
    ("Li Wei", "#1d9bd1", "我这边看到同样的问题，凌晨三点左右队列积压了大约两千条记录。"),
    ("Priya Natarajan", "#cd2553", "Li, did the backlog clear by itself after the import came back, or did you restart the worker?"),
    ("Li Wei", "#1d9bd1", "自己恢复的，不过花了四十分钟。我把日志贴到工单 OPS-2291 里了。"),
    ("Maya Chen", "#e8912d", "Thanks. Jonas, can you open a pull request today? I would like to ship it with Thursday's release."),
    ("Jonas Weber", "#2bac76", "Yes, PR by 4 pm. I will add a test that kills the upstream mid-request and checks the lock is released."),
    ("Tom Okafor", "#8e44ad", "Reminder: design review for the new settings page at 2 pm in the Orion room, slides are in the shared drive."),
    ("Priya Natarajan", "#cd2553", "I can review the PR after the design review. Please keep the migration separate from the code change."),
    ("Maya Chen", "#e8912d", "Also, the staging disk is at 91%. Old screenshots from the load test, I think. Anyone against deleting them?"),
    ("Tom Okafor", "#8e44ad", "Go ahead, the load test report already has the figures we need."),
    ("Li Wei", "#1d9bd1", "顺便提一下，下周一我请假，值班请找 Jonas。"),
    ("Jonas Weber", "#2bac76", "Noted, I have the pager Monday. PR is up: #4812, fetch outside the transaction, backoff 1-2-4-8 s."),
    ("Priya Natarajan", "#cd2553", "Looking now. One question on the backoff: do we cap the total wait? The job has a 15 minute budget."),
    ("Jonas Weber", "#2bac76", "Capped at 60 s in total, then the batch is put back on the queue for the next run."),
    ("Maya Chen", "#e8912d", "Perfect. Approve once CI is green and I will tag the release candidate."),
    ("Tom Okafor", "#8e44ad", "Design review moved to 2:30, sorry — the room was double booked."),
]
MINE = [
    "Sounds good, I can take the staging disk cleanup after lunch.",
    "Approved from my side, the test covers the lock release well.",
    "I will write the release notes for Thursday, send me anything that should be in them.",
]

MAILS = [
    ("Northwind Travel", "Your booking confirmation NW-88214", "Dear customer, thank you for booking with Northwind. Your itinerary, seat assignments and the baggage allowance for each leg are listed below. Please check the names against your identity documents."),
    ("GitLab", "Pipeline #55102 has failed for main", "Pipeline #55102 triggered by a push to main has failed in stage test, job integration-postgres. The job log ends with: connection refused on port 5432 after 30 attempts."),
    ("Anna Kowalski", "Q4 planning: draft for comments", "Hi all, attached is the first draft of the Q4 plan. The main open points are headcount for the platform team, the migration of the billing service and the budget for the customer conference in March."),
    ("Stadtwerke", "Ihre Jahresabrechnung 2026", "Sehr geehrte Kundin, sehr geehrter Kunde, anbei erhalten Sie Ihre Jahresabrechnung. Der neue monatliche Abschlag beträgt ab Januar 84 Euro."),
    ("HR Team", "Open enrolment closes Friday", "This is a reminder that the open enrolment period for benefits closes on Friday at 17:00. Changes made after that date take effect only at the next enrolment period."),
    ("Marco Rossi", "Re: conference talk abstract", "Thanks for the abstract. The committee liked the topic; could you shorten it to 200 words and add two sentences on what the audience will be able to do afterwards?"),
    ("Bank of the North", "Statement available for account ending 4471", "Your monthly statement is now available in online banking. For your security we never ask for your password or one-time codes by email."),
    ("Sofia Alvarez", "Lunch on Thursday?", "Are you free for lunch on Thursday? There is a new ramen place near the station, I heard the queue is short before noon."),
    ("Package Tracking", "Your parcel is out for delivery", "Your parcel 00340434161094031234 is out for delivery today between 10:00 and 14:00. If you are not at home it will be left at the parcel shop on Linden Street."),
    ("Jira", "[OPS-2291] Nightly import backlog", "Li Wei commented: queue backlog of about two thousand records at 03:00, recovered after forty minutes without a restart. Logs attached."),
    ("Conference Team", "Speaker information pack", "Welcome aboard as a speaker. This pack has the schedule, the room layout, the slide template and the rules for the recording of talks."),
    ("David Kim", "Re: offsite agenda", "I added a session on incident reviews on the second morning and moved the roadmap discussion to the afternoon, so people are fresh for it."),
]
MAIL_ARRIVING = [
    ("Maya Chen", "Release candidate 2.14.0-rc1", "The release candidate is tagged. Please run your smoke tests on staging before 5 pm and reply with anything that blocks the release."),
    ("Calendar", "Invitation: Design review (moved 2:30 pm)", "Tom Okafor has updated the invitation: Design review for the settings page, now at 2:30 pm in the Orion room."),
    ("Priya Natarajan", "Re: PR #4812 fetch outside the transaction", "Approved. One nit on the log message, otherwise good to go. Thanks for the test with the killed upstream."),
]

CHAT_JS = """
const incoming = %s, mine = %s; let next = 0, mineNext = 0;
function add(who, color, text) {
  const log = document.getElementById('log'), row = document.createElement('div'); row.className = 'msg';
  const n = log.children.length, time = `10:${String(12 + n).padStart(2, '0')}`;
  row.innerHTML = `<div class="av" style="background:${color}"></div><div><span class="who"></span><span class="when">${time}</span><div class="text"></div></div>`;
  row.querySelector('.who').textContent = who; row.querySelector('.text').textContent = text; log.appendChild(row);
  while (log.children.length > 18) log.removeChild(log.firstChild);
}
for (let i = 0; i < 6; i++) { const m = incoming[next++]; add(m[0], m[1], m[2]); }
document.addEventListener('keydown', e => {
  if (e.altKey && e.key === 'n' && next < incoming.length) { const m = incoming[next++]; add(m[0], m[1], m[2]); e.preventDefault(); }
  if (e.key === 'Enter' && !e.shiftKey) { const box = document.querySelector('textarea');
    if (box.value.trim()) { add('Sam Taylor', '#555', box.value.trim()); box.value = ''; } e.preventDefault(); }
});
document.querySelector('textarea').focus();
"""

MAIL_JS = """
const arriving = %s; let sel = 0, next = 0;
function show() { const items = [...document.querySelectorAll('.item')];
  items.forEach((it, i) => it.classList.toggle('sel', i === sel)); const it = items[sel]; it.classList.remove('new');
  document.querySelector('.read').innerHTML = `<h2></h2><div class="from"></div><p></p><p>Kind regards,</p>`;
  document.querySelector('.read h2').textContent = it.dataset.subject; document.querySelector('.read .from').textContent = 'From: ' + it.dataset.from;
  document.querySelector('.read p').textContent = it.dataset.body.repeat(3); }
function item(m, fresh) { const d = document.createElement('div'); d.className = 'item' + (fresh ? ' new' : '');
  d.dataset.from = m[0]; d.dataset.subject = m[1]; d.dataset.body = m[2] + ' ';
  d.innerHTML = '<div class="from"></div><div class="sub"></div><div class="pre"></div>';
  d.querySelector('.from').textContent = m[0]; d.querySelector('.sub').textContent = m[1]; d.querySelector('.pre').textContent = m[2]; return d; }
document.addEventListener('keydown', e => { const list = document.querySelector('.list'), n = list.children.length;
  if (e.key === 'j') { sel = Math.min(n - 1, sel + 1); show(); } if (e.key === 'k') { sel = Math.max(0, sel - 1); show(); }
  if (e.altKey && e.key === 'n' && next < arriving.length) { list.insertBefore(item(arriving[next++], true), list.firstChild); sel += 1; show(); e.preventDefault(); } });
show();
"""


def chat() -> str:
    import json

    body = ('<div class="rail"></div><div class="chans"><b>Acme Platform</b># general<br><div class="on"># ops-incidents</div>'
            "# releases<br># design<br># random<br><br>Direct messages<br>Maya Chen<br>Jonas Weber<br>Priya Natarajan<br>Li Wei</div>"
            '<div class="room"><div class="head"># ops-incidents</div><div id="log"></div><textarea placeholder="Message #ops-incidents"></textarea></div>'
            f"<script>{CHAT_JS % (json.dumps(CHAT_MESSAGES, ensure_ascii=False), json.dumps(MINE))}</script>")
    return _page("ops-incidents - Acme Platform - Chat", CHAT_CSS, body)


def mail() -> str:
    import json

    items = "".join(
        f'<div class="item" data-from="{html.escape(f)}" data-subject="{html.escape(s)}" data-body="{html.escape(b)} ">'
        f'<div class="from">{html.escape(f)}</div><div class="sub">{html.escape(s)}</div><div class="pre">{html.escape(b)}</div></div>'
        for f, s, b in MAILS
    )
    body = ('<div class="folders"><b>Inbox</b> 12<br>Starred<br>Sent<br>Drafts 2<br>Archive<br>Spam<br>Trash<br><br>Labels<br>Work<br>Travel<br>Bills</div>'
            f'<div class="list">{items}</div><div class="read"></div>'
            f"<script>{MAIL_JS % json.dumps(MAIL_ARRIVING)}</script>")
    return _page("Inbox (12) - sam.taylor@example.org - Mail", MAIL_CSS, body)


def pages_write(folder: Path) -> dict[str, Path]:
    """Write every page into folder; returns their paths by name."""
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    for name, make in {"docs_en": docs_en, "docs_zh": docs_zh, "chat": chat, "mail": mail}.items():
        path = folder / f"{name}.html"
        path.write_text(make(), encoding="utf-8")
        written[name] = path
    return written
