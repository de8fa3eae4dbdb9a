"""MyRecall's GNOME Shell extension in both of GNOME's forms (capture.gnome_extension): GNOME 43
and 44 load a script with `imports.gi` and init(), GNOME 45 and later an ES module whose default
export is the extension. The 43 form runs for real in a headless gnome-shell in test_gnome.py
(installed with `capture gnome-extension`); no GNOME 45 or later is packaged for this machine
(Debian 12), so the module form is checked here as far as a JavaScript engine can: it parses as a
module, with the same body as the form that runs."""

import json
import os
import subprocess
import sys

import pytest

from capture.gnome_extension import SOURCE, UUID, ExtensionError, extension_files, install
from tests.server import REPO


def node_check(tmp_path, name: str, text: str) -> subprocess.CompletedProcess:
    path = tmp_path / name
    path.write_text(text)
    return subprocess.run(["node", "--check", str(path)], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("version", [45, 46, 48, 52])
def test_gnome_45_and_later_get_an_es_module_whose_default_export_is_the_extension(tmp_path, version):
    files = extension_files(version)
    script = files["extension.js"]
    assert "import Gio from 'gi://Gio';" in script and script.rstrip().endswith("export default FocusService;")
    assert "= imports.gi;" not in script and "function init()" not in script
    assert (SOURCE / "focus.js").read_text() in script
    metadata = json.loads(files["metadata.json"])
    assert metadata["uuid"] == UUID and str(version) in metadata["shell-version"] and "44" not in metadata["shell-version"]
    checked = node_check(tmp_path, "extension.mjs", script)
    assert checked.returncode == 0, checked.stderr
    broken = node_check(tmp_path, "broken.mjs", script.replace("export default FocusService;", "export default FocusService"
                                                                                               " FocusService;"))
    assert broken.returncode != 0  # the check does read it


def test_gnome_43_and_44_get_a_script_with_init(tmp_path):
    files = extension_files(44)
    script = files["extension.js"]
    assert script.startswith("const { Gio, Meta, Shell } = imports.gi;") and "function init()" in script and "import " not in script
    assert json.loads(files["metadata.json"])["shell-version"] == ["43", "44"]
    checked = node_check(tmp_path, "extension.cjs", script)
    assert checked.returncode == 0, checked.stderr


def test_an_older_gnome_is_refused_and_install_writes_the_extensions_folder(tmp_path):
    with pytest.raises(ExtensionError, match="GNOME Shell 42 is older"):
        extension_files(42)
    folder = install(tmp_path / "extensions", 46)
    assert folder == tmp_path / "extensions" / UUID and sorted(p.name for p in folder.iterdir()) == ["extension.js", "metadata.json"]


def test_the_command_says_so_where_there_is_no_gnome_shell(tmp_path):
    done = subprocess.run([sys.executable, "-m", "capture", "gnome-extension"], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "PATH": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}, timeout=60)
    assert done.returncode == 2 and "cannot run gnome-shell --version" in done.stderr and "GNOME session" in done.stderr, done
    assert not (tmp_path / "data" / "gnome-shell").exists()  # nothing written
