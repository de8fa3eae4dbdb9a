"""Every command MyRecall shows a user works as written. The commands are read from where users see
them, so a new one is checked without being listed here: the README's and the skill's shell blocks
and the `code spans` that start with a command, and the commands the product's messages quote (its
Python strings, templates and scripts, outside tests/ and bench/). manage.py commands are parsed by
the command's own parser (token_create, export and import also run, in a sandbox, in the order
shown); scripts and the capture client must exist and take the arguments shown; curl lines run
against a real serve and must answer 2xx. An option quoted alone (`--spool-mb`) must be an option
of the command quoted last before it in its section."""

import ast
import json
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class
from django.core.management.base import CommandError
from PIL import Image

from tests.server import REPO, frames_post_session, ocr_wait

DOCUMENTS = ["README.md", *(str(p.relative_to(REPO)) for p in sorted(REPO.glob("skills/*/SKILL.md")))]
MESSAGE_SUFFIXES = {".py", ".html", ".js"}
MESSAGE_FILES_EXTRA = [".env.example"]
NOT_PRODUCT = {"tests", "bench", "node_modules", "__pycache__"}  # and every hidden directory (.venv, .git)

ENV = r"(?:[A-Za-z_]\w*=\S*\s+)*"
PROGRAM = (
    r"(?:(?:capture/)?\.venv/bin/python\s+|python3?\s+)?(?:manage\.py\s+\w|-m\s+capture\b|(?:scripts|bench)/\w+\.(?:py|sh)\b)"
    r"|bash\s+scripts/"
)
COMMAND_START = re.compile(ENV + rf"(?:{PROGRAM}|curl\s)")
# Where a message names a program outside a code span (prose may say "curl" without showing a command).
PROGRAM_NAMED = re.compile(PROGRAM)
OPTIONS_ONLY = re.compile(r"--[a-z][\w-]*(?:\s+[^\s-]\S*)?(?:\s+--[a-z][\w-]*(?:\s+[^\s-]\S*)?)*")



def placeholders(*, token: str, frame_id: int) -> dict[str, str]:
    """What stands in a shown command for a value of the user's, and what the test puts there."""
    return {
        "<this machine>": "my-laptop",  # the capture client's hint: a name for the machine it records
        "NAME": "my-laptop",  # a name of the user's choosing
        "TOKEN": token,  # a token token_create printed
        "FRAME_ID": str(frame_id),  # a frame the server holds
        "OLD_DATA_DIR": "~/.myrecall",  # the data dir of an embedded memory to copy into PostgreSQL
    }


# Shell variables a shown command reads: the README's $TOKEN, and what the agent's skill is given.
SHELL_VARIABLES = {"TOKEN", "MYRECALL_TOKEN", "MYRECALL_URL"}
# `param=...` in a shown URL: a value the user picks. A range in 2001 deletes nothing here.
QUERY_VALUES = {"start_time": "978307200", "end_time": "978393600", "app_name": "Firefox"}
# Capitalised words in shown commands that are meant literally, not placeholders.
LITERAL_WORDS = {"DELETE": "curl -X's HTTP method", "UTC": "the timezone the chat example falls back to"}
SERVER_SHOWN = "http://127.0.0.1:8000"
# Run for real in a sandbox (a home and a data dir of their own), in the order shown: cheap, and
# they change nothing outside it. Other manage.py commands start servers, rebuild or delete: parsed.
RUN_FOR_REAL = {"token_create", "export", "import"}


@dataclass(frozen=True)
class Shown:
    where: str  # file:line
    text: str  # the command as shown, comments and line continuations gone
    owner: "Shown | None" = None  # for options quoted alone: the command they belong to
    problem: str = ""  # what makes it unusable before any check (a command named outside a code span)

    def __str__(self) -> str:
        return f"{self.where}: {' '.join(self.text.split())}"


def shell_scan(text: str, quote: str = "") -> tuple[str, int | None]:
    """The quote still open at the end of text (after one open before it), and where a # comment starts."""
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and quote != "'":
            i += 2
            continue
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or text[i - 1].isspace()):
            return quote, i
        i += 1
    return quote, None


