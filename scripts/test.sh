#!/usr/bin/env bash
# Sets up MyRecall and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
export MYRECALL_DATA_DIR="${MYRECALL_TEST_DATA_DIR:-$(mktemp -d)}"
exec .venv/bin/python -m pytest "$@"
