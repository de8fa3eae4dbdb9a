#!/bin/bash
# Re-captures the screens of the captured quality set from real programs on a virtual X display
# (Debian bookworm): xterm running tmux (bash sessions, git, pytest, tail, htop, man, vim),
# Chromium windows on local pages, LibreOffice Writer and Calc. Writes NAME.webp (lossless) and
# text/NAME.txt (what the screen shows, for the label check: tmux's own copy of a terminal, the
# text of a page or a document) beside this script.
# Needs: xvfb xterm tmux vim htop git man-db chromium libreoffice-writer libreoffice-calc imagemagick
#        webp xdotool x11-utils fonts-dejavu fonts-noto-cjk, and python3 with pytest (PY=, default the repo's .venv)
# Usage: ./capture.sh            -> every screen
#        ./capture.sh NAME ...   -> only these screens (names as in manifest.json)
set -u
OUT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd); SRC=$OUT/sources; WORK=/tmp/capq; PAGES=$WORK/pages
REPO=$(cd "$OUT/../../.." && pwd); export PY=${PY:-$REPO/.venv/bin/python}; export WORK=$WORK/work
mkdir -p "$WORK" "$PAGES" "$OUT/text" /tmp/capq/png
DNUM=${DNUM:-83}; export DISPLAY=:$DNUM
XPID=""; PGS=(); WPGS=()
T="tmux -L capq -f /dev/null"
CHROME_FLAGS="--no-sandbox --disable-gpu --no-first-run --disable-background-networking --disable-component-update --disable-sync \
 --no-default-browser-check --password-store=basic --test-type --disable-features=Translate,MediaRouter --lang=en-US"

xstart() {  # xstart W H
  xstop; for _ in $(seq 50); do [ -e /tmp/.X$DNUM-lock ] || break; sleep 0.1; done
  Xvfb :$DNUM -screen 0 "${1}x${2}x24" -dpi 96 -nolisten tcp >"$WORK/xvfb.log" 2>&1 & XPID=$!
  for _ in $(seq 100); do kill -0 $XPID 2>/dev/null && xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done; sleep 0.3
}
xstop() { [ -n "$XPID" ] && kill "$XPID" 2>/dev/null && wait "$XPID" 2>/dev/null; XPID=""; }
launch() { setsid "$@" >>"$WORK/launch.log" 2>&1 & PGS+=($!); }
killall_mine() { $T kill-server 2>/dev/null; for p in "${PGS[@]}"; do kill -- -"$p" 2>/dev/null; done; sleep 0.5
  for p in "${PGS[@]}"; do kill -9 -- -"$p" 2>/dev/null; done; PGS=(); }
