#!/bin/bash
# tmux pane: status table
printf '%-20s %-9s %-8s %-10s %s\n' SERVICE STATE PODS CPU VERSION
for r in "checkout-service running 12/12 38% v2.18.4" "payment-gateway running 6/6 21% v1.44.0" "api-worker-03 degraded 3/4 91% v3.2.1" "db-replica-eu-2 lagging 1/1 64% pg-15.6" \
 "ledger-sync running 2/2 12% v0.9.7" "notifier-sms failing 1/3 4% v2.0.0" "search-indexer running 4/4 55% v5.1.2" "redis-cache-01 running 3/3 9% 7.2.4"; do printf '%-20s %-9s %-8s %-10s %s\n' $r; done
echo; echo 'kubectl get pods -n payments-prod | grep -v Running'; echo 'api-worker-03-5c9d7b-xk2lp   0/1   CrashLoopBackOff   14   2h'; echo 'notifier-sms-78f6c-q8wzd     0/1   Error              6    41m'
sleep 600
