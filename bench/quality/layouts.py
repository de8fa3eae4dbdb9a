"""HTML for the screens of the quality set: a desktop (menu bar, window, browser tabs and
address bar) around an app, and the layouts apps share (mail, chat, editor, terminal,
spreadsheet, calendar). Chromium draws them; fonts are the ones the machine has (DejaVu,
Noto CJK)."""

import html
import re
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

ZONE = ZoneInfo("Europe/Berlin")
BROWSERS = ("Google Chrome", "Firefox", "Safari", "Microsoft Edge")
WEEKDAYS_ZH = "一二三四五六日"

BASE_CSS = """
* { box-sizing: border-box; margin: 0; padding: 0; }
html, body { width: 100%; height: 100%; overflow: hidden; }
body { font-family: var(--font); font-size: 14px; line-height: 1.45; color: var(--fg); background: var(--bg); }
:root { --font: "DejaVu Sans", "Noto Sans CJK SC", sans-serif; --mono: "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace;
        --serif: "DejaVu Serif", "Noto Serif CJK SC", serif; --cjk: "Noto Sans CJK SC", "DejaVu Sans", sans-serif; }
body.light { --fg: #1f2328; --bg: #ffffff; --muted: #667085; --line: #e4e7ec; --panel: #f5f6f8; --accent: #1a66d9;
             --chrome: #dfe3e8; --chrome2: #eef0f3; --bar: #ececec; --bar-fg: #222; }
body.dark { --fg: #e3e5e8; --bg: #1e1f22; --muted: #9aa0a6; --line: #3a3c42; --panel: #2b2d31; --accent: #5b9cff;
            --chrome: #2a2b2f; --chrome2: #35363a; --bar: #1b1b1d; --bar-fg: #ddd; }
body.zh { --font: "Noto Sans CJK SC", "DejaVu Sans", sans-serif; }
.menubar { height: 26px; display: flex; align-items: center; gap: 20px; padding: 0 16px; font-size: 13px;
           background: var(--bar); color: var(--bar-fg); border-bottom: 1px solid var(--line); }
.menubar .app-name { font-weight: bold; }
.menubar .right { margin-left: auto; display: flex; gap: 16px; }
.window { position: absolute; top: 26px; left: 0; right: 0; bottom: 0; display: flex; flex-direction: column; background: var(--bg); }
.titlebar { height: 30px; flex: none; display: flex; align-items: center; justify-content: center; position: relative;
            background: var(--chrome); color: var(--muted); font-size: 13px; }
.lights { position: absolute; left: 12px; top: 9px; display: flex; gap: 8px; }
.lights i { width: 12px; height: 12px; border-radius: 6px; background: #ff5f57; display: block; }
.lights i:nth-child(2) { background: #febc2e; } .lights i:nth-child(3) { background: #28c840; }
.tabs { height: 38px; flex: none; display: flex; align-items: flex-end; gap: 2px; padding: 0 8px 0 84px; background: var(--chrome); position: relative; }
.tabs .lights { top: 13px; }
.tab { width: 230px; height: 31px; padding: 7px 14px; font-size: 12.5px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis;
       border-radius: 8px 8px 0 0; color: var(--muted); }
.tab.on { background: var(--chrome2); color: var(--fg); }
.urlbar { height: 40px; flex: none; display: flex; align-items: center; gap: 14px; padding: 0 12px; background: var(--chrome2);
          border-bottom: 1px solid var(--line); color: var(--muted); font-size: 15px; }
.url { flex: 1; background: var(--bg); border-radius: 15px; padding: 5px 16px; font-size: 13.5px; color: var(--fg); }
.app { flex: 1; position: relative; overflow: hidden; }
.muted { color: var(--muted); } .small { font-size: 12px; } .bold { font-weight: bold; } .right { text-align: right; }
.row { display: flex; gap: 12px; } .grow { flex: 1; } .mono { font-family: var(--mono); }
.btn { display: inline-block; padding: 6px 14px; border-radius: 6px; background: var(--accent); color: #fff; font-size: 13px; }
.btn.ghost { background: transparent; color: var(--accent); border: 1px solid var(--line); }
.pill { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; background: var(--panel); color: var(--muted); }
table.grid { border-collapse: collapse; width: 100%; }
table.grid th, table.grid td { padding: 7px 10px; border-bottom: 1px solid var(--line); text-align: left; }
table.grid th { color: var(--muted); font-weight: normal; font-size: 12.5px; }
table.grid td.num, table.grid th.num { text-align: right; font-variant-numeric: tabular-nums; }

/* mail */
.mail { display: flex; height: 100%; }
.mail .folders { width: 230px; padding: 14px 10px; background: var(--panel); }
.mail .folders div { padding: 6px 12px; border-radius: 14px; font-size: 13.5px; }
.mail .folders .on { background: var(--chrome); font-weight: bold; }
.mail .list { width: 560px; border-right: 1px solid var(--line); overflow: hidden; }
.mail .search { margin: 12px; padding: 8px 14px; background: var(--panel); border-radius: 18px; color: var(--muted); }
.mail .item { padding: 10px 16px; border-bottom: 1px solid var(--line); font-size: 13px; }
.mail .item.unread .from, .mail .item.unread .subj { font-weight: bold; }
.mail .item.on { background: var(--chrome2); }
.mail .item .top { display: flex; } .mail .item .top .time { margin-left: auto; color: var(--muted); font-size: 12px; }
.mail .item .snip { color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.mail .reader { flex: 1; padding: 22px 36px; overflow: hidden; }
.mail .reader h2 { font-size: 21px; font-weight: normal; margin-bottom: 14px; }
.mail .reader .hdr { display: flex; gap: 12px; align-items: center; margin-bottom: 18px; font-size: 13px; }
.avatar { width: 36px; height: 36px; border-radius: 18px; background: #7c8db5; color: #fff; display: flex; align-items: center;
          justify-content: center; font-weight: bold; flex: none; }
.mail .reader .body p { margin-bottom: 12px; font-size: 14.5px; max-width: 860px; }

/* chat */
.chat { display: flex; height: 100%; }
.chat .rail { width: 64px; background: #3f0e40; }
.chat .convs { width: 290px; background: var(--panel); border-right: 1px solid var(--line); overflow: hidden; }
.chat .convs h3 { padding: 14px 16px; font-size: 15px; }
.chat .conv { padding: 9px 16px; font-size: 13.5px; display: flex; gap: 10px; align-items: center; }
.chat .conv.on { background: var(--accent); color: #fff; }
.chat .conv .text { flex: 1; overflow: hidden; } .chat .conv .prev { font-size: 12px; color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.chat .conv.on .prev { color: #e8eefc; }
.chat .main { flex: 1; display: flex; flex-direction: column; }
.chat .head { padding: 12px 20px; border-bottom: 1px solid var(--line); font-weight: bold; font-size: 15px; }
.chat .msgs { flex: 1; padding: 10px 20px; overflow: hidden; }
.chat .msg { display: flex; gap: 10px; margin: 12px 0; }
.chat .msg .who { font-weight: bold; font-size: 14px; } .chat .msg .who span { font-weight: normal; color: var(--muted); font-size: 12px; margin-left: 6px; }
.chat .msg .text { font-size: 14.5px; max-width: 900px; }
.chat .compose { margin: 0 20px 16px; padding: 12px 14px; border: 1px solid var(--line); border-radius: 8px; color: var(--muted); }
.chat.bubbles .msg .text { background: var(--bg); padding: 9px 13px; border-radius: 6px; max-width: 620px; }
.chat.bubbles .msg.me { flex-direction: row-reverse; } .chat.bubbles .msg.me .text { background: #95ec69; color: #111; }
.chat.bubbles .msgs { background: var(--panel); } .chat.bubbles .msg .who { font-weight: normal; color: var(--muted); font-size: 12px; }
.chat.bubbles .rail { background: #2e2e2e; width: 60px; } .chat.bubbles .conv.on { background: #c9c9cb; color: #111; }
.chat.bubbles .conv.on .prev { color: #555; }

/* editor */
.editor { display: flex; height: 100%; background: #1f1f1f; color: #cccccc; font-size: 13px; }
.editor .activity { width: 48px; background: #181818; }
.editor .tree { width: 260px; background: #181818; padding: 8px 0; border-right: 1px solid #2b2b2b; }
.editor .tree div { padding: 2px 0 2px 18px; white-space: nowrap; } .editor .tree .on { background: #37373d; }
.editor .tree .head { font-size: 11px; letter-spacing: .05em; color: #999; padding: 6px 18px; }
.editor .pane { flex: 1; display: flex; flex-direction: column; overflow: hidden; }
.editor .etabs { display: flex; background: #181818; height: 35px; }
.editor .etab { padding: 8px 16px; color: #9d9d9d; border-right: 1px solid #2b2b2b; } .editor .etab.on { background: #1f1f1f; color: #fff; }
.editor .crumbs { padding: 4px 16px; color: #a9a9a9; font-size: 12.5px; }
.editor .code { flex: 1; font-family: var(--mono); font-size: 14px; line-height: 21px; padding-top: 4px; overflow: hidden; }
.editor .ln { display: inline-block; width: 56px; text-align: right; padding-right: 22px; color: #6e7681; }
.editor .code div { white-space: pre; }
.editor .status { height: 24px; background: #007acc; color: #fff; font-size: 12px; display: flex; gap: 18px; padding: 4px 12px; }
.tok-k { color: #c586c0; } .tok-s { color: #ce9178; } .tok-c { color: #6a9955; } .tok-n { color: #b5cea8; } .tok-f { color: #dcdcaa; }
.editor.light { background: #ffffff; color: #1f1f1f; } .editor.light .activity, .editor.light .tree, .editor.light .etabs { background: #f3f3f3; }
.editor.light .etab.on { background: #fff; color: #111; } .editor.light .tree .on { background: #e4e6f1; }
.editor.light .tok-k { color: #af00db; } .editor.light .tok-s { color: #a31515; } .editor.light .tok-c { color: #008000; }
.editor.light .tok-n { color: #098658; } .editor.light .tok-f { color: #795e26; }

/* terminal */
.term { height: 100%; background: #0f1115; color: #d6d6d6; font-family: var(--mono); font-size: 14px; line-height: 20px; padding: 8px 12px; white-space: pre; overflow: hidden; }
.term .p { color: #5fd75f; } body.light .term { background: #ffffff; color: #1d1d1f; } body.light .term .p { color: #1a7f37; } .term .e { color: #ff6b6b; } .term .w { color: #e5c07b; } .term .d { color: #7f8896; }

/* spreadsheet */
.sheet { height: 100%; display: flex; flex-direction: column; font-size: 13px; }
.sheet .menus { padding: 6px 14px; display: flex; gap: 16px; } .sheet .menus .doc { font-size: 17px; margin-right: 20px; }
.sheet .tools { padding: 6px 14px; background: var(--panel); color: var(--muted); border-bottom: 1px solid var(--line); }
.sheet .fx { padding: 4px 14px; border-bottom: 1px solid var(--line); font-family: var(--mono); font-size: 13px; }
.sheet table { border-collapse: collapse; }
.sheet td, .sheet th { border: 1px solid #e2e2e2; padding: 3px 8px; height: 24px; white-space: nowrap; }
.sheet th { background: #f8f9fa; color: #5f6368; font-weight: normal; font-size: 12px; }
.sheet td.n { text-align: right; } .sheet tr.total td { font-weight: bold; background: #f1f6fe; }
.sheet .sheets { margin-top: auto; padding: 6px 14px; background: var(--panel); border-top: 1px solid var(--line); display: flex; gap: 18px; }

/* PDF viewer: a white page on grey */
.pdf { background: #8e8e93; height: 100%; padding: 20px 0; }
.pdf .page { width: 800px; margin: 0 auto; background: #fff; color: #222; padding: 40px 56px; font-size: 13px; height: 1100px; }
.pdf table.grid td, .pdf table.grid th { padding: 5px 8px; }

/* calendar */
.cal { display: flex; height: 100%; font-size: 12.5px; }
.cal .side { width: 250px; padding: 16px; border-right: 1px solid var(--line); } .cal .side .btn { display: block; width: fit-content; }
.cal .grid { flex: 1; position: relative; }
.cal .days { display: flex; margin-left: 60px; border-bottom: 1px solid var(--line); }
.cal .days div { flex: 1; padding: 8px; text-align: center; color: var(--muted); font-size: 13px; }
.cal .days div b { display: block; font-size: 22px; color: var(--fg); font-weight: normal; }
.cal .hours { position: absolute; top: 64px; left: 0; right: 0; bottom: 0; }
.cal .hour { height: 52px; border-top: 1px solid var(--line); color: var(--muted); font-size: 11px; padding-left: 8px; }
.cal .ev { position: absolute; border-radius: 5px; padding: 3px 7px; color: #fff; font-size: 12.5px; overflow: hidden; line-height: 1.3; }
"""