def shell_commands(block: str) -> list[tuple[int, str]]:
    """(line offset, command) of a shell block: comments dropped, continued lines joined."""
    commands, command, first, quote = [], "", 0, ""
    for number, line in enumerate(block.splitlines()):
        if not command:
            first = number
        quote, comment = shell_scan(line, quote)
        if comment is not None:
            line = line[:comment]
        line = line.rstrip()
        if not quote and line.endswith("\\"):
            command += line[:-1]
            continue
        command += line + "\n"
        if quote:  # a quoted newline is part of the command
            continue
        command, done = "", command.strip()
        if done and not re.fullmatch(r"(?:[A-Za-z_]\w*=\S*\s*)+", done):  # settings, not a command
            commands.append((first, done))
    return commands


MARKDOWN = re.compile(r"(?P<fence>^```(?P<lang>\w*)\n(?P<body>.*?)^```)|(?P<heading>^#+ [^\n]*)|`(?P<span>[^`]+)`", re.M | re.S)


def markdown_shown(path: str) -> list[Shown]:
    """Commands in a markdown file's shell blocks and code spans, with options quoted alone tied to
    the command quoted last before them in the same section."""
    text = (REPO / path).read_text()
    shown: list[Shown] = []
    last = None  # the command quoted last in this section

    def where(offset: int) -> str:
        return f"{path}:{text.count(chr(10), 0, offset) + 1}"

    for match in MARKDOWN.finditer(text):
        if match["heading"]:
            last = None
        elif match["fence"] is not None:
            for line, command in shell_commands(match["body"]):
                # In a shell block every line is a command; elsewhere (output shown) only what starts like one.
                if match["lang"] in ("sh", "bash") or COMMAND_START.match(command):
                    last = Shown(f"{path}:{text.count(chr(10), 0, match.start('body')) + line + 1}", command)
                    shown.append(last)
        else:
            span = " ".join(match["span"].split())
            if COMMAND_START.match(span):
                last = Shown(where(match.start()), span)
                shown.append(last)
            elif OPTIONS_ONLY.fullmatch(span):
                shown.append(Shown(where(match.start()), span, owner=last))
    return shown