shot() {  # shot NAME -> NAME.webp, lossless
  import -window root "/tmp/capq/png/$1.png" && cwebp -quiet -lossless -z 9 "/tmp/capq/png/$1.png" -o "$OUT/$1.webp" \
    && echo "shot $1 $(identify -format '%wx%h' "/tmp/capq/png/$1.png") $(stat -c %s "$OUT/$1.webp") bytes"
}
html_text() { python3 -c 'import html.parser,sys
class P(html.parser.HTMLParser):
    skip=0; out=[]
    def handle_starttag(s,t,a): s.skip+=t in ("style","script")
    def handle_endtag(s,t): s.skip-=t in ("style","script")
    def handle_data(s,d):
        if not s.skip and d.strip(): s.out.append(d.strip())
p=P(); p.feed(open(sys.argv[1],encoding="utf-8").read()); print("\n".join(p.out))' "$1"; }

# term NAME W H FONT_PT BG FG COMMAND...: a maximised xterm running tmux (no status line) running COMMAND
term() {
  local name=$1 w=$2 h=$3 pt=$4 bg=$5 fg=$6; shift 6
  xstart "$w" "$h"; $T kill-server 2>/dev/null
  launch xterm -maximized -fa 'DejaVu Sans Mono' -fs "$pt" -tn xterm-256color -bg "$bg" -fg "$fg" \
    -e $T new-session -s cap "$*"
  sleep 1; $T set -g status off >/dev/null 2>&1; $T set -g default-terminal screen-256color >/dev/null 2>&1
  sleep "${WAIT:-4}"; $T capture-pane -p -t cap > "$OUT/text/$name.txt"; shot "$name"; killall_mine
}
# page NAME W H FILE [chromium flags]: a Chromium window on a local page (app window: no tab strip)
page() {
  local name=$1 w=$2 h=$3 file=$PAGES/$4; shift 4
  xstart "$w" "$h"; local prof; prof=$(mktemp -d "$WORK/chrome.XXXX")
  launch chromium $CHROME_FLAGS --user-data-dir="$prof" --window-position=0,0 --window-size="$w,$h" --app="file://$file" "$@"
  sleep 7; html_text "$file" > "$OUT/text/$name.txt"; shot "$name"; killall_mine; rm -rf "$prof"
}
# office NAME W H FILE TEXTFILE: LibreOffice on a document, its window made the screen's size
office() {
  local name=$1 w=$2 h=$3 file=$4 text=$5
  xstart "$w" "$h"; local prof=$WORK/lo-$name; rm -rf "$prof" "$(dirname "$file")/.~lock.$(basename "$file")#"
  local filter=(); [ "${file##*.}" = fods ] && filter=(--calc "--infilter=OpenDocument Spreadsheet Flat XML")
  launch libreoffice --norestore --nologo -env:UserInstallation=file://$prof "${filter[@]}" "$file"
  local wid=""; for _ in $(seq 120); do wid=$(xdotool search --name " - LibreOffice (Writer|Calc)" 2>/dev/null | tail -1); [ -n "$wid" ] && break; sleep 1; done
  sleep 4; xdotool windowsize "$wid" "$w" "$h" windowmove "$wid" 0 0; sleep 3
  cp "$text" "$OUT/text/$name.txt"; shot "$name"; killall_mine
}
start_workers() {  # long-lived processes with telling names, for htop
  for n in photo-backup-nas mail-indexer plex-transcoder syncthing-relay home-assistant-core zigbee2mqtt pihole-FTL unifi-controller; do
    setsid bash -c "exec -a $n sleep 900" & WPGS+=($!); done; sleep 0.3
}
stop_workers() { for p in "${WPGS[@]}"; do kill -- -"$p" 2>/dev/null; done; WPGS=(); }

S=$SRC/sessions.sh; V="vim -N -u $SRC/vimrc"
# ---------------------------------------------------------------- terminals
c_term-pytest-dst()   { WAIT=8 term term-pytest-dst 1920 1080 9 '#1d1f21' '#c5c8c6' "$S pytest"; }
c_term-gitlog()       { term term-gitlog 1920 1080 9 '#fdf6e3' '#3b3b3b' "$S gitlog"; }
c_term-gitlog-zh()    { term term-gitlog-zh 1920 1080 10 '#2b2b2b' '#dcdccc' "$S gitlog_zh"; }
c_term-tail-error()   { term term-tail-error 1920 1080 9 '#0c0c0c' '#cccccc' "$S tail"; }
c_term-deploy-zh()    { term term-deploy-zh 1280 800 10 '#1e1e2e' '#cdd6f4' "$S deploy_zh"; }
c_term-ls-downloads() { term term-ls-downloads 1280 800 10 '#ffffff' '#222222' "$S ls"; }
c_term-traceback()    { term term-traceback 1920 1080 10 '#282a36' '#f8f8f2' "$S traceback"; }
c_term-man-find()     { term term-man-find 1920 1080 9 '#ffffff' '#111111' "$S man"; }
c_term-htop() {
  start_workers; mkdir -p "$WORK/htoprc/htop"
  printf 'fields=0 48 17 18 38 39 40 2 46 47 49 1\nsort_key=46\nsort_direction=-1\nhide_kernel_threads=1\nhide_userland_threads=1\nshow_program_path=0\ncolor_scheme=0\n' > "$WORK/htoprc/htop/htoprc"
  term term-htop 1920 1080 9 black '#d0d0d0' "XDG_CONFIG_HOME=$WORK/htoprc htop -d 50 -p $(IFS=,; echo "${WPGS[*]}")"; stop_workers; }
# ---------------------------------------------------------------- editors
# vim NAME SIZE... SOURCE SHOWN_AS VIM_OPTIONS: vim on a copy of SOURCE named SHOWN_AS (its own folder), so the
# status line shows a file name a person would have, not this repository's path
vimt() { local name=$1 w=$2 h=$3 pt=$4 bg=$5 fg=$6 src=$7 as=$8 opts=$9; local d=$WORK/edit/$name; rm -rf "$d"; mkdir -p "$d"
  cp "$SRC/$src" "$d/$as"; term "$name" "$w" "$h" "$pt" "$bg" "$fg" "cd $d && $V $opts $as"; }
c_vim-nginx()      { vimt vim-nginx 1920 1080 10 black '#ffffff' nginx.conf shop.conf "-c 'colorscheme desert'"; }
c_vim-split-bill() { vimt vim-split-bill 1920 1080 10 '#ffffff' '#000000' split_bill.py split_bill.py "-c 'set background=light'"; }
c_vim-ci-yaml()    { vimt vim-ci-yaml 1920 1080 10 black '#ffffff' nightly.yml nightly.yml "-c 'colorscheme elflord'"; }
c_vim-zh-camping() { LANG=C.UTF-8 vimt vim-zh-camping 1920 1080 11 '#fbfbf8' '#2e3436' camping.md luying.md ""; }
c_vim-zh-tax()     { LANG=C.UTF-8 vimt vim-zh-tax 1920 1080 10 black '#ffffff' tax.py geshui.py "-c 'colorscheme desert'"; }
c_vim-ssh-config() { vimt vim-ssh-config 1280 800 10 '#ffffff' '#000000' ssh_config config "-c 'set background=light'"; }
# ---------------------------------------------------------------- Chromium pages
c_mail-inbox-en()    { page mail-inbox-en 1920 1080 mail-inbox-en.html; }
c_mail-inbox-dark()  { page mail-inbox-dark 1920 1080 mail-inbox-dark.html; }
c_mail-inbox-zh()    { page mail-inbox-zh 1920 1080 mail-inbox-zh.html; }
c_chat-slack-dark()  { page chat-slack-dark 1920 1080 chat-slack-dark.html; }
c_chat-wechat-zh()   { page chat-wechat-zh 1280 800 chat-wechat-zh.html; }
c_chat-mixed-dark()  { page chat-mixed-dark 1920 1080 chat-mixed-dark.html; }
c_mail-open-en()     { page mail-open-en 1920 1080 mail-open-en.html; }
c_mail-open-zh()     { page mail-open-zh 1920 1080 mail-open-zh.html; }
c_web-news-zh()      { page web-news-zh 1920 1080 web-news-zh.html; }
c_web-docs-2fa()     { page web-docs-2fa 1920 1080 web-docs-2fa.html; }
c_web-recipe-zh()    { page web-recipe-zh 1920 1080 web-recipe-zh.html; }
c_web-shop-desk()    { page web-shop-desk 1920 1080 web-shop-desk.html; }
c_web-weather()      { page web-weather 1280 800 web-weather.html; }
c_web-bank-zh()      { page web-bank-zh 1920 1080 web-bank-zh.html; }
c_web-github-issue() { page web-github-issue 1920 1080 web-github-issue.html; }
c_web-forum-zh()     { page web-forum-zh 1920 1080 web-forum-zh.html; }
c_web-calendar()     { page web-calendar 1280 800 web-calendar.html; }
c_web-hotel()        { page web-hotel 1920 1080 web-hotel.html; }
c_web-train-zh()     { page web-train-zh 1920 1080 web-train-zh.html; }
c_web-docker-zh()    { page web-docker-zh 1920 1080 web-docker-zh.html; }
c_web-jira-board()   { page web-jira-board 1920 1080 web-jira-board.html; }
c_web-video-zh()     { page web-video-zh 1920 1080 web-video-zh.html; }
c_web-reddit-dark()  { page web-reddit-dark 1920 1080 web-reddit-dark.html; }
c_web-food-order-zh() { page web-food-order-zh 1280 800 web-food-order-zh.html; }
c_web-pharmacy()     { page web-pharmacy 1280 800 web-pharmacy.html; }
c_web-settings-zh()  { page web-settings-zh 1920 1080 web-settings-zh.html; }
# ---------------------------------------------------------------- LibreOffice
c_doc-minutes()  { html_text "$PAGES/minutes.html" > "$PAGES/minutes.txt"; office doc-minutes 1920 1080 "$PAGES/minutes.html" "$PAGES/minutes.txt"; }
c_doc-nianhui-zh() { html_text "$PAGES/nianhui.html" > "$PAGES/nianhui.txt"; office doc-nianhui-zh 1920 1080 "$PAGES/nianhui.html" "$PAGES/nianhui.txt"; }
c_calc-budget()  { office calc-budget 1920 1080 "$PAGES/household-budget.fods" "$PAGES/household-budget.txt"; }
c_calc-expense-zh() { office calc-expense-zh 1920 1080 "$PAGES/chailv-baoxiao.fods" "$PAGES/chailv-baoxiao.txt"; }

ALL=$(declare -F | awk '{print $3}' | grep '^c_' | sed 's/^c_//')
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  trap 'killall_mine; stop_workers; xstop' EXIT
  python3 "$SRC/gen_pages.py" "$PAGES" >/dev/null
  for f in ${@:-$ALL}; do "c_$f"; done
fi