_CODE_TOKEN = re.compile(
    r"(?P<c>#.*$|//.*$|--.*$)|(?P<s>\"[^\"]*\"|'[^']*')|(?P<n>\b\d[\d_.]*\b)"
    r"|(?P<k>\b(?:def|class|return|import|from|if|else|elif|for|while|in|not|and|or|async|await|with|as|try|except|raise|"
    r"const|let|function|export|new|self|None|True|False|SELECT|FROM|WHERE|JOIN|GROUP|BY|ORDER|LIMIT|ON|AND|AS)\b)"
    r"|(?P<f>\b\w+(?=\())",
    re.MULTILINE,
)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_NUMBER = re.compile(r"[-$€¥£%\d,.() ]+")


def esc(text: str) -> str:
    return html.escape(text, quote=False)


@dataclass(frozen=True)
class Screen:
    """One captured screen: its window and the app's HTML inside it."""

    key: str
    lang: str  # the language most of its text is in: en, zh, de
    app_name: str
    window_name: str
    when: str  # local time (Europe/Berlin), "YYYY-MM-DD HH:MM"
    body: str  # the app's own HTML, inside the window (under the address bar in a browser)
    browser_url: str = ""
    tabs: tuple[str, ...] = ()  # the browser's other tabs
    theme: str = "light"
    size: tuple[int, int] = (1920, 1080)
    css: str = ""
    menus: tuple[str, ...] = ("File", "Edit", "View", "Window", "Help")

    @property
    def timestamp(self) -> float:
        return datetime.strptime(self.when, "%Y-%m-%d %H:%M").replace(tzinfo=ZONE).timestamp()

    def clock(self) -> str:
        moment = datetime.strptime(self.when, "%Y-%m-%d %H:%M")
        if self.lang == "zh":
            return f"{moment.month}月{moment.day}日 周{WEEKDAYS_ZH[moment.weekday()]} {moment:%H:%M}"
        return moment.strftime("%a %-d %b %H:%M")

    def html(self) -> str:
        menus = self.menus if self.lang != "zh" or self.menus != Screen.menus else ("文件", "编辑", "显示", "窗口", "帮助")
        menubar = (
            f'<div class="menubar"><span class="app-name">{esc(self.app_name)}</span>'
            + "".join(f"<span>{esc(m)}</span>" for m in menus)
            + f'<span class="right"><span>{esc(self.clock())}</span></span></div>'
        )
        if self.app_name in BROWSERS:
            tabs = "".join(f'<div class="tab">{esc(t)}</div>' for t in self.tabs)
            top = (
                f'<div class="tabs"><div class="lights"><i></i><i></i><i></i></div>{tabs}'
                f'<div class="tab on">{esc(self.window_name)}</div></div>'
                f'<div class="urlbar"><span>&#8592;</span><span>&#8594;</span><span>&#8635;</span>'
                f'<div class="url">{esc(self.browser_url)}</div><span>&#9734;</span></div>'
            )
        else:
            top = f'<div class="titlebar"><div class="lights"><i></i><i></i><i></i></div>{esc(self.window_name)}</div>'
        lang = {"zh": "zh-CN", "de": "de"}.get(self.lang, "en")
        classes = f"{self.theme} zh" if self.lang == "zh" else self.theme
        return (
            f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><style>{BASE_CSS}{self.css}</style></head>'
            f'<body class="{classes}">{menubar}<div class="window">{top}<div class="app">{self.body}</div></div></body></html>'
        )


