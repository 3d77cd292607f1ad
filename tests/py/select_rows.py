#!/usr/bin/env python3
"""select_rows.py IN.csv OUT.csv OP...: the rows of IN.csv whose op is one
of OP, with the header, into OUT.csv; exit 1 when there is none."""
import csv
import sys

if len(sys.argv) < 4:
    sys.exit("usage: select_rows.py IN.csv OUT.csv OP...")
with open(sys.argv[1], newline="") as f:
    r = csv.DictReader(f)
    keep = [row for row in r if row["op"] in sys.argv[3:]]
    fields = r.fieldnames
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    w.writerows(keep)
sys.exit(0 if keep else 1)
