#!/usr/bin/env bash
# Sets up MyRecall and runs it: web server and OCR worker on 127.0.0.1:${PORT:-8000}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python manage.py serve --port "${PORT:-8000}" "$@"