def mail(*, folders: list[str], items: list[tuple[str, str, str, str]], open_index: int, reader: str, unread: int = 2,
         search: str = "Search mail") -> str:
    """A three-pane mail client: folders, the message list (sender, subject, snippet, time),
    the open message (`reader`, HTML)."""
    folder_html = "".join(f'<div class="{"on" if i == 0 else ""}">{esc(f)}</div>' for i, f in enumerate(folders))
    rows = []
    for i, (sender, subject, snippet, time) in enumerate(items):
        classes = "item" + (" unread" if i < unread else "") + (" on" if i == open_index else "")
        rows.append(
            f'<div class="{classes}"><div class="top"><span class="from">{esc(sender)}</span><span class="time">{esc(time)}</span></div>'
            f'<div class="subj">{esc(subject)}</div><div class="snip">{esc(snippet)}</div></div>'
        )
    compose = "写信" if _CJK.search(folders[0]) else "Compose"
    return (
        f'<div class="mail"><div class="folders"><div class="btn" style="margin:0 0 14px 4px;border-radius:14px;padding:10px 22px">'
        f'{compose}</div>{folder_html}</div>'
        f'<div class="list"><div class="search">{esc(search)}</div>{"".join(rows)}</div><div class="reader">{reader}</div></div>'
    )


