"""A stop that always ends. Once a process of `serve` starts stopping, what it has in flight gets a
bounded grace; past the deadline the process exits at once, whatever its threads are doing (a
request thread waiting on an event loop that is gone, a pool's worker that Python's exit would
join forever). Nothing is lost by it: SQLite rolls back a write cut short, and a task cut short is
taken again by the next worker's sweep."""

import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import NoReturn

logger = logging.getLogger(__name__)

_deadline_lock = threading.Lock()
_deadline_armed = False


def exit_deadline(after_s: float, *, code: int = 0) -> None:
    """From now the process has after_s to end by itself; then it exits with code. The first deadline holds."""
    global _deadline_armed
    with _deadline_lock:
        if _deadline_armed:
            return
        _deadline_armed = True

    def expire() -> None:
        time.sleep(after_s)
        logger.warning("Still running %g s after the stop began: exiting now.", after_s)
        exit_now(code)

    # A daemon thread: it never holds the exit back itself, and it still runs while Python's exit waits on the others.
    threading.Thread(target=expire, name="exit-deadline", daemon=True).start()


def exit_now(code: int) -> NoReturn:
    """End the process once its work is done, without Python's finalization: freeing every object
    one by one takes tens of seconds in a process holding the models on a busy machine, and no
    deadline can interrupt it."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed, or gone with the terminal: nothing more to say
            pass
    os._exit(code)


def process_descendants(pid: int) -> list[int]:
    """Every live process below pid (children, grandchildren...), read from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended while we looked
            continue
        # The command name may hold spaces and parentheses: the fields start after the last ')'.
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found
