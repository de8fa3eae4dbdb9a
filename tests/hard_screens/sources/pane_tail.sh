#!/bin/bash
# tmux pane: tail -f of an nginx style access log
L=/tmp/hs/access.log; : > $L
paths=(/api/cart /api/checkout/confirm /static/app.3f9c1.js /api/search?q=winter+jacket /api/invoices/INV-2291.pdf /login /api/orders?page=4)
for i in $(seq 1 60); do printf '10.20.%d.%d - - [28/Mar/2024:14:%02d:%02d +0000] "GET %s HTTP/1.1" %d %d "-" "Mozilla/5.0"\n' $((i%7)) $((i*13%250)) $((i/30)) $((i%60)) "${paths[$((i%7))]}" $([ $((i%9)) = 0 ] && echo 502 || echo 200) $((i*977%40000)) >> $L; done
echo '$ tail -f /var/log/nginx/access.log'; tail -n 60 -f $L
