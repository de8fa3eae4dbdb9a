#!/bin/bash
# Re-creates the hard OCR screenshots on a virtual X display (Debian bookworm).
# Needs: xvfb xterm xfce4-terminal htop tmux vim gcc git libreoffice-calc mousepad chromium
#        imagemagick webp xdotool x11-utils fonts-dejavu fonts-noto-cjk lomiri-wallpapers(-16.04) (for the photo)
# Usage: ./capture.sh            -> all screens
#        ./capture.sh NAME ...   -> only the named screen functions (see list at the bottom)
set -u
OUT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd); SRC=$OUT/sources; WORK=/tmp/hs; PNG=$WORK/png
mkdir -p "$PNG" "$WORK"
DNUM=${DNUM:-77}; export DISPLAY=:$DNUM
XPID=""; PGS=(); WPGS=()
CHROME_FLAGS="--no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync \
 --no-default-browser-check --password-store=basic --test-type --disable-features=Translate,MediaRouter --lang=en-US"

xstart() {  # xstart W H
  xstop; for _ in $(seq 50); do [ -e /tmp/.X$DNUM-lock ] || break; sleep 0.1; done
  Xvfb :$DNUM -screen 0 "${1}x${2}x24" -dpi 96 -nolisten tcp >"$WORK/xvfb.log" 2>&1 & XPID=$!
  for _ in $(seq 100); do kill -0 $XPID 2>/dev/null && xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done; sleep 0.5
  xsetroot -solid '#3b4252' 2>/dev/null || true
}
xstop() { [ -n "$XPID" ] && kill "$XPID" 2>/dev/null && wait "$XPID" 2>/dev/null; XPID=""; }
launch() { setsid "$@" >>"$WORK/launch.log" 2>&1 & PGS+=($!); }   # own process group -> easy to kill
stop_workers() { for p in "${WPGS[@]}"; do kill -- -"$p" 2>/dev/null; done; WPGS=(); }
killall_mine() { for p in "${PGS[@]}"; do kill -- -"$p" 2>/dev/null; done; sleep 0.5
  for p in "${PGS[@]}"; do kill -9 -- -"$p" 2>/dev/null; done; PGS=(); }
shot() {  # shot NAME  -> $OUT/NAME.webp (lossless; a screen of a photo at quality 95: lossless takes 2.35 MB)
  local how="-lossless -z 9"
  case "$1" in *photo*) how="-q 95 -m 6" ;; esac
  import -window root "$PNG/$1.png" && cwebp -quiet $how "$PNG/$1.png" -o "$OUT/$1.webp" && echo "shot $1 $(identify -format '%wx%h' "$PNG/$1.png")"
}
chrome() {  # chrome W H SCALE URL [extra flags]  (non-headless window on the Xvfb display)
  local w=$1 h=$2 s=$3 url=$4; shift 4
  local prof; prof=$(mktemp -d "$WORK/chrome.XXXX")
  local dw dh; dw=$(awk "BEGIN{printf \"%d\", $w/$s}"); dh=$(awk "BEGIN{printf \"%d\", $h/$s}")   # window size is in DIPs
  launch chromium $CHROME_FLAGS --user-data-dir="$prof" --window-position=0,0 --window-size="$dw,$dh" --force-device-scale-factor="$s" "$@" "$url"
}

start_workers() {  # long-lived processes with distinctive names (for ps / htop)
  for n in api-worker-01 api-worker-02 api-worker-03 db-replica-eu-2 ledger-sync-daemon invoice-export-runner warehouse-etl-nightly redis-sentinel-b; do
    setsid bash -c "exec -a $n sleep 1500" & WPGS+=($!); done
  sleep 0.5
}

# ------------------------------------------------------------------ terminals
s_xterm_ls() { xstart 1920 1080
  launch xterm -geometry 318x97+0+0 -fa 'DejaVu Sans Mono' -fs 7 -bg '#1d1f21' -fg '#c5c8c6' -b 2 -e "$SRC/session_ls.sh"
  sleep 5; shot terminal-xterm-ls; killall_mine; }
s_xterm_bitmap() { xstart 1920 1080
  launch xterm -geometry 148x80+0+0 -fn 6x13 -bg black -fg '#b8b8b8' -e "$SRC/session_bitmap.sh"
  launch xterm -geometry 160x40+900+520 -fn 6x13 -bg '#0c1a2a' -fg '#9fc5e8' -e bash -c "top -b -n 1 -w 160 | head -n 38; sleep 600"
  sleep 4; shot terminal-xterm-bitmap-6x13; killall_mine; }