def chat(*, title: str, convs: list[tuple[str, str]], active: int, head: str, messages: list[tuple[str, str, str]],
         me: str = "", compose: str = "Message", bubbles: bool = False) -> str:
    """A chat app: conversations (name, preview) on the left, the open one's messages
    (author, time, text) on the right. `bubbles` draws WeChat-like bubbles, `me` marks one's own."""
    conv_html = "".join(
        f'<div class="conv{" on" if i == active else ""}"><div class="avatar">{esc(name[:1])}</div>'
        f'<div class="text"><div>{esc(name)}</div><div class="prev">{esc(preview)}</div></div></div>'
        for i, (name, preview) in enumerate(convs)
    )
    msg_html = []
    for author, time, text in messages:
        mine = " me" if bubbles and author == me else ""
        who = f'<div class="who">{esc(author)}<span>{esc(time)}</span></div>'
        msg_html.append(
            f'<div class="msg{mine}"><div class="avatar">{esc(author[:1])}</div><div>{who}<div class="text">{esc(text)}</div></div></div>'
        )
    return (
        f'<div class="chat{" bubbles" if bubbles else ""}"><div class="rail"></div><div class="convs"><h3>{esc(title)}</h3>{conv_html}</div>'
        f'<div class="main"><div class="head">{esc(head)}</div><div class="msgs">{"".join(msg_html)}</div>'
        f'<div class="compose">{esc(compose)}</div></div></div>'
    )


