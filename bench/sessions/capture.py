"""Capture the working sessions of manifest.json from real programs on a virtual screen.

Each session is one device's working time: real programs (Chromium, xterm with vim, bash, htop,
man) on an Xvfb screen of 1920x1080 (24-bit, no window manager), driven with xdotool by fixed
steps (scrolls by 80 px, page downs, a function typed word by word, commands run, messages
arriving, windows switched). After each step the screen is grabbed once it has settled (two
grabs alike, or at most a few seconds for a screen that keeps moving: htop, a blinking caret):
a capture every 3 s, the steps standing for the time between captures. The content is fixed
(pages.py; files of this machine), so a session is the same each time on the same machine,
up to what programs draw by themselves (htop's figures, a caret's blink).

Frames go to ~/.cache/myrecall-bench/sessions/<name>/NNN.png with a manifest.json there: the
session, the version of manifest.json it was captured for, and per frame its file, the app and
window title a capture client would send with it, and the step that led to it. A session whose
cache is complete for the current version is not captured again.

    .venv/bin/python bench/sessions/capture.py              # the sessions missing from the cache
    .venv/bin/python bench/sessions/capture.py --force vim-code   # capture one again

Needs Debian's xvfb, xdotool, xterm, vim, htop, man-db and chromium, and the fonts (DejaVu, Noto CJK).
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageGrab

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.json"
CACHE = Path.home() / ".cache" / "myrecall-bench" / "sessions"
WIDTH, HEIGHT = 1920, 1080
TOOLS = ["Xvfb", "xdotool", "xterm", "vim", "chromium", "htop", "man"]

CHROMIUM_FLAGS = [
    "--no-sandbox", "--test-type", "--disable-gpu", "--disable-quic", "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
    "--disable-features=Translate,MediaRouter,OptimizationHints", "--disable-smooth-scrolling", "--password-store=basic",
    "--force-device-scale-factor=1", "--hide-crash-restore-bubble",
]


def manifest() -> dict:
    return json.loads(MANIFEST.read_text())


# The screen and its programs -------------------------------------------------------------------


@dataclass
class Screen:
    """An Xvfb screen with the programs started on it (ended with it)."""

    display: str
    workdir: Path
    procs: list[subprocess.Popen] = field(default_factory=list)

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "DISPLAY": self.display, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}

    def xdo(self, *args: str) -> str:
        return subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=60).stdout.strip()

    def start(self, argv: list[str], **kwargs) -> subprocess.Popen:
        proc = subprocess.Popen(argv, env=kwargs.pop("env", self.env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
        self.procs.append(proc)
        return proc

    def window(self, *search: str, timeout: float = 40) -> str:
        """The id of the first visible window matching an xdotool search, once it shows."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.xdo("search", "--onlyvisible", *search).split()
            if found:
                return found[0]
            time.sleep(0.3)
        raise RuntimeError(f"no window {search} on {self.display} after {timeout} s")

    def chromium(self, url: str, *, app: bool, profile: str, match: str) -> str:
        """A Chromium window on url filling the screen (app: a window without tabs and address bar)."""
        target = [f"--app={url}"] if app else [url]
        self.start(["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={self.workdir / profile}",
                    "--window-position=0,0", f"--window-size={WIDTH},{HEIGHT}", *target])
        wid = self.window("--name", match)
        self.xdo("windowmove", wid, "0", "0", "windowsize", wid, str(WIDTH), str(HEIGHT))
        return wid

    def xterm(self, command: list[str], *, title: str, dark: bool, font_size: float, geometry=(0, 0, WIDTH, HEIGHT), cwd=None, env=None) -> str:
        colors = ["-bg", "#1c1c1c", "-fg", "#d4d4d4", "-cr", "#d4d4d4"] if dark else ["-bg", "white", "-fg", "black"]
        proc = self.start(["xterm", "-fa", "DejaVu Sans Mono", "-fs", str(font_size), *colors, "-T", title, "-n", title,
                           "+sb", "-b", "4", "-e", *command], cwd=cwd, env={**self.env, **(env or {})})
        wid = self.window("--pid", str(proc.pid))
        x, y, width, height = geometry
        self.xdo("windowmove", wid, str(x), str(y), "windowsize", wid, str(width), str(height))
        return wid

    def focus(self, wid: str) -> None:
        self.xdo("windowraise", wid, "windowfocus", "--sync", wid)

    def keys(self, *keys: str) -> None:
        self.xdo("key", "--delay", "40", *keys)

    def type(self, text: str) -> None:
        self.xdo("type", "--delay", "15", text)

    def grab(self) -> np.ndarray:
        return np.asarray(ImageGrab.grab(xdisplay=self.display).convert("RGB"))

    def settled(self, *, least: float, most: float) -> np.ndarray:
        """The screen once two grabs 0.25 s apart are alike (after `least` s, at most `most` s)."""
        time.sleep(least)
        last = self.grab()
        deadline = time.monotonic() + most
        while time.monotonic() < deadline:
            time.sleep(0.25)
            now = self.grab()
            if np.array_equal(now, last):
                return now
            last = now
        return last