s_xfce_gcc() { xstart 1920 1080
  mkdir -p "$WORK/xdg/xfce4/terminal"
  printf '[Configuration]\nColorForeground=#2e3436\nColorBackground=#fbfbf8\nColorCursor=#2e3436\nFontName=DejaVu Sans Mono 8\nMiscShowUnsafePasteDialog=FALSE\nScrollingBar=TERMINAL_SCROLLBAR_RIGHT\n' > "$WORK/xdg/xfce4/terminal/terminalrc"
  XDG_CONFIG_HOME=$WORK/xdg launch dbus-run-session xfce4-terminal --disable-server --geometry=300x86+0+0 --title "priya@invoice-dev: ~/invoice-tools" -x "$SRC/session_gcc.sh"
  sleep 5; shot terminal-xfce4-gcc-errors; killall_mine; }
s_htop() { xstart 1920 1080
  mkdir -p "$WORK/htoprc/htop"; printf 'fields=0 48 17 18 38 39 40 2 46 47 49 1\nsort_key=46\nsort_direction=-1\nhide_kernel_threads=1\nhide_userland_threads=1\nshow_program_path=0\nhighlight_base_name=1\ncolor_scheme=0\ntree_view=0\nheader_margin=1\nscreen_tabs=1\n' > "$WORK/htoprc/htop/htoprc"
  XDG_CONFIG_HOME=$WORK/htoprc launch xterm -geometry 318x97+0+0 -fa 'DejaVu Sans Mono' -fs 7 -bg black -fg '#d0d0d0' -e htop -d 20 -p "$(IFS=,; echo "${WPGS[*]}"),$XPID"
  sleep 5; shot terminal-htop-workers; killall_mine; }
s_tmux() { xstart 1920 1080
  local T="tmux -L hs -f /dev/null"
  $T kill-server 2>/dev/null
  launch xterm -geometry 318x97+0+0 -fa 'DejaVu Sans Mono' -fs 7 -bg '#121212' -fg '#cccccc' -e $T new-session -s ops "bash $SRC/pane_logs.sh"
  sleep 2
  $T split-window -h -t ops "bash $SRC/pane_tail.sh"
  $T split-window -v -t ops:0.0 "bash -c 'top -b -d 2 -w 150 | grep -v \"^\$\"' "
  $T split-window -v -t ops:0.2 "bash $SRC/pane_status.sh"
  $T set -t ops status-right 'db-replica-eu-2 | 14:03 28-Mar-24' >/dev/null
  sleep 5; shot terminal-tmux-four-panes; $T kill-server; killall_mine; }
s_vim() { xstart 1920 1080
  launch xterm -geometry 318x97+0+0 -fa 'DejaVu Sans Mono' -fs 8 -tn xterm-256color -bg black -e vim -N -u "$SRC/vimrc" -c 'colorscheme desert' "$SRC/load_config.py"
  sleep 4; shot editor-vim-desert-python; killall_mine
  xstart 1920 1080
  launch xterm -geometry 318x97+0+0 -fa 'DejaVu Sans Mono' -fs 7 -tn xterm-256color -bg black -e vim -N -u "$SRC/vimrc" -c 'colorscheme elflord' -O "$SRC/parse_order_total.rs" "$SRC/parse_order_total.c"
  sleep 4; shot editor-vim-elflord-split; killall_mine; }
s_mousepad() { xstart 1920 1080
  mkdir -p "$WORK/mpx"
  XDG_CONFIG_HOME=$WORK/mpx launch dbus-run-session bash -c "gsettings set org.xfce.mousepad.preferences.view use-default-font false; gsettings set org.xfce.mousepad.preferences.view font-name 'DejaVu Sans Mono 8'; gsettings set org.xfce.mousepad.preferences.view show-line-numbers true; gsettings set org.xfce.mousepad.state.window width 1920; gsettings set org.xfce.mousepad.state.window height 1080; exec mousepad '$SRC/release_notes.txt'"
  sleep 6; local wid; wid=$(xdotool search --class mousepad | tail -1); xdotool windowsize "$wid" 1920 1080 windowmove "$wid" 0 0; sleep 1
  shot editor-mousepad-release-notes; killall_mine; xstart 1920 1080
  XDG_CONFIG_HOME=$WORK/mpx launch dbus-run-session mousepad "$SRC/mixed_zh_notes.txt"
  sleep 5; wid=$(xdotool search --class mousepad | tail -1); xdotool windowsize "$wid" 1400 900 windowmove "$wid" 0 0; sleep 1
  shot mixed_chinese-editor-mousepad-notes; killall_mine; }
s_xfce_zh() { xstart 1920 1080
  mkdir -p "$WORK/xdg2/xfce4/terminal"
  printf '[Configuration]\nColorForeground=#dcdccc\nColorBackground=#2b2b2b\nFontName=Noto Sans Mono CJK SC 9\nMiscShowUnsafePasteDialog=FALSE\n' > "$WORK/xdg2/xfce4/terminal/terminalrc"
  XDG_CONFIG_HOME=$WORK/xdg2 LANG=C.UTF-8 launch dbus-run-session xfce4-terminal --disable-server --geometry=250x64+0+0 --title "wanglei@release-01: ~/shop-api" -x "$SRC/session_zh.sh"
  sleep 5; shot mixed_chinese-terminal-xfce-git; killall_mine; }
