#!/usr/bin/env bash
# Installs everything MyRecall needs into .venv at the repo root: the Debian
# packages for OCR and fonts (when missing), then the pinned Python packages.
set -euo pipefail
cd "$(dirname "$0")/.."

# OCR engines and their languages, and fonts (CJK for Chinese screens).
DEB_PACKAGES=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim libtesseract-dev fonts-noto-cjk fonts-dejavu-core)
# The test suite drives Debian's Chromium (no browser download) and runs a throwaway Redis,
# and PostgreSQL 15 with pg_trgm (contrib) for `scripts/test.sh --scale` (tests/scale.py).
# The capture client's tests record a Tk window on a virtual X screen.
[ "${1:-}" = "--test" ] && DEB_PACKAGES+=(chromium redis-server postgresql postgresql-contrib xvfb xauth xdotool libtk8.6)
missing=()
for pkg in "${DEB_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
# Node and npm install the pinned front-end packages; keep any that is already there.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv"
  python3.11 -m venv .venv 2>/dev/null || python3 -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt capture/requirements.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "[setup] installing Python packages (pinned in requirements.txt)"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r requirements.txt
  echo "$want" > "$stamp"
fi
if [ "$(cat node_modules/.package-lock.sha256 2>/dev/null)" != "$(sha256sum package-lock.json | cut -d' ' -f1)" ]; then
  echo "[setup] installing front-end packages (pinned in package-lock.json)"
  npm ci --no-audit --no-fund --loglevel=error
  sha256sum package-lock.json | cut -d' ' -f1 > node_modules/.package-lock.sha256
fi
# The Pi agent (agent mode of the chat) needs Node 20.6 or newer.
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 6) ? 0 : 1)'; then
  echo "[setup] warning: Node $(node --version) is older than 20.6: the chat's agent mode (Pi) will not start; summary mode works"
fi
echo "[setup] done"