@contextmanager
def screen(workdir: Path) -> Iterator[Screen]:
    """An Xvfb screen of WIDTH x HEIGHT on a free display (Xvfb picks it: -displayfd)."""
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", f"{WIDTH}x{HEIGHT}x24", "-nolisten", "tcp"],
                            pass_fds=[write], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    number = b""
    while not number.endswith(b"\n"):
        chunk = os.read(read, 16)
        if not chunk:
            raise RuntimeError("Xvfb did not start")
        number += chunk
    os.close(read)
    shown = Screen(display=f":{number.decode().strip()}", workdir=workdir)
    try:
        yield shown
    finally:
        for proc in reversed(shown.procs):
            proc.terminate()
        for proc in shown.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        xvfb.terminate()
        xvfb.wait(timeout=10)


# The sessions: each a generator of steps. A step does something on the screen and yields
# (what it did, the app a capture client would report, the focused window's id, the seconds to
# let the screen settle at least, at most).

Step = tuple[str, str, str, float, float]


def _reading(x: Screen, wid: str, rng: random.Random, steps: int) -> Iterator[Step]:
    """Reading a long page: mostly scrolls by 80 px (two arrow keys, or a wheel notch), now and
    then a page down, a step back up, a pause, the pointer over a link."""
    actions = ["down 80 px"] * 9 + ["wheel down"] * 3 + ["page down"] * 3 + ["up 80 px", "pause", "pointer moved", "pointer moved"]
    for _ in range(steps):
        action = rng.choice(actions)
        if action == "down 80 px":
            x.keys("Down", "Down")
        elif action == "up 80 px":
            x.keys("Up", "Up")
        elif action == "wheel down":
            x.xdo("mousemove", "1000", "600", "click", "5")
        elif action == "page down":
            x.keys("Next")
        elif action == "pointer moved":
            x.xdo("mousemove", str(rng.randrange(300, 1600)), str(rng.randrange(150, 1050)))
        yield action, "Chromium", wid, 0.35, 2.0


def docs(page: str, seed: int):
    def session(x: Screen, pages: dict[str, Path], frames: int) -> Iterator[Step]:
        wid = x.chromium(pages[page].as_uri(), app=False, profile="chromium", match="Chromium")
        x.focus(wid)
        x.xdo("mousemove", "1000", "600", "click", "1")  # the page has the focus, not the address bar
        yield "page open", "Chromium", wid, 1.5, 4.0
        yield from _reading(x, wid, random.Random(seed), frames - 1)

    return session


NEW_FUNCTION = '''def shorten_lines(lines, width=70, placeholder=' [...]'):
    """Shorten each of lines to at most width characters, keeping whole words."""
    result = []
    for line in lines:
        if len(line) <= width:
            result.append(line)
        else:
            result.append(shorten(line, width, placeholder=placeholder))
    return result

'''


def vim_code(x: Screen, pages: dict[str, Path], frames: int) -> Iterator[Step]:
    """Editing a Python file (a copy of the standard library's textwrap.py) in vim in a light
    xterm: reading down with j and Ctrl-D, finding a function, typing a new one word by word,
    saving, scrolling back up with k and Ctrl-U."""
    import textwrap

    source = x.workdir / "wrap.py"
    shutil.copyfile(textwrap.__file__, source)
    wid = x.xterm(["vim", "-u", "DEFAULTS", "-i", "NONE", "-N", "-c", "set number laststatus=2 noswapfile",
                   "-c", "setlocal indentexpr= noautoindent nosmartindent nocindent", "wrap.py"],
                  title="wrap.py - VIM", dark=False, font_size=10.5, cwd=x.workdir)
    x.focus(wid)
    done = 0

    def step(what: str, keys: list[str] | None = None, text: str | None = None):
        nonlocal done
        if keys:
            x.keys(*keys)
        if text:
            x.type(text)
        done += 1
        return what, "XTerm", wid, 0.25, 2.0

    yield step("vim open")
    for keys in (["5", "j"], ["5", "j"], ["ctrl+d"], ["j", "j", "j"], ["ctrl+d"], ["k", "k"], ["ctrl+d"], ["1", "0", "j"]):
        yield step("move " + "".join(keys), keys)
    yield step("search", text="/^def dedent\n")
    yield step("open a line above", ["O", "Return", "Up"])
    # The function, a word or two at a time, as someone types it.
    words: list[str] = []
    for line in NEW_FUNCTION.splitlines(keepends=True):
        indent = len(line) - len(line.lstrip(" "))
        parts = line.strip().split(" ") if line.strip() else []
        tokens = [" " * indent + parts[0]] + [" " + part for part in parts[1:]] if parts else []
        if tokens:
            tokens[-1] += "\n"
        else:
            tokens = ["\n"]
        words += tokens
    at = 0
    while at < len(words) and done < frames - 12:
        chunk = "".join(words[at : at + 2])
        at += 2
        yield step("type", text=chunk)
    if at < len(words):
        yield step("type", text="".join(words[at:]))
    yield step("escape", ["Escape"])
    yield step("save", text=":w\n")
    moves = [["ctrl+u"], ["k", "k", "k"], ["ctrl+u"], ["5", "k"], ["ctrl+d"], ["ctrl+d"], ["j", "j"], ["ctrl+d"], ["G"], ["ctrl+u"], ["g", "g"]]
    for keys in moves * 4:
        if done >= frames:
            return
        yield step("move " + "".join(keys), keys)