s_calc() { xstart 1920 1080
  local prof=$WORK/lo-profile; rm -rf "$prof"
  launch libreoffice --calc --norestore --nologo -env:UserInstallation=file://$prof "$SRC/orders.csv"
  for _ in $(seq 60); do xdotool search --name 'Text Import' >/dev/null 2>&1 && break; sleep 1; done
  sleep 1; local dlg; dlg=$(xdotool search --name 'Text Import' | head -1); xdotool windowfocus --sync "$dlg"; xdotool key --window "$dlg" Return; sleep 1; xdotool key Return; sleep 6
  local wid; wid=$(xdotool search --name 'orders.csv' | head -1); xdotool windowsize "$wid" 1920 1080 windowmove "$wid" 0 0; sleep 2
  # 9 pt for the whole sheet, spell-check underlines off, optimal column widths
  xdotool key shift+F7; sleep 1; xdotool key ctrl+a; sleep 0.5
  xdotool mousemove 215 60 click --repeat 3 1; sleep 0.5; xdotool type 9; xdotool key Return; sleep 1
  xdotool mousemove 104 115 click --repeat 2 1; sleep 1
  xdotool key ctrl+Home; sleep 1
  shot dense_app-calc-orders; killall_mine; }

# ------------------------------------------------------------------ chromium pages
cpage() {  # cpage NAME W H SCALE URL WAIT [flags]  -> one screen
  local name=$1 w=$2 h=$3 sc=$4 url=$5 wt=$6; shift 6
  xstart "$w" "$h"; chrome "$w" "$h" "$sc" "$url" "$@"; sleep "$wt"; shot "$name"; killall_mine; }
s_chrome_en() {
  cpage dark-chat-relay 1920 1080 1 "file://$SRC/chat_dark.html" 7 --app="file://$SRC/chat_dark.html"
  cpage dense_app-webmail-inbox-67pct 1920 1080 0.67 "file://$SRC/webmail.html" 7
  cpage dense_app-settings-lowcontrast 1920 1080 1 "file://$SRC/settings_lowcontrast.html" 7 --app="file://$SRC/settings_lowcontrast.html"
  cpage dark-photo-overlay-trailhead 1920 1080 1 "file://$SRC/photo_overlay.html" 8 --kiosk
  cpage dark-dashboard-alerts 1920 1080 1 "file://$SRC/dashboard_dark.html" 7 --kiosk
}
s_chrome_zh() {
  cpage mixed_chinese-news-list 1920 1080 1 "file://$SRC/zh_news.html" 7
  cpage mixed_chinese-chat-dark 1920 1080 1 "file://$SRC/zh_chat_dark.html" 7 --app="file://$SRC/zh_chat_dark.html"
  cpage mixed_chinese-inbox 1920 1080 0.8 "file://$SRC/zh_inbox.html" 7
}
s_docs() {
  cpage documentation-libffi-closure-api 1920 1080 1 "file:///usr/share/doc/libffi8/html/The-Closure-API.html" 7
  cpage documentation-base-passwd-users-groups 1920 1080 1 "file:///usr/share/doc/base-passwd/users-and-groups.html" 7
  cpage documentation-zh-config-docs 1920 1080 1 "file://$SRC/zh_docs.html" 7
}
s_hidpi() {
  cpage dark-hidpi-4k-dashboard-2x 3840 2160 2 "file://$SRC/dashboard_dark.html" 9 --kiosk
  cpage dense_app-hidpi-1440p-webmail-1.5x 2560 1440 1.5 "file://$SRC/webmail.html" 8
  xstart 3840 2160
  launch xterm -geometry 318x97+0+0 -fa 'DejaVu Sans Mono' -fs 14 -bg '#1d1f21' -fg '#c5c8c6' -e "$SRC/session_bitmap.sh"
  sleep 4; shot terminal-hidpi-4k-xterm-2x; killall_mine
  xstart 2560 1440
  launch xterm -geometry 424x130+0+0 -fa 'DejaVu Sans Mono' -fs 7 -bg '#1d1f21' -fg '#c5c8c6' -e "$SRC/session_ls.sh"
  launch xterm -geometry 200x60+1280+700 -fa 'DejaVu Sans Mono' -fs 7 -bg '#fdf6e3' -fg '#586e75' -e bash -c "cat $SRC/load_config.py; sleep 600"
  sleep 5; shot terminal-1440p-unscaled-small; killall_mine
}

ALL="s_xterm_ls s_xterm_bitmap s_xfce_gcc s_htop s_tmux s_vim s_mousepad s_xfce_zh s_calc s_chrome_en s_chrome_zh s_docs s_hidpi"
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  trap 'killall_mine; stop_workers; xstop' EXIT
  [ -f "$SRC/orders.csv" ] || python3 "$SRC/gen_sources.py"
  start_workers
  for f in ${@:-$ALL}; do $f; done
fi
