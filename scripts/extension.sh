#!/usr/bin/env bash
# Packs MyRecall's browser extension (extension/) for both browsers from its one source:
#   dist/myrecall-extension-VERSION-chromium.zip  (Chromium, Chrome, Edge, Brave: chrome://extensions, or a store)
#   dist/myrecall-extension-VERSION-firefox.xpi   (Firefox: about:addons; unsigned, so Firefox ESR/Developer
#                                                   Edition with xpinstall.signatures.required off, or signed by AMO)
# The unpacked folder extension/ loads in both as it is (its manifest has both background keys); each
# package keeps only what its browser reads: Chromium's the service worker, Firefox's the scripts and its id.
#   bash scripts/extension.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
mkdir -p "$out"
python3 - "$out" <<'PY'
import json, sys, zipfile
from pathlib import Path

source, out = Path("extension"), Path(sys.argv[1])
manifest = json.loads((source / "manifest.json").read_text())
files = sorted(p for p in source.iterdir() if p.is_file() and p.name != "manifest.json")


def pack(path: Path, browser_manifest: dict) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in [("manifest.json", json.dumps(browser_manifest, indent=2).encode())] + [(p.name, p.read_bytes()) for p in files]:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))  # the same bytes for the same source
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    print(f"{path} ({path.stat().st_size} bytes)")


chromium = {**manifest, "background": {"service_worker": manifest["background"]["service_worker"]}}
chromium.pop("browser_specific_settings", None)
firefox = {**manifest, "background": {"scripts": manifest["background"]["scripts"]}}
version = manifest["version"]
pack(out / f"myrecall-extension-{version}-chromium.zip", chromium)
pack(out / f"myrecall-extension-{version}-firefox.xpi", firefox)
PY