def python_strings(path: Path):
    """(line, text, is a docstring) of every string in a Python file; an f-string's fields as <{field}>."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    in_fstrings = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values}
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(
                part.value if isinstance(part, ast.Constant) else f"<{{{ast.unparse(part.value)}}}>" for part in node.values
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in in_fstrings:
            text = node.value
        else:
            continue
        yield node.lineno, text, id(node) in docstrings


def message_files() -> list[Path]:
    found = [REPO / name for name in MESSAGE_FILES_EXTRA]
    for folder, dirs, files in os.walk(REPO):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in NOT_PRODUCT)
        found += [Path(folder) / f for f in sorted(files) if Path(f).suffix in MESSAGE_SUFFIXES]
    return found


def message_shown(path: Path) -> list[Shown]:
    """The commands a file's messages quote (`in backticks`, or <code> in a page). A program named
    outside a quote is reported: neither a user nor this test can tell where its command ends."""
    name = str(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    if path.suffix == ".py":
        texts = python_strings(path)
    else:
        whole = path.read_text()
        texts = [(1, whole, False)]
    shown = []
    for line, text, docstring in texts:
        quoted = []
        if not docstring and COMMAND_START.match(text) and "\n" not in text and "`" not in text:
            text = f"`{text}`"  # a string that is a command whole (a parser's prog) is quoted by its own quotes
        for span in re.finditer(r"`([^`]+)`|<code>(.*?)</code>", text, re.S):
            content = span[1] if span[1] is not None else span[2]
            if COMMAND_START.match(content.strip()):
                quoted.append(span.span())
                at = line + text.count("\n", 0, span.start())
                shown.append(Shown(f"{name}:{at}", " ".join(content.split())))
        if docstring:
            continue  # a docstring's usage lines (`prog [a|b]`) are for whoever reads the code
        for named in PROGRAM_NAMED.finditer(text):
            if not any(start <= named.start() < end for start, end in quoted):
                at = line + text.count("\n", 0, named.start())
                shown.append(Shown(f"{name}:{at}", text[named.start():].split("\n")[0],
                                   problem="a command named outside `backticks`: quote it whole, so it is checked"))
    return shown


def shown_all() -> list[Shown]:
    shown = [command for path in DOCUMENTS for command in markdown_shown(path)]
    return shown + [command for path in message_files() for command in message_shown(path)]


SHOWN = shown_all()


def filled(command: str, values: dict[str, str]) -> str:
    """The command with its placeholders filled; what is left that looks like one fails the check."""
    for placeholder, value in values.items():
        command = re.sub(rf"(?<![\w$]){re.escape(placeholder)}(?!\w)", value, command)
    command = re.sub(r"(\w+)=\.\.\.", lambda m: f"{m[1]}={QUERY_VALUES.get(m[1], '...')}", command)
    left = re.findall(r"<[^<>\n]*>|\.\.\.|\[[A-Z][^\]]*\]|(?<![\w$-])[A-Z][A-Z0-9_]+(?![\w=])", command)
    left += [f"${name}" for name in re.findall(r"\$\{?([A-Za-z_]\w*)", command) if name not in SHELL_VARIABLES]
    unknown = sorted({word for word in left if word not in LITERAL_WORDS})
    assert not unknown, f"placeholders this test cannot fill: {unknown} (add them to placeholders(), or show a value)"
    return command


def words(command: str) -> tuple[dict[str, str], list[str]]:
    """The variables a command line sets for itself, and its words."""
    argv = shlex.split(command)
    env = {}
    while argv and re.fullmatch(r"[A-Za-z_]\w*=.*", argv[0]):
        name, value = argv.pop(0).split("=", 1)
        env[name] = value
    return env, argv


@dataclass
class Parsed:
    options: set[str]  # every option the program takes
    error: str = ""  # why it refused the arguments shown


def manage_parse(args: list[str]) -> Parsed:
    """The arguments checked by the manage.py command's own parser, as `manage.py` would."""
    if not args or args[0] not in get_commands():
        return Parsed(set(), f"manage.py has no command {args[:1]}")
    name = args[0]
    parser = load_command_class(get_commands()[name], name).create_parser("manage.py", name)
    options = {option for action in parser._actions for option in action.option_strings}
    try:
        parser.parse_args(args[1:])
    except CommandError as refused:
        return Parsed(options, str(refused))
    return Parsed(options, "")


# Runs a Python program until it has parsed its arguments, then stops it: prints the options its
# parser takes, exits 0 when it took the arguments, 2 with argparse's message when not.
PARSE_ONLY = """
import argparse, json, runpy, sys
target, args = sys.argv[1], sys.argv[2:]
original = argparse.ArgumentParser.parse_args
def parse_args(self, args=None, namespace=None):
    print("OPTIONS", json.dumps([o for a in self._actions for o in a.option_strings]), flush=True)
    original(self, args, namespace)
    raise SystemExit(0)
argparse.ArgumentParser.parse_args = parse_args
if target.startswith("-m="):
    sys.argv = [target[3:], *args]
    runpy.run_module(target[3:], run_name="__main__", alter_sys=True)
else:
    sys.argv = [target, *args]
    runpy.run_path(target, run_name="__main__")
raise SystemExit("it never parsed its arguments")
"""


def python_parse(target: str, args: list[str]) -> Parsed:
    """A script (path) or module (-m=name) of this repo checked by its own argparse parser."""
    if not target.startswith("-m="):
        path = REPO / target
        if not path.is_file():
            return Parsed(set(), f"{target} does not exist")
        if "parse_args(" not in path.read_text():  # it reads sys.argv itself: nothing to check but that
            return Parsed(set(), f"{target} has no parser to check the arguments shown against" if args else "")
    run = subprocess.run([sys.executable, "-c", PARSE_ONLY, target, *args], cwd=REPO, capture_output=True, text=True, timeout=120)
    options = next((set(json.loads(line[8:])) for line in run.stdout.splitlines() if line.startswith("OPTIONS ")), set())
    return Parsed(options, "" if run.returncode == 0 else (run.stderr.strip().splitlines() or ["exit 1"])[-1])