TERMINAL_COMMANDS = [
    # (command, then the keys pressed in what it opens, one capture each)
    ("ls -la /usr/lib", []),
    ("df -h /", []),
    ("git log --stat -n 60 a4a2703", ["space", "space", "space", "q"]),
    ("htop", ["F6", "Escape", "q"]),
    ("man tar", ["d", "d", "space", "space", "d", "q"]),
    ("ps aux --sort=-rss | head -70", []),
    ("ls --color=auto -la /usr/bin | head -90", []),
    ("python3 -c 'import this'", []),
    ("grep -n 'def ' bench/storage.py frames/storage.py", []),
    ("cat /etc/os-release", []),
    ("man ls", ["space", "space", "q"]),
    ("ls -la /usr/share/doc | tail -80", []),
]


def terminal_dark(x: Screen, pages: dict[str, Path], frames: int) -> Iterator[Step]:
    """A dark xterm with a small font: commands typed and run (ls -la /usr/lib, git log in less,
    htop for a moment, man pages paged through)."""
    home = x.workdir / "home"
    home.mkdir(exist_ok=True)
    env = {"HOME": str(home), "PS1": r"sam@devbox:\W\$ ", "TERM": "xterm-256color", "PAGER": "less", "GIT_PAGER": "less -R",
           "MANPAGER": "less", "HISTFILE": "/dev/null", "MANWIDTH": "160"}
    wid = x.xterm(["bash", "--norc", "--noprofile", "-i"], title="sam@devbox: ~/myrecall", dark=True, font_size=8,
                  cwd=REPO, env=env)
    x.focus(wid)
    yield "terminal open", "XTerm", wid, 0.5, 2.0
    done = 1
    for command, keys in TERMINAL_COMMANDS * 2:
        if done >= frames:
            return
        x.type(command)
        yield f"typed {command}", "XTerm", wid, 0.2, 1.5
        x.keys("Return")
        done += 2
        slow = command.startswith(("htop", "man", "git"))
        yield f"ran {command}", "XTerm", wid, 1.0 if slow else 0.4, 1.5 if command == "htop" else 3.0
        for key in keys:
            if done >= frames:
                return
            x.keys(key)
            done += 1
            yield f"{command}: {key}", "XTerm", wid, 0.4, 1.5 if command == "htop" else 3.0
        if command == "htop" or command.startswith("man"):
            x.keys("ctrl+l")  # a clear screen after a full-screen program, as people do


