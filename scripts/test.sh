#!/usr/bin/env bash
# Sets up MyRecall and runs the whole test suite (three test processes at once; two with --scale). With --scale first,
# runs it with DATABASE_URL, REDIS_URL, CHROMA_URL and CHROMA_TOKEN pointing at a real PostgreSQL,
# Redis and Chroma server started for the run and stopped after it (tests/scale.py); each test
# process has its own database on each (tests/xdist_worker.py for Redis).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
export MYRECALL_DATA_DIR="${MYRECALL_TEST_DATA_DIR:-$(mktemp -d)}"
if [ "${1:-}" = "--scale" ]; then
  shift
  exec .venv/bin/python -m tests.scale run -- .venv/bin/python -m pytest -n "${MYRECALL_TEST_WORKERS:-2}" --dist loadfile --no-loadscope-reorder "$@"
fi
# Three test processes (pytest-xdist), each file's tests in one of them: most of the slow tests
# wait on servers they start, so on a 2-core machine three at once keep both cores busy (the same
# fresh clone: 1514 tests in 15:28 with two, 13:22 with three). MYRECALL_TEST_WORKERS=0 runs them
# in this process, one by one.
exec .venv/bin/python -m pytest -n "${MYRECALL_TEST_WORKERS:-3}" --dist loadfile --no-loadscope-reorder "$@"
