#!/usr/bin/env bash
# Sets up MyRecall and runs the whole test suite. With --scale first, runs it with DATABASE_URL,
# REDIS_URL, CHROMA_URL and CHROMA_TOKEN pointing at a real PostgreSQL, Redis and Chroma server
# started for the run and stopped after it (tests/scale.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
export MYRECALL_DATA_DIR="${MYRECALL_TEST_DATA_DIR:-$(mktemp -d)}"
if [ "${1:-}" = "--scale" ]; then
  shift
  exec .venv/bin/python -m tests.scale run -- .venv/bin/python -m pytest "$@"
fi
exec .venv/bin/python -m pytest "$@"
