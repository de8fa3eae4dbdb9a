"""Prints a worker log of 70+ lines: routine INFO lines with one ERROR among them."""
import random
rng = random.Random(7)
jobs = ["sync_inventory", "send_receipts", "refresh_search_index", "resize_images", "expire_carts", "export_orders", "update_fx_rates"]
for minute in range(0, 74):
    job = rng.choice(jobs)
    stamp = f"2026-11-27 03:{minute % 60:02d}:{rng.randint(10, 59):02d},{rng.randint(100, 999)}"
    if minute == 51:
        print(f"{stamp} ERROR [backup] pg_dump to /srv/backups/db-2026-11-27.sql.gz failed: write error: Disk quota exceeded (used 500.0 GiB of 500.0 GiB)")
        continue
    extra = {"sync_inventory": f"updated {rng.randint(10, 900)} SKUs", "send_receipts": f"sent {rng.randint(1, 40)} receipts",
             "refresh_search_index": f"indexed {rng.randint(100, 5000)} products in {rng.randint(2, 30)}.{rng.randint(0, 9)}s",
             "resize_images": f"resized {rng.randint(1, 60)} images", "expire_carts": f"expired {rng.randint(0, 80)} carts",
             "export_orders": f"wrote {rng.randint(10, 300)} rows to orders-export.csv", "update_fx_rates": "rates updated from ECB feed"}[job]
    print(f"{stamp} INFO  [{job}] worker-{rng.randint(1, 4)} {extra}")
