#!/usr/bin/env python3
"""reclaim_rows.py CSV [--want-exercised]: judge the rows of longpin's
lifetime reclaim, reclaim-pinned and lazyfree cases by what their pages did.

Every row must have no VmPin leak, and its verdict must say what happened:
  pass         answer 0, data ok, every page left memory (pages_out the
               buffer's pages), and not every page was dirty before the unpin
  defect       -EIO, data mismatch, "data lost" in the note, pages_out > 0,
               and not every page was dirty before the unpin
  unexercised  answer 0, data ok, and either not every page left memory
               or every page was dirty before the unpin (so reclaim wrote
               them out: no loss by the unpin can show)
  skip         the case did not run here; the note says why
Anything else (fail, fixed, a pass with nothing paged out) is wrong.
Prints a line per wrong row and a summary; exit 1 if a row is wrong, 77 if
no row was exercised (with --want-exercised: 1), else 0.
"""
import csv
import sys


def num(v):
    return int(v) if v not in ("", "-") else None


def wrong(r):
    v, out = r["verdict"], num(r["pages_out"])
    dirty, kb = num(r["dirty_unpin_kb"]), int(r["size"]) // 1024
    all_dirty = dirty is not None and dirty >= kb
    all_out = out is not None and out >= kb // 4
    if r["vmpin_leak_kb"] not in ("0", "-"):
        return "VmPin leak"
    if v in ("pass", "defect") and all_dirty:
        return v + ", though every page was dirty before the unpin"
    if v == "pass":
        if r["result"] != "0" or r["data_check"] != "ok":
            return "pass without answer 0 and data ok"
        if not all_out:
            return "pass, but not every page left memory"
    elif v == "defect":
        if r["errno"] != "EIO" or r["data_check"] != "mismatch" or "data lost: " not in r["note"]:
            return "defect without -EIO, mismatch and 'data lost'"
        if not out:
            return "defect, but no page left memory"
    elif v == "unexercised":
        if r["result"] != "0" or r["data_check"] != "ok":
            return "unexercised without answer 0 and data ok"
        if all_out and not all_dirty:
            return "unexercised, though every page left memory with clean pages"
    elif v != "skip":
        return "verdict " + v
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: reclaim_rows.py CSV [--want-exercised]")
    rows = list(csv.DictReader(open(sys.argv[1], newline="")))
    bad = 0
    count = {}
    for r in rows:
        count[r["verdict"]] = count.get(r["verdict"], 0) + 1
        why = wrong(r)
        if why:
            bad += 1
            print("wrong row (%s): %s %s %s pages_out=%s dirty_unpin_kb=%s: %s"
                  % (why, r["op"], r["memtype"], r["prefault"], r["pages_out"],
                     r["dirty_unpin_kb"], r["note"]))
    print("rows: " + ", ".join("%d %s" % (n, v) for v, n in sorted(count.items())))
    if bad:
        sys.exit(1)
    if not count.get("pass") and not count.get("defect"):
        sys.exit(1 if "--want-exercised" in sys.argv else 77)


main()
