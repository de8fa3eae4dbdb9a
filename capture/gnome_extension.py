"""MyRecall's GNOME Shell extension, written out for the GNOME Shell that runs here: its body
(capture/gnome-extension/focus.js) wrapped as GNOME 43 and 44 load extensions (`imports.gi`, an
init() that returns the extension) or as GNOME 45 and later do (an ES module whose default export
is the extension's class). `bash scripts/capture.sh gnome-extension` installs it for the user."""

import json
import re
import subprocess
from pathlib import Path

UUID = "myrecall-focus@myrecall.local"
SOURCE = Path(__file__).resolve().parent / "gnome-extension"
MODULES_FROM = 45  # the first GNOME Shell that loads extensions as ES modules
NEWEST_KNOWN = 49  # metadata lists the versions up to this one; a newer GNOME needs it raised, or extension checks off
LEGACY = ("const { Gio, Meta, Shell } = imports.gi;\n\n", "\nfunction init() {\n    return new FocusService();\n}\n")
MODULE = ("import Gio from 'gi://Gio';\nimport Meta from 'gi://Meta';\nimport Shell from 'gi://Shell';\n\n",
          "\nexport default FocusService;\n")


class ExtensionError(Exception):
    pass


def shell_version() -> int:
    """The major version of the GNOME Shell installed here ("GNOME Shell 46.0" -> 46)."""
    try:
        said = subprocess.run(["gnome-shell", "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ExtensionError(f"cannot run gnome-shell --version ({exc}): is this a GNOME session?") from exc
    if not (match := re.search(r"GNOME Shell (\d+)", said)):
        raise ExtensionError(f"gnome-shell --version said {said.strip()!r}, not a version")
    return int(match[1])


def extension_files(version: int) -> dict[str, str]:
    """extension.js and metadata.json for GNOME Shell `version`."""
    if version < 43:
        raise ExtensionError(f"GNOME Shell {version} is older than the extension knows (43 and later)")
    head, tail = MODULE if version >= MODULES_FROM else LEGACY
    metadata = json.loads((SOURCE / "metadata.json").read_text())
    versions = range(MODULES_FROM, max(NEWEST_KNOWN, version) + 1) if version >= MODULES_FROM else (43, 44)
    metadata["shell-version"] = [str(v) for v in versions]
    return {"extension.js": head + (SOURCE / "focus.js").read_text() + tail, "metadata.json": json.dumps(metadata, indent=2) + "\n"}


def install(extensions_dir: Path, version: int) -> Path:
    """Write the extension into extensions_dir (~/.local/share/gnome-shell/extensions): its folder."""
    folder = extensions_dir / UUID
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in extension_files(version).items():
        (folder / name).write_text(text)
    return folder
