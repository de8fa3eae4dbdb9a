#!/bin/bash
# tmux pane: application log lines from several hosts
hosts=(api-worker-01 api-worker-02 api-worker-03 db-replica-eu-2 ledger-sync-7f9c checkout-6d4b8)
msgs=("GET /v2/orders/58127 200 41ms" "POST /v2/invoices/export 202 118ms" "upstream timeout after 5000ms pool=orders" "replication lag 48s (threshold 30s)"
 "batch 2941 reconciled in 812ms" "GET /healthz 200 2ms" "POST /v2/refunds 409 conflict order=ORD-58190" "connection reset by peer 10.4.2.17:5432")
lv=(INFO INFO ERROR WARN INFO INFO WARN ERROR)
for i in $(seq 0 120); do k=$((i*5 % 8)); printf '2024-03-28T14:%02d:%02d.%03dZ %-16s %-5s %s\n' $((i/60)) $((i%60)) $((i*37%1000)) "${hosts[$((i*7 % 6))]}" "${lv[$k]}" "${msgs[$k]}"; done
sleep 600