def code_line(line: str) -> str:
    out, pos = [], 0
    for match in _CODE_TOKEN.finditer(line):
        out.append(esc(line[pos : match.start()]))
        out.append(f'<span class="tok-{match.lastgroup}">{esc(match.group())}</span>')
        pos = match.end()
    out.append(esc(line[pos:]))
    return "".join(out)


def editor(*, tree: list[str], tabs: list[str], crumbs: str, code: str, status: list[str], light: bool = False,
           active_file: str = "", first_line: int = 1) -> str:
    """A VS Code-like editor: explorer, tabs (the first is open), breadcrumbs, highlighted code, status bar."""
    tree_html = "".join(
        f'<div class="{"on" if name.strip() == active_file else ""}" style="padding-left:{18 + 14 * (len(name) - len(name.lstrip()))}px">'
        f"{esc(name.strip())}</div>"
        for name in tree
    )
    lines = "".join(
        f'<div><span class="ln">{first_line + i}</span>{code_line(line)}</div>' for i, line in enumerate(code.strip("\n").split("\n"))
    )
    tab_html = "".join(f'<div class="etab{" on" if i == 0 else ""}">{esc(t)}</div>' for i, t in enumerate(tabs))
    return (
        f'<div class="editor{" light" if light else ""}"><div class="activity"></div>'
        f'<div class="tree"><div class="head">EXPLORER</div>{tree_html}</div>'
        f'<div class="pane"><div class="etabs">{tab_html}</div><div class="crumbs">{esc(crumbs)}</div>'
        f'<div class="code">{lines}</div><div class="status">{"".join(f"<span>{esc(s)}</span>" for s in status)}</div></div></div>'
    )


