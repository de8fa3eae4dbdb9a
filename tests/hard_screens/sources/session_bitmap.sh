#!/bin/bash
# xterm -fn 6x13 session: build log style output, env, cat of a config
. "$(dirname "$0")/session_common.sh"
P_USER=deploy; P_HOST=ci-runner-12; HOME_FAKE=/tmp/hs/home/deploy
mkdir -p /tmp/hs/home/deploy/pipeline && cd /tmp/hs/home/deploy/pipeline
cat > config.toml <<'T'
[server]
host = "0.0.0.0"
port = 8080
workers = 4
[database]
url = "postgres://app@db-replica-eu-2:5432/orders"
pool_size = 20
statement_timeout_ms = 15000
[cache]
backend = "redis"
url = "redis://redis-cache-01:6379/2"
ttl_seconds = 600
[features]
invoice_export_v2 = true
warehouse_sync_batch = 250
T
cat > build.log <<'T'
[12:04:11] Step 1/9 : FROM python:3.11-slim-bookworm
[12:04:12] Step 2/9 : COPY requirements-prod.txt /srv/app/
[12:04:58] Step 3/9 : RUN pip install --no-cache-dir -r requirements-prod.txt
[12:05:40] Successfully installed gunicorn-21.2.0 psycopg-3.1.18 redis-5.0.3 tomli-2.0.1
[12:05:41] Step 4/9 : COPY src/ /srv/app/src/
[12:05:43] Step 5/9 : RUN python -m compileall -q src
[12:05:47] Step 6/9 : ENV APP_CONFIG=/srv/app/config.toml
[12:05:47] Step 7/9 : EXPOSE 8080
[12:05:48] Step 8/9 : USER appuser
[12:05:48] Step 9/9 : CMD ["gunicorn", "src.wsgi:app", "--workers", "4"]
[12:05:52] Successfully tagged registry.internal/shop-api:2.19.0-rc3
[12:06:10] pushing layer sha256:9f3ac41d7be2 ... done
[12:06:31] tests: 412 passed, 3 skipped, 1 xfailed in 61.22s
[12:06:31] WARNING test_load_config_missing_file: ResourceWarning unclosed file
[12:06:33] coverage: 87.4% (threshold 85%)
T
clear
run cat config.toml
run tail -n 15 build.log
run "env | grep -E '^(APP|CI)_' | sort"
run uname -srm
run "free -m"
printf '\033[1;32m%s@%s\033[0m:\033[1;34m%s\033[0m$ ' "$P_USER" "$P_HOST" "~/pipeline"
sleep 600