def chat_mail(x: Screen, pages: dict[str, Path], frames: int) -> Iterator[Step]:
    """A chat app, a mail client and a terminal, switched between every few captures: messages
    arrive, a reply is typed word by word and sent, mails are read and a new one arrives,
    commands run in the terminal."""
    chat = x.chromium(pages["chat"].as_uri(), app=True, profile="chat", match="ops-incidents")
    mail = x.chromium(pages["mail"].as_uri(), app=True, profile="mail", match="Inbox")
    term = x.xterm(["bash", "--norc", "--noprofile", "-i"], title="sam@devbox: ~", dark=False, font_size=10,
                   geometry=(420, 160, 1180, 760), cwd=x.workdir,
                   env={"HOME": str(x.workdir), "PS1": r"sam@devbox:~\$ ", "HISTFILE": "/dev/null"})
    from bench.sessions.pages import MINE

    replies = [reply.split(" ") for reply in MINE]
    terminal = ["ls -la /etc | head -45", "cat /etc/os-release", "df -h /", "free -h", "ls -la /usr/share/fonts/truetype"]
    done = 0
    rounds = 0
    while done < frames:
        x.focus(chat)
        plan = [("message arrives", ["alt+n"])] * 2
        words = replies[rounds % len(replies)]
        plan += [("typing", " ".join(words[i : i + 3]) + " ") for i in range(0, len(words), 3)][:3] + [("sent", ["Return"])]
        for what, action in plan:
            if isinstance(action, list):
                x.keys(*action)
            else:
                x.type(action)
            yield what, "Chromium", chat, 0.3, 2.0
        x.focus(mail)
        for what, keys in [("next mail", ["j"]), ("next mail", ["j"]), ("mail arrives", ["alt+n"]), ("previous mail", ["k"])]:
            x.keys(*keys)
            yield what, "Chromium", mail, 0.3, 2.0
        x.focus(term)
        command = terminal[rounds % len(terminal)]
        x.type(command)
        yield f"typed {command}", "XTerm", term, 0.2, 1.5
        x.keys("Return")
        yield f"ran {command}", "XTerm", term, 0.4, 2.0
        rounds += 1
        done += len(plan) + 6


SESSIONS = {
    "docs-en": docs("docs_en", seed=1),
    "docs-zh": docs("docs_zh", seed=2),
    "vim-code": vim_code,
    "terminal-dark": terminal_dark,
    "chat-mail": chat_mail,
}


# Capturing and the cache ------------------------------------------------------------------------


def session_dir(name: str) -> Path:
    return CACHE / name


def session_complete(name: str) -> bool:
    path = session_dir(name) / "manifest.json"
    if not path.exists():
        return False
    saved = json.loads(path.read_text())
    return saved.get("version") == manifest()["version"] and all((path.parent / f["file"]).exists() for f in saved["frames"])


def session_capture(name: str, *, frames: int) -> Path:
    """Capture one session into its cache folder (replacing what was there); returns the folder."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        raise RuntimeError(f"capturing sessions needs {', '.join(missing)} (Debian packages; see bench/sessions/capture.py)")
    out = session_dir(name)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    from bench.sessions.pages import pages_write

    listed = []
    with tempfile.TemporaryDirectory(prefix=f"myrecall-session-{name}-") as tmp, screen(Path(tmp)) as x:
        pages = pages_write(CACHE / "pages")  # a fixed path: the address bar shows it
        began = time.monotonic()
        for number, (what, app, wid, least, most) in enumerate(SESSIONS[name](x, pages, frames)):
            if number >= frames:
                break
            pixels = x.settled(least=least, most=most)
            file = f"{number:03d}.png"
            Image.fromarray(pixels).save(out / file, format="PNG", compress_level=6)
            listed.append({"file": file, "app": app, "window": x.xdo("getwindowname", wid), "step": what})
            print(f"  {name} {number + 1}/{frames} {what[:60]} ({time.monotonic() - began:.0f} s)", flush=True)
    saved = {"name": name, "version": manifest()["version"], "size": [WIDTH, HEIGHT], "device": name, "every_s": 3,
             "what": next(s["what"] for s in manifest()["sessions"] if s["name"] == name), "frames": listed}
    (out / "manifest.json").write_text(json.dumps(saved, indent=1, ensure_ascii=False))
    return out


def sessions_ensure(names: list[str] | None = None, *, force: bool = False) -> list[Path]:
    """The cache folders of the named sessions (all of manifest.json's by default), capturing
    those missing or captured for another version."""
    listed = {s["name"]: s for s in manifest()["sessions"]}
    folders = []
    for name in names or list(listed):
        if name not in listed:
            raise SystemExit(f"no session {name!r}; sessions: {', '.join(listed)}")
        if force or not session_complete(name):
            print(f"capturing session {name} ({listed[name]['frames']} frames) into {session_dir(name)}", flush=True)
            session_capture(name, frames=listed[name]["frames"])
        folders.append(session_dir(name))
    return folders


def session_load(folder: Path) -> tuple[dict, list[Path]]:
    """A captured session's manifest and its frames' files, in order."""
    saved = json.loads((folder / "manifest.json").read_text())
    return saved, [folder / f["file"] for f in saved["frames"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="sessions (default: all of manifest.json)")
    parser.add_argument("--force", action="store_true", help="capture again even when cached")
    args = parser.parse_args()
    os.nice(10)  # a background job on a shared machine: its programs inherit this
    for folder in sessions_ensure(args.names or None, force=args.force):
        saved, files = session_load(folder)
        print(f"{saved['name']}: {len(files)} frames in {folder}")


if __name__ == "__main__":
    main()