def script_exec(script: str, env: dict[str, str], args: list[str]) -> list[str] | str:
    """What a shell script of ours ends by running (its last `exec` line, or the one of an option it
    takes itself, expanded by bash with the arguments and variables shown), or why that cannot be told."""
    path = REPO / script
    if not path.is_file():
        return f"{script} does not exist"
    text = path.read_text()
    execs = [line for line in text.splitlines() if line.startswith("exec ")]
    if not execs:
        return f"{script} runs no program this test can check the arguments shown against" if args else []
    last = execs[-1][5:]
    # An option the script takes itself: `if [ "${1:-}" = "--scale" ]; then shift ... exec CMD` runs CMD with the rest.
    taken = re.search(r'if \[ "\$\{1:-\}" = "(--[\w-]+)" \]; then\n\s*shift\n\s*exec (.+)\n', text)
    if taken and args[:1] == [taken.group(1)]:
        last, args = taken.group(2), args[1:]
    run = subprocess.run(
        ["bash", "-c", f"printf '%s\\0' {last}", script, *args],
        cwd=REPO, env={**os.environ, **env}, capture_output=True, text=True, check=True,
    )
    return run.stdout.split("\0")[:-1]


def program_check(env: dict[str, str], argv: list[str]) -> Parsed:
    """Checks a command's words with the parser of the program they run."""
    if argv[:3] == ["capture/.venv/bin/python", "-m", "capture"]:
        return python_parse("-m=capture", argv[3:])
    if argv[:3] == [".venv/bin/python", "-m", "pytest"]:  # scripts/test.sh as shown: its options, by pytest itself
        # Collecting a file with no tests: exit 5 ("no tests") once every option was taken, 4 on one it refuses.
        run = subprocess.run(
            [sys.executable, "-m", "pytest", *argv[3:], "--collect-only", "-q", "-p", "no:cacheprovider", "tests/__init__.py"],
            cwd=REPO, capture_output=True, text=True, timeout=120,
        )
        refused = [line for line in run.stderr.splitlines() if "error:" in line] or [f"pytest exited {run.returncode}"]
        return Parsed(set(), "" if run.returncode in (0, 5) else refused[-1])
    if argv[:5] == [".venv/bin/python", "-m", "tests.scale", "run", "--"]:  # the servers of --scale, then the command
        return program_check({}, argv[5:])
    if argv[0] in ("python", "python3"):
        return Parsed(set(), "which Python? `.venv/bin/python` (the server's) or `bash scripts/capture.sh` (the capture client)")
    if argv[0] == ".venv/bin/python" and argv[1:2] != ["-m"]:
        argv = argv[1:]
    if argv[0] == "manage.py":
        return manage_parse(argv[1:])
    if argv[0] == "bash" and argv[1:2] and argv[1].startswith("scripts/"):
        runs = script_exec(argv[1], env, argv[2:])
        if isinstance(runs, str):
            return Parsed(set(), runs)
        return program_check({}, runs) if runs else Parsed(set())
    if re.fullmatch(r"(scripts|bench)/\w+\.py", argv[0]):
        return python_parse(argv[0], argv[1:])
    return Parsed(set(), f"{' '.join(argv[:3])} is not a program this test knows how to check")


PARSE_VALUES = placeholders(token="a-token-from-token_create", frame_id=1)
CURL = [shown for shown in SHOWN if not shown.problem and shown.text.startswith("curl")]
PROGRAMS = [shown for shown in SHOWN if shown not in CURL]


def test_commands_are_read_from_where_users_see_them(tmp_path):
    wheres = {shown.where.split(":")[0] for shown in SHOWN}
    assert {"README.md", "skills/myrecall-search/SKILL.md", "capture/client.py", "myrecall/api.py"} <= wheres, wheres
    kinds = (".venv/bin/python manage.py", "manage.py", "bash scripts/", "bench/", "curl ")
    assert {kind for shown in SHOWN for kind in kinds if shown.text.startswith(kind)} == set(kinds)
    # A message that quotes a wrong hint is caught; one that names a command outside a quote is reported.
    message = tmp_path / "hint.py"
    message.write_text('TOLD = f"refused ({why}): run `.venv/bin/python manage.py token_create --name <this machine>`"\n'
                       'NAMED = "then run manage.py reindex --fts to fix it"\n')
    told, named = message_shown(message)
    assert (told.text, told.problem) == (".venv/bin/python manage.py token_create --name <this machine>", "")
    assert named.problem and named.text.startswith("manage.py reindex")
    assert "unrecognized arguments: --name" in program_check(*words(filled(told.text, PARSE_VALUES))).error


