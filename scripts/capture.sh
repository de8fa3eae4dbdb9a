#!/usr/bin/env bash
# Records this Linux desktop (X11, or sway, another wlroots compositor, GNOME or KDE Plasma on Wayland) into a MyRecall server: sets up
# capture/.venv with the client's own short list of packages (not the server's), then runs
# `python -m capture` with your arguments.
# The token comes from a file only you can read, or MYRECALL_TOKEN, never the command line (`ps`
# shows a command line to every account on the machine):
#   bash scripts/capture.sh --url http://127.0.0.1:8000 --token-file ~/.myrecall-token
#   bash scripts/capture.sh pause | resume | status
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x capture/.venv/bin/python ]; then
  echo "[capture] creating capture/.venv"
  python3 -m venv capture/.venv
fi
stamp=capture/.venv/.requirements.sha256
want=$(sha256sum capture/requirements.txt | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "[capture] installing the client's packages (pinned in capture/requirements.txt)"
  capture/.venv/bin/python -m pip install -q -r capture/requirements.txt
  echo "$want" > "$stamp"
fi
exec capture/.venv/bin/python -m capture "$@"