def terminal(text: str) -> str:
    """A terminal; lines starting with '$ ' get a prompt, [e]...[/e] marks red, [p] green, [w] yellow, [d] grey."""
    out = []
    for line in text.strip("\n").split("\n"):
        escaped = esc(line)
        for tag in "ewdp":
            escaped = escaped.replace(f"[{tag}]", f'<span class="{tag}">').replace(f"[/{tag}]", "</span>")
        if line.startswith("$ "):
            escaped = '<span class="p">dev@mbp ~/src %</span> ' + escaped[2:]
        out.append(escaped)
    return f'<div class="term">{"<br>".join(out)}</div>'


def sheet(*, doc: str, menus: list[str], tools: str, fx: str, header: list[str], rows: list[list[str]],
          total_rows: tuple[int, ...] = (), sheets: list[str] = (), widths: list[int] = ()) -> str:
    """A spreadsheet: title and menus, formula bar, column letters, numbered rows (numbers right-aligned)."""
    letters = "".join(f'<th style="width:{w}px">{chr(65 + i)}</th>' for i, w in enumerate(widths or [140] * len(header)))
    body = [f"<tr><th>1</th>" + "".join(f"<td><b>{esc(h)}</b></td>" for h in header) + "</tr>"]
    for r, row in enumerate(rows, start=2):
        cells = "".join(f'<td class="{"n" if _NUMBER.fullmatch(c or "x") else ""}">{esc(c)}</td>' for c in row)
        body.append(f'<tr class="{"total" if r - 2 in total_rows else ""}"><th>{r}</th>{cells}</tr>')
    for r in range(len(rows) + 2, len(rows) + 14):
        body.append(f"<tr><th>{r}</th>" + "<td></td>" * len(header) + "</tr>")
    tabs = "".join(f'<span class="{"bold" if i == 0 else "muted"}">{esc(s)}</span>' for i, s in enumerate(sheets))
    return (
        f'<div class="sheet"><div class="menus"><span class="doc">{esc(doc)}</span>{"".join(f"<span>{esc(m)}</span>" for m in menus)}</div>'
        f'<div class="tools">{esc(tools)}</div><div class="fx">{esc(fx)}</div>'
        f'<table><tr><th style="width:46px"></th>{letters}</tr>{"".join(body)}</table><div class="sheets">{tabs}</div></div>'
    )


def calendar(*, side: str, days: list[tuple[str, str]], events: list[tuple[int, float, float, str, str]],
             first_hour: int = 8, hours: int = 12, hour_label=lambda h: f"{h:02d}:00") -> str:
    """A week view: `days` (weekday, date), events (day index, start hour, end hour, text, colour)."""
    head = "".join(f"<div>{esc(d)}<b>{esc(n)}</b></div>" for d, n in days)
    hour_rows = "".join(f'<div class="hour">{esc(hour_label(first_hour + i))}</div>' for i in range(hours))
    width = 100 / len(days)
    ev_html = "".join(
        f'<div class="ev" style="left:calc(60px + (100% - 60px) * {day * width / 100:.4f} + 3px);'
        f"width:calc((100% - 60px) * {width / 100:.4f} - 8px);top:{(start - first_hour) * 52 + 1:.0f}px;"
        f'height:{(end - start) * 52 - 3:.0f}px;background:{color}">{text}</div>'
        for day, start, end, text, color in events
    )
    return (
        f'<div class="cal"><div class="side">{side}</div><div class="grid"><div class="days">{head}</div>'
        f'<div class="hours">{hour_rows}{ev_html}</div></div></div>'
    )
