#!/usr/bin/env python3
"""Writes ../truth.json (queries were checked by looking at each PNG)."""
import json, os
X = "xterm -fa 'DejaVu Sans Mono' -fs 7"
C = "chromium (non-headless on Xvfb)"
S = [
 ("terminal-xterm-ls.webp", "terminal", "en", [1920,1080], 1, X+" -bg #1d1f21", "dark xterm: ls -l, git log --oneline, ps of named workers, df, wc",
  ["deployment-redis.yaml", "parse_order_total.rs", "load_config.py", "warehouse_sync_cron.sh", "reconcile_ledger_entries", "ingress-checkout.yaml", "ledger-sync-daemon", "requirements-prod.txt", "build-box-07"]),
 ("terminal-xterm-bitmap-6x13.webp", "terminal", "en", [1920,1080], 1, "xterm -fn 6x13 (bitmap) + second xterm running top -b", "bitmap-font xterm: cat config.toml, build log tail, free; overlapping blue xterm with top",
  ["redis-cache-01", "statement_timeout_ms", "invoice_export_v2", "warehouse_sync_batch", "gunicorn", "compileall", "ci-runner-12", "coverage"]),
 ("terminal-xfce4-gcc-errors.webp", "terminal", "en", [1920,1080], 1, "xfce4-terminal, DejaVu Sans Mono 8, light colours", "gcc -Wall errors/warnings compiling order_totals.c",
  ["invoice_line_count", "parse_order_total", "unit_prise", "undeclared", "reconcile_ledger_entries", "order_totals.c", "Wimplicit-function-declaration", "invoice-tools"]),
 ("terminal-htop-workers.webp", "terminal", "en", [1920,1080], 1, X+" -e htop -p <pids>", "htop listing processes started with exec -a names",
  ["api-worker-03", "api-worker-01", "db-replica-eu-2", "ledger-sync-daemon", "invoice-export-runner", "warehouse-etl-nightly", "redis-sentinel-b", "Uptime"]),
 ("terminal-tmux-four-panes.webp", "terminal", "en", [1920,1080], 1, X+" + tmux (4 panes)", "tmux: app log with hostnames, tail -f access log, top -b, service status table",
  ["api-worker-03", "db-replica-eu-2", "ledger-sync-7f9c", "CrashLoopBackOff", "notifier-sms", "INV-2291.pdf", "winter+jacket", "checkout-service", "kworker"]),
 ("editor-vim-desert-python.webp", "editor", "en", [1920,1080], 1, "xterm -fa 'DejaVu Sans Mono' -fs 8 -e vim (colorscheme desert, syntax on, number)", "vim editing load_config.py",
  ["load_config", "apply_environment_overrides", "ConfigurationFileMissingError", "WarehouseSyncSettings", "max_concurrent_invoice_exports", "ENVIRONMENT_OVERRIDE_PREFIX", "tomllib", "statement_timeout_ms"]),
 ("editor-vim-elflord-split.webp", "editor", "en", [1920,1080], 1, X+" -e vim -O (colorscheme elflord)", "vim vertical split: Rust and C sources",
  ["parse_order_total", "OrderTotalError", "group_lines_by_warehouse", "refund_lines_reduce_the_order_total", "CurrencyMismatch", "invoice_line_count", "unit_price_cents", "fscanf"]),
 ("editor-mousepad-release-notes.webp", "editor", "en", [1920,1080], 1, "mousepad 0.5 (DejaVu Sans Mono 8, line numbers)", "GTK text editor with a release checklist (root warning bar on top)",
  ["checklist", "db-replica-eu-2", "deployment-redis.yaml", "reconciliation", "truncates", "Marchetti", "payments-prod", "smoke"]),
 ("dense_app-calc-orders.webp", "dense_app", "en", [1920,1080], 1, "libreoffice --calc orders.csv (9 pt DejaVu Sans)", "LibreOffice Calc: 42 rows x 10 columns of orders",
  ["ORD-58162", "VB-731K", "Ingrid Lindqvist", "Rotterdam", "WH-SOUTH-1", "refunded", "amount_eur", "Ljubljana", "delivered"]),
 ("dark-chat-relay.webp", "dark", "en", [1920,1080], 1, C+" --app", "dark team chat (Discord/Slack-like) with code spans",
  ["payments-team", "deployment-redis.yaml", "api-worker-03", "db-replica-eu-2", "reconcile_ledger_entries", "INC-7734", "warehouse-sync", "max_connections", "Grafana", "henrik"]),
 ("dense_app-webmail-inbox-67pct.webp", "dense_app", "en", [1920,1080], 0.67, C+" --force-device-scale-factor=0.67", "webmail inbox at 67%, 36 rows",
  ["parse_order_total", "Postmortem", "reconcile_ledger_entries", "PagerDuty", "KQ7XPL", "HD-40517", "Lovelace", "load_config", "Invoices"]),
 ("dense_app-settings-lowcontrast.webp", "dense_app", "en", [1920,1080], 1, C+" --app", "low-contrast settings dialog (light grey on grey)",
  ["Workspace", "eu-central-2", "Parquet", "Northwind", "retention", "experimental", "whsec_7Hq2vLx9Kp4mTz81", "Integrations", "Danger"]),
 ("dark-photo-overlay-trailhead.webp", "dark", "en", [1920,1080], 1, C+" --kiosk", "white text over a real photo (Picos de Europa wallpaper, lomiri-wallpapers-16.04)",
  ["Trailhead", "Sotres", "crampons", "elevation", "Difficult", "Saturday", "07:42", "Permits", "northwest"]),
 ("dark-dashboard-alerts.webp", "dark", "en", [1920,1080], 1, C+" --kiosk", "dark monitoring dashboard: red/amber/green banners, service tiles, event table",
  ["CRITICAL", "RESOLVED", "api-worker-03", "kafka-broker-2", "orders-events-7", "notifier-sms", "geo-lookup", "inventory-api", "Beacon"]),
 ("mixed_chinese-news-list.webp", "mixed_chinese", "zh", [1920,1080], 1, C, "Simplified Chinese news portal, light",
  ["新闻中心", "营商环境", "新能源汽车", "存款准备金率", "热点排行", "专题报道", "乡村振兴", "无障碍浏览"]),
 ("mixed_chinese-chat-dark.webp", "mixed_chinese", "mixed", [1920,1080], 1, C+" --app", "dark Chinese team chat with English identifiers",
  ["研发群", "deployment-redis.yaml", "api-worker-03", "连接池", "代码冻结", "文件传输助手", "团建", "config.toml"]),
 ("mixed_chinese-inbox.webp", "mixed_chinese", "zh", [1920,1080], 0.8, C+" --force-device-scale-factor=0.8", "Chinese enterprise webmail inbox at 80%",
  ["收件箱", "报销单", "年假", "停电检修", "数据库迁移", "合同续签", "入职培训", "草稿箱"]),
 ("mixed_chinese-terminal-xfce-git.webp", "mixed_chinese", "mixed", [1920,1080], 1, "xfce4-terminal (Noto Sans Mono CJK SC 9, dark)", "git log with Chinese commit messages, cat of Chinese notes, Python error",
  ["deployment-redis.yaml", "replicas", "load_config", "config.toml", "修复订单", "连接池", "回滚命令", "release-01"]),
 ("mixed_chinese-editor-mousepad-notes.webp", "mixed_chinese", "mixed", [1920,1080], 1, "mousepad 0.5 (DejaVu Sans Mono 8 + CJK fallback), 1400x900 window", "GTK editor with mixed Chinese/English release notes",
  ["上线记录", "deployment-redis.yaml", "load_config", "工作目录", "parse_order_total", "库存同步", "db-replica-eu-2", "负责人"]),
 ("documentation-libffi-closure-api.webp", "documentation", "en", [1920,1080], 1, C, "Debian-shipped libffi HTML manual page (The Closure API)",
  ["ffi_closure_alloc", "ffi_prep_closure_loc", "writable", "interpreter", "FFI_CLOSURES", "codeloc", "ffi_closure_free", "Multiple ABIs"]),
 ("documentation-base-passwd-users-groups.webp", "documentation", "en", [1920,1080], 1, C, "Debian base-passwd users-and-groups.html",
  ["base-passwd", "update-passwd", "superuser", "Mandelberg", "MERCHANTABILITY", "Franklin", "Introduction", "daemon"]),
 ("documentation-zh-config-docs.webp", "documentation", "zh", [1920,1080], 1, C, "Chinese developer docs page (config file reference)",
  ["配置文件说明", "load_config", "环境变量", "缓存策略", "数据库连接", "常见问题", "pool_size", "过期时间"]),
 ("dark-hidpi-4k-dashboard-2x.webp", "dark", "en", [3840,2160], 2, C+" --force-device-scale-factor=2 --kiosk", "4K screen, dashboard at 2x",
  ["CRITICAL", "api-worker-03", "db-replica-eu-2", "redis-cache-01", "ledger-sync", "billing-cron", "under-replicated"]),
 ("dense_app-hidpi-1440p-webmail-1.5x.webp", "dense_app", "en", [2560,1440], 1.5, C+" --force-device-scale-factor=1.5", "1440p screen, webmail at 1.5x",
  ["Postbox", "parse_order_total", "Jira Cloud", "Lisbon", "INC-7734", "Promotions", "Datadog"]),
 ("terminal-hidpi-4k-xterm-2x.webp", "terminal", "en", [3840,2160], 2, "xterm -fa 'DejaVu Sans Mono' -fs 14", "4K screen, terminal at 2x font",
  ["config.toml", "redis-cache-01", "statement_timeout_ms", "gunicorn", "registry.internal", "test_load_config_missing_file"]),
 ("terminal-1440p-unscaled-small.webp", "terminal", "en", [2560,1440], 1, X, "1440p unscaled: a dark xterm session (the second, light xterm did not map)",
  ["deployment-redis.yaml", "parse_order_total.rs", "invoice_exporter.py", "api-worker-02", "ledger-sync-daemon", "warehouse_sync_cron.sh"]),
]
here = os.path.dirname(os.path.abspath(__file__)); top = os.path.dirname(here)
out = [dict(file=f, kind=k, language=l, size=sz, scale=sc, program=p, note=n, queries=q) for f, k, l, sz, sc, p, n, q in S
       if os.path.exists(os.path.join(top, f))]
json.dump(out, open(os.path.join(top, "truth.json"), "w", encoding="utf-8"), ensure_ascii=False, indent=1)
print(len(out), "screens;", sum(len(o["queries"]) for o in out), "queries")
