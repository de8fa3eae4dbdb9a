#!/bin/bash
. "$(dirname "$0")/session_common.sh"
P_USER=priya; P_HOST=invoice-dev; HOME_FAKE=/tmp/hs/home/priya
mkdir -p /tmp/hs/home/priya/invoice-tools && cd /tmp/hs/home/priya/invoice-tools
cp "$(dirname "$0")/parse_order_total.c" order_totals.c 2>/dev/null || cp /work/main/tests/hard_screens/sources/parse_order_total.c order_totals.c
clear
run "gcc -Wall -Wextra -O2 -o order_totals order_totals.c"
run "echo exit status \$?"
printf '\033[1;32m%s@%s\033[0m:\033[1;34m%s\033[0m$ ' "$P_USER" "$P_HOST" "~/invoice-tools"
sleep 600
