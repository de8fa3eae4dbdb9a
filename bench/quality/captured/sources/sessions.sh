#!/bin/bash
# The terminal sessions of the captured screens: sessions.sh NAME runs one in the current terminal
# (capture.sh runs it inside tmux in an xterm). Each prints a prompt and its command, runs the real
# program on files it makes under $WORK, and waits.
set -u
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd); WORK=${WORK:-/tmp/capq/work}; PY=${PY:-python3}
mkdir -p "$WORK"
prompt() { printf '\033[1;32m%s\033[0m:\033[1;34m%s\033[0m$ %s\n' "$1" "$2" "$3"; }
hold() { exec sleep 900; }

s_pytest() {
  local d=$WORK/billing; rm -rf "$d"; mkdir -p "$d"; cp "$SRC/test_billing.py" "$d/"
  cd "$d"; prompt dana@ledger '~/src/billing' 'pytest -v test_billing.py'
  $PY -m pytest -v -p no:cacheprovider --color=yes test_billing.py 2>&1 | cut -c1-230; hold; }

s_gitlog() {
  local d=$WORK/storefront; rm -rf "$d"; mkdir -p "$d"; cd "$d"; git init -q; git config user.email dev@shop.example; git config user.name dev
  local i=0; while IFS='|' read -r who msg; do i=$((i+1)); echo "$i" > f.txt; git add f.txt
    GIT_AUTHOR_NAME="$who" GIT_COMMITTER_NAME="$who" GIT_AUTHOR_DATE="2026-11-$(printf %02d $(( (i % 27) + 1 )))T1$((i % 10)):0$((i % 6)):00" GIT_COMMITTER_DATE="2026-11-$(printf %02d $(( (i % 27) + 1 )))T1$((i % 10)):0$((i % 6)):00" git commit -q -m "$msg"; done < "$SRC/commits_en.txt"
  prompt sam@build-02 '~/storefront' 'git log --pretty="%h %<(16)%an %ad %s" --date=short -45'
  git log --pretty="%C(yellow)%h%Creset %<(16)%an %ad %s" --date=short --color=always -45; hold; }

s_gitlog_zh() {
  local d=$WORK/shop-api; rm -rf "$d"; mkdir -p "$d"; cd "$d"; git init -q; git config user.email dev@shop.example; git config user.name dev
  local i=0; while IFS='|' read -r who msg; do i=$((i+1)); echo "$i" > f.txt; git add f.txt
    GIT_AUTHOR_NAME="$who" GIT_COMMITTER_NAME="$who" git commit -q -m "$msg"; done < "$SRC/commits_zh.txt"
  prompt wanglei@release-01 '~/shop-api' 'git log --oneline -40'
  git log --pretty="%C(yellow)%h%Creset %<(10)%an %s" --color=always -40; hold; }

s_tail() {
  mkdir -p "$WORK/log"; $PY "$SRC/make_log.py" > "$WORK/log/worker.log"
  prompt ops@shop-prod-3 '/var/log/shopd' 'tail -n 70 worker.log'
  tail -n 70 "$WORK/log/worker.log"; hold; }

s_deploy_zh() {
  prompt wanglei@release-01 '~/shop-api' './deploy.sh production'
  while IFS= read -r line; do printf '%s\n' "$line"; done < "$SRC/deploy_zh.txt"; hold; }

s_ls() {
  local d=$WORK/Downloads; rm -rf "$d"; mkdir -p "$d"
  while IFS='|' read -r size name; do truncate -s "$size" "$d/$name"; done < "$SRC/downloads.txt"
  cd "$d"; prompt dana@thinkpad '~/Downloads' 'ls -lh --time-style=+%b%d'
  ls -lh --time-style=+%b%d | cut -c1-200; hold; }

s_traceback() {
  local d=$WORK/pricing; mkdir -p "$d"; cp "$SRC/convert_prices.py" "$d/"; cd "$d"
  prompt dana@ledger '~/src/pricing' 'python3 convert_prices.py catalog-2026-12.csv'
  $PY convert_prices.py catalog-2026-12.csv; hold; }

s_man() { prompt dana@thinkpad '~' 'man find'; MANWIDTH=150 exec man find; }

"s_$1"
