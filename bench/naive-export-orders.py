#!/usr/bin/env python3
"""The naive script a user would write instead of `mbulk export orders`: page through
GET /api/v2/orders with limit=100 on one keep-alive connection and write one CSV, one row per
order. No validation, no line items, no checks, no summary. bench/export-orders.bench.ts runs it
against the same sandbox as the export and prints the ratio.

    python3 bench/naive-export-orders.py BASE_URL TOKEN OUT.csv
"""
import csv
import http.client
import time
import json
import resource
import sys
import urllib.parse

base, token, out = sys.argv[1], sys.argv[2], sys.argv[3]
url = urllib.parse.urlsplit(base)
conn = http.client.HTTPConnection(url.hostname, url.port)
headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
fields = ["id", "number", "created_at", "order_status", "payment_status", "fulfillment_status",
          "customer_name", "customer_phone", "items_quantity", "total_amount", "currency"]
with open(out, "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(fields)
    cursor = None
    orders = 0
    while True:
        query = {"limit": 100}
        if cursor:
            query["cursor"] = cursor
        conn.request("GET", "/api/v2/orders?" + urllib.parse.urlencode(query), headers=headers)
        res = conn.getresponse()
        body = res.read()
        if res.status == 429:  # the sandbox's rate limit: wait as told, then ask again
            time.sleep(float(res.getheader("Retry-After") or "1"))
            continue
        if res.status != 200:
            sys.exit(f"HTTP {res.status}: {body[:200]!r}")
        page = json.loads(body)
        for o in page["data"]:
            c = o.get("customer") or {}
            w.writerow([o["id"], o["number"], o["created_at"], o["order_status"], o["payment_status"],
                        o["fulfillment_status"], c.get("name", ""), c.get("phone", ""),
                        o["items_quantity"], o["total_amount"], o["currency"]])
            orders += 1
        if not page["has_more"]:
            break
        cursor = page["next_cursor"]
# ru_maxrss is in KiB on Linux; cpu is the script's own user + system time (the bench compares it with ours).
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"orders": orders, "peakRss": usage.ru_maxrss * 1024, "cpu": usage.ru_utime + usage.ru_stime}))
