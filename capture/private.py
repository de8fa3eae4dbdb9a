"""Every file and folder the capture client writes (screenshots, window titles, the privacy rules,
the pause flag) is its user's alone: folders 0700, files 0600, whatever the umask, as the server
keeps its data dir. A state dir left more open (by an older client, or made by hand) is
tightened, and the log says so once."""

import logging
import os
import stat
from pathlib import Path

logger = logging.getLogger("capture")

DIR_MODE = 0o700
FILE_MODE = 0o600


def _open_to_others(status: os.stat_result) -> bool:
    return bool(stat.S_IMODE(status.st_mode) & 0o077)


def dir_private(directory: Path, patterns: tuple[str, ...] = ("*",)) -> Path:
    """The folder, created if missing (its parents with the usual modes), readable by its user alone:
    the folder and what in it matches the patterns (what the client writes there: never more, as
    --state-dir may name a folder of the user's) are tightened if other accounts could read them."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    tightened = []
    for path in [directory, *(path for pattern in patterns for path in sorted(directory.glob(pattern)))]:
        if path.is_symlink() or not _open_to_others(path.lstat()):
            continue
        path.chmod(DIR_MODE if path.is_dir() else FILE_MODE)
        tightened.append(path)
    if tightened:
        logger.warning(
            "%d file(s) and folder(s) in %s could be read by other accounts on this machine: made them yours "
            "alone (folders 0700, files 0600)", len(tightened), directory,
        )
    return directory


def file_write(path: Path, data: bytes) -> None:
    """Write the file whole or not at all (a temporary file renamed over it), readable by its user alone."""
    tmp = path.with_name(path.name + ".part")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with open(fd, "wb") as fh:
        os.fchmod(fd, FILE_MODE)  # a .part left by a crash keeps its old mode through O_CREAT
        fh.write(data)
    os.replace(tmp, path)


def file_touch(path: Path) -> None:
    """An empty flag file, readable by its user alone."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))


def token_read(path: Path) -> str:
    """The token in the file; a file other accounts could read is made its user's alone, and said so."""
    token = path.read_text().strip()
    if _open_to_others(path.stat()):
        path.chmod(FILE_MODE)
        logger.warning("the token file %s could be read by other accounts on this machine: made it yours alone (0600)", path)
    return token