@pytest.mark.parametrize("shown", PROGRAMS, ids=str)
def test_command_shown_takes_its_arguments(shown):
    assert not shown.problem, shown.problem
    if shown.owner is None and shown.text.startswith("--"):
        pytest.fail("an option quoted with no command before it in its section: quote the command first")
    owner = shown.owner or shown
    env, argv = words(filled(owner.text, PARSE_VALUES))
    parsed = program_check(env, argv)
    if shown.owner is None:
        assert not parsed.error, parsed.error
    else:
        options = [word for word in shown.text.split() if word.startswith("--")]
        assert set(options) <= parsed.options, f"{owner}: takes no {sorted(set(options) - parsed.options)}"


# What points a process at the servers of a scaled-out MyRecall (bash scripts/test.sh --scale sets them).
SCALE_OUT = ("DATABASE_URL", "REDIS_URL", "CHROMA_URL", "CHROMA_TOKEN")


def test_manage_commands_shown_run_for_real(tmp_path):
    """token_create, export then import, as shown and in the order shown, in a home of their own,
    on the embedded default the README shows them for (PostgreSQL's backup is pg_dump: tests/myrecall/test_archive.py)."""
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    ran = []
    for shown in PROGRAMS:
        if shown.problem or shown.owner or shown.text.startswith("--"):
            continue
        env, argv = words(filled(shown.text, PARSE_VALUES))
        if argv[:1] == [".venv/bin/python"]:
            argv = argv[1:]
        if argv[:1] != ["manage.py"] or argv[1] not in RUN_FOR_REAL:
            continue
        # Through bash, as a user runs it: its ~ and variables expand in the sandbox's home.
        line = re.sub(r"(?<!python )manage\.py", ".venv/bin/python manage.py", shown.text, count=1)
        run = subprocess.run(
            ["bash", "-c", filled(line, PARSE_VALUES)], cwd=REPO, capture_output=True, text=True, timeout=300,
            env={**{k: v for k, v in os.environ.items() if k not in SCALE_OUT}, "HOME": str(home), "MYRECALL_DATA_DIR": str(data)},
        )
        assert run.returncode == 0, f"{shown}\n{run.stdout}\n{run.stderr}"
        ran.append(argv[1])
    assert {"token_create", "export", "import"} <= set(ran), ran
    assert (home / ".myrecall" / "myrecall.sqlite3").exists(), "the README's import made no database where it says"


@pytest.fixture(scope="module")
def frame_id(live_server_proc):
    sent = frames_post_session(server=live_server_proc, count=1, start=time.time() - 60, step_s=1)
    ocr_wait(server=live_server_proc, frame_ids=[sent[0]["frame_id"]])
    return sent[0]["frame_id"]


@pytest.mark.parametrize("shown", CURL, ids=str)
def test_curl_shown_answers(shown, live_server_proc, frame_id, tmp_path):
    """Run as shown (with the README's $TOKEN set, a screen.png to send) against a real serve."""
    server = live_server_proc
    command = filled(shown.text, placeholders(token=server.token, frame_id=frame_id))
    command = command.replace(SERVER_SHOWN, server.url)
    Image.new("RGB", (640, 360), "white").save(tmp_path / "screen.png")
    body = tmp_path / "answer"
    run = subprocess.run(
        ["bash", "-c", f"{command} -sS -o {body} -w '%{{http_code}}'"], cwd=tmp_path, capture_output=True, text=True,
        timeout=120, env={**os.environ, "TOKEN": server.token, "MYRECALL_TOKEN": server.token, "MYRECALL_URL": server.url},
    )
    answer = body.read_text() if body.exists() else ""
    assert run.returncode == 0 and run.stdout.startswith("2"), f"{shown}\nHTTP {run.stdout} {run.stderr}\n{answer[:2000]}"
