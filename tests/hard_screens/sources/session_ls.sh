#!/bin/bash
# xterm session: ls -l, git log --oneline, ps of named workers
. "$(dirname "$0")/session_common.sh"
W=/tmp/hs/home/marta/shop-api; HOME_FAKE=/tmp/hs/home/marta
rm -rf "$W"; mkdir -p "$W"/{deploy,src,scripts,exports}; cd "$W"
for f in deploy/deployment-redis.yaml deploy/deployment-api-worker.yaml deploy/ingress-checkout.yaml src/load_config.py src/parse_order_total.rs \
  src/reconcile_ledger_entries.py src/invoice_exporter.py scripts/rotate_backups.sh scripts/warehouse_sync_cron.sh exports/orders-2024-03.csv \
  Makefile README.md config.toml Cargo.toml requirements-prod.txt; do head -c $((RANDOM % 9000 + 200)) /dev/urandom | base64 > "$f"; done
export GIT_AUTHOR_NAME="Marta K" GIT_AUTHOR_EMAIL=marta@example.org GIT_COMMITTER_NAME="Marta K" GIT_COMMITTER_EMAIL=marta@example.org
git init -q . ; git config commit.gpgsign false
for m in "initial import of shop-api" "add load_config with toml support" "parse_order_total: handle refund lines" "deploy: bump redis replicas to 3" \
  "fix flaky test in invoice_exporter" "warehouse_sync_cron: retry on 502" "reconcile_ledger_entries: skip zero amounts" "ingress: add checkout canary route" \
  "Makefile: add smoke target for prod-eu-west" "revert deployment-redis.yaml memory limit"; do echo "$m" >> CHANGES; git add -A; git commit -q -m "$m"; done
clear
run ls -l --time-style=long-iso
run ls -l --time-style=long-iso deploy src scripts
run git log --oneline -n 10
run "ps -eo pid,user,etime,rss,args --sort=args | grep -E 'api-worker|db-replica|ledger|PID' | grep -v grep"
run df -h / /tmp
run wc -l src/*.py
printf '\033[1;32m%s@%s\033[0m:\033[1;34m%s\033[0m$ ' "$P_USER" "$P_HOST" "~/shop-api"
sleep 600
