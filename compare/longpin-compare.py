#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""longpin-compare: joins the CSV files of longpin runs on several kernels
(one file per kernel, labelled by its basename) on (source, pinner, memtype,
prefault, size, op) and shows where their results differ, what each
long-term pinner gets and how their performance compares with a baseline
kernel: text on stdout, a markdown report (--report), PNG plots (--plots).
docs/run-and-compare.md says what each section is. Debian's python3 and,
for --plots only, python3-matplotlib."""

import argparse
import csv
import errno
import hashlib
import io
import math
import os
import re
import stat
import statistics
import sys
import tempfile
from collections import Counter, namedtuple
from pathlib import Path

PROG = "longpin-compare"
MAX_FILES, MAX_REPEATS = 16, 32
MARK = "<!-- written by longpin-compare -->"   # the report's first line
TXT_MARK = "# written by longpin-compare"      # a plot's sidecar's

# The pinners, in the order of harness/pinners/pinners.def (longpin's one
# list): CMake puts them here; run from the source tree, read them there.
PINNERS = "@LP_PINNERS@".split()
if "LP_PINNERS" in PINNERS[0]:
    PINNERS = re.findall(r'LP_PINNER\(\w+, "([^"]+)"', (Path(__file__).resolve().parents[1] /
                         "harness/pinners/pinners.def").read_text())
DEFAULT_PINNER = PINNERS[0]   # a row's pinner when it names none, as in longpin

# The CSV schemas (docs/harness.md): 3 is 2 with pinner, 2 is 1 with accel,
# 4 is 3 with nine columns before accel.
S3 = ("schema source timestamp kernel contract memtype prefault size op pinner fs_type dax thp_kb "
      "result errno expected verdict reg_ns_per_page unreg_ns_per_page vmpin_before_kb vmpin_reg_kb "
      "vmpin_after_kb vmpin_leak_kb foll_pin_acquired foll_pin_released gup_fast_pages gup_slow_pages "
      "refused_fsdax refused_file resident_before resident_after dirty_before_kb dirty_after_kb "
      "data_check target direct bs qd ios repeat fixed_mibs_min fixed_mibs_med fixed_mibs_max "
      "fixed_iops plain_mibs_min plain_mibs_med plain_mibs_max plain_iops ratio_min ratio_med "
      "ratio_max clat_p50_us clat_p99_us clat_p999_us cpu_usr cpu_sys cycles cycle_reg_ns_min "
      "cycle_reg_ns_med cycle_reg_ns_max probe_calls probe_p999_us probe_max_us accel note").split()
_A = S3.index("accel")
SCHEMAS = {"1": [c for c in S3 if c not in ("pinner", "accel")], "2": [c for c in S3 if c != "pinner"],
           "3": S3, "4": S3[:_A] + ["stall_us_min", "stall_us_med", "stall_us_max", "probe_free_med_us",
                                    "probe_free_p99_us", "moved_pages",
                                    "dirty_unpin_kb", "pages_out", "pages_intact"] + S3[_A:]}
# the columns two files must both have or both lack (pinner is new in 3)
SAME_COLS = ("source memtype prefault size op fs_type result errno verdict reg_ns_per_page "
             "cycle_reg_ns_min cycle_reg_ns_med cycle_reg_ns_max fixed_mibs_min fixed_mibs_med "
             "fixed_mibs_max plain_mibs_min plain_mibs_med plain_mibs_max ratio_min ratio_med ratio_max "
             "probe_calls probe_p999_us probe_max_us vmpin_leak_kb data_check kernel contract "
             "accel").split()
VERDICTS = ("pass", "fail", "defect", "fixed", "unchecked", "skip", "unexercised")
PAGED_OPS = ("lifetime-reclaim", "lifetime-reclaim-pinned", "lifetime-lazyfree")

USAGE = f"""usage: {PROG} [--report FILE.md] [--plots DIR] [--baseline LABEL] [--repeats] [--force] A.csv B.csv [...]
  Joins longpin CSV files (schemas 1 to 4; one per kernel, labelled by basename
  without .csv) on source, pinner, memtype, prefault, size, op; shows differing
  results, what each long-term pinner (`longpin pinners`) gets when
  the files hold more than one, and performance against the baseline (default:
  the first file).
  --repeats: files of one basename (r1/stock.csv r2/stock.csv ...) are repeats
  of one kernel: each figure is the median over the repeats of each repeat's
  own median, its [min-max] the range of those, with their spread.
  --force: overwrite a regular --report file that longpin-compare did not
  write or that was edited since, or write into a --plots directory that
  holds files it did not write (never an input file, never over anything
  but a regular file: a device node, a FIFO or a symlink to one is refused).
"""

Key = namedtuple("Key", "source pinner memtype prefault size op fs")
Rng = namedtuple("Rng", "min med max")


class Usage(Exception):
    """A usage error: one line on stderr, exit 2."""


# ---- small helpers ----

def num(s):
    """The number in field @s, or None ("-", empty, not finite)."""
    try:
        v = float(s) if s and s != "-" else math.nan
    except ValueError:
        return None
    return v if math.isfinite(v) else None

def atol(s):
    m = re.match(r"\s*[+-]?\d+", s or "")
    return int(m.group()) if m else 0

def uniq(items):
    """The items in order, each once."""
    return list(dict.fromkeys(items))

def fmt_size(s):
    """4194304 -> 4M, 1073741824 -> 1G; anything else as it is."""
    if not re.fullmatch(r"[0-9]+", s):
        return s
    v = int(s)
    for shift, unit in ((30, "G"), (20, "M"), (10, "K")):
        if v and not v % (1 << shift):
            return f"{v >> shift}{unit}"
    return str(v)

def fmt_num(v):
    """3 significant-ish digits: 3401, 64.9, 1.18."""
    return "%.0f" % v if abs(v) >= 100 else "%.1f" % v if abs(v) >= 10 else "%.2f" % v

def fmt_range(r):
    return "-" if not r else fmt_num(r.med) if r.min == r.max else \
        f"{fmt_num(r.med)} [{fmt_num(r.min)}-{fmt_num(r.max)}]"

def key_label(k, with_pf=True):
    """"anon write 4M", "fio randread-nullb anon write 4M", "gup-fast pin anon write 4M (xfs)"."""
    parts = [k.source] if k.source != "harness" else []
    parts += [k.pinner] if k.pinner != DEFAULT_PINNER else []
    parts += [k.op] if k.op != "register" else []
    parts += [k.memtype] + ([k.prefault] if with_pf else []) + [fmt_size(k.size)]
    return " ".join(parts) + (f" ({k.fs})" if k.fs is not None else "")

def row_result(r):
    """"0", "-EOPNOTSUPP", "skip" (a case that did not run), or the raw result."""
    res, e = r["result"], r["errno"]
    if r["verdict"] == "skip":
        return "skip"
    if res == "0":
        return "0"
    if res.startswith("-") and len(res) > 1 and e and e != "-":
        return "-" + e
    return res or "?"


# ---- reading ----

def read_csv(path):
    """The rows of one longpin CSV as dicts (with _line), and its header."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise Usage(f"{path}: {e.strerror}: give a CSV written by longpin --csv")
    if not data:
        raise Usage(f"{path}:1: empty file: give a CSV written by longpin --csv")
    if b"\0" in data:
        line = data[:data.index(b"\0")].count(b"\n") + 1
        raise Usage(f"{path}:{line}: NUL byte: not a text CSV; give a CSV written by longpin --csv")
    text = data.decode("utf-8", "replace")
    blank = re.match(r"(\r?\n)*", text)
    skipped = blank.group().count("\n")
    if blank.end() == len(text):
        raise Usage(f"{path}:1: no header (only blank lines): give a CSV written by longpin --csv")
    rd = csv.DictReader(io.StringIO(text[blank.end():], newline=""), quoting=csv.QUOTE_NONE)
    hdr = rd.fieldnames
    hline = skipped + 1
    if hdr[0] != "schema":
        raise Usage(f"{path}:{hline}: no header (first column is '{hdr[0][:40]}', not 'schema'): "
                    "give a CSV written by longpin --csv")
    schema = next((s for s, cols in SCHEMAS.items() if cols == hdr), None)
    if not schema:
        near = max(SCHEMAS.values(), key=lambda cols: len(set(cols) & set(hdr)))   # the likeliest schema
        why = next((f"column {i + 1} is '{a[:40]}', not '{b}'" for i, (a, b) in enumerate(zip(hdr, near)) if a != b),
                   f"{len(hdr)} columns, not {len(near)}")
        raise Usage(f"{path}:{hline}: not a header of longpin's CSV schemas 1 to 4 ({why}): "
                    "regenerate the file with longpin")
    rows = []
    for r in rd:
        line = rd.line_num + skipped
        n = sum(v is not None for k, v in r.items() if k is not None) + len(r.get(None, []))
        if n != len(hdr):
            raise Usage(f"{path}:{line}: {n} fields, the header has {len(hdr)}: "
                        "a truncated or hand-edited line; regenerate it or delete it")
        if r["schema"] not in SCHEMAS:
            raise Usage(f"{path}:{line}: CSV schema {r['schema'][:20]}, this {PROG} reads schemas 1 to "
                        f"{max(SCHEMAS)}: use a matching longpin")
        r.setdefault("pinner", DEFAULT_PINNER)    # schemas 1 and 2: all the default's
        r["_line"] = line
        rows.append(r)
    return rows, hdr


class Kernel:
    """One kernel: one file, or with --repeats the files of one basename."""

    def __init__(self, path, paths=None):
        self.path, self.paths, self.rows = path, paths or [], []
        base = path.rsplit("/", 1)[-1]
        self.label = base[:-4] if len(base) > 4 and base.endswith(".csv") else base

    def load(self, first):
        hdr0 = None
        for rep, p in enumerate(self.paths):
            rows, hdr = read_csv(p)
            if hdr0 is not None and hdr != hdr0:
                raise Usage(f"{p}:1: its header differs from {self.paths[0]}'s: "
                            "give repeats written by the same longpin")
            hdr0 = hdr
            for r in rows:
                r["_rep"], r["_path"] = rep, p
            self.rows += rows
        self.cols = set(hdr0)
        for r in self.rows:
            if r["pinner"] not in PINNERS:
                raise Usage(f"{r['_path']}:{r['_line']}: unknown pinner '{r['pinner'][:40]}' "
                            f"({', '.join(PINNERS)}): use the {PROG} of the longpin that wrote it")
        self.count = Counter(r["verdict"] if r["verdict"] in VERDICTS else "other" for r in self.rows)
        self.accel = "/".join(uniq(r.get("accel") if r.get("accel") not in (None, "", "-") else "?"
                                   for r in self.rows))
        self.warn_mixed()
        for c in SAME_COLS if first else ():
            if (c in self.cols) != (c in first.cols):
                has, lacks = (first, self) if c in first.cols else (self, first)
                raise Usage(f"{self.path}:1: column '{c}' is in {has.path} but not in {lacks.path}: "
                            "compare files written by the same longpin version")

    def warn_mixed(self):
        """One file is one kernel: rows of two kernels (or contracts) are merged under one label."""
        kc = uniq(f"{r['kernel']} {r['contract']}" for r in self.rows)
        if len(kc) > 1:
            print(f"{PROG}: warning: {self.path} holds rows of more than one kernel ({kc[0]}, {kc[1]}), "
                  f"merged under the label {self.label}: give one file per kernel", file=sys.stderr)

def unique_labels(kernels):
    """Same basename in two directories (two runs): "run1/stock"; still the same: "#N"."""
    count = Counter(k.label for k in kernels)
    for k in kernels:
        if count[k.label] > 1:
            parts = k.path.split("/")
            k.label = f"{parts[-2][:30] if len(parts) > 1 else '.'}/{k.label[:30]}"
    for i, k in enumerate(kernels):
        if any(k.label == j.label for j in kernels[:i]):
            k.label = f"{k.label[:56]}#{(i + 1) % 100}"


# ---- the join: keys, and per key and kernel a cell ----

def combine(rows, med, pref=None, lo=None, hi=None):
    """Median of @med over @rows (of @pref where a row has it); min and max over them, @lo and @hi."""
    vals, lows, highs = [], [], []
    for r in rows:
        x = num(r.get(pref)) if pref else None
        x = num(r.get(med)) if x is None else x
        if x is not None:
            vals.append(x)
        if lo and num(r.get(lo)) is not None:
            lows.append(num(r.get(lo)))
        if hi and num(r.get(hi)) is not None:
            highs.append(num(r.get(hi)))
    return Rng(min(vals + lows), statistics.median(vals), max(vals + highs)) if vals else None

def combine_rep(kern, rows, med, pref=None, lo=None, hi=None):
    """combine() per repeat (--repeats): the median, min and max of each repeat's median; how many."""
    if len(kern.paths) <= 1:
        return combine(rows, med, pref, lo, hi), 1
    meds = [r.med for rep in range(len(kern.paths))
            if (r := combine([x for x in rows if x["_rep"] == rep], med, pref))]
    return (Rng(min(meds), statistics.median(meds), max(meds)), len(meds)) if meds else (None, 1)


class Cell:
    """One key on one kernel: its rows combined."""

    def __init__(self, kern, key, rows, cycles):
        self.rows = rows
        res = uniq(row_result(r) for r in rows)
        self.res = ("mixed " if len(res) > 1 else "") + "/".join(res)
        self.verdict = "/".join(uniq(r["verdict"] for r in rows))
        self.skipped = bool(rows) and all(r["verdict"] == "skip" for r in rows)
        # a lifetime case's defect loses data, a pin's leaks its pins
        self.pin_defect = any(not r["op"].startswith("lifetime-") for r in rows)
        self.leak_kb = max([0] + [atol(r["vmpin_leak_kb"]) for r in rows])
        self.ncorrupt = sum(r["data_check"] in ("mismatch", "error") for r in rows)
        accel = [r.get("accel", "") for r in rows]
        self.emulated = any(a.startswith("tcg") for a in accel)
        self.icount = any("icount" in a for a in accel)
        ticks = [atol(a[a.find("-tick") + 5:]) for a in accel if "-tick" in a]
        self.tick_us = ticks[-1] if ticks else 0
        cyc = ("cycle_reg_ns_med", "cycle_reg_ns_min", "cycle_reg_ns_max") if cycles else ()
        self.reg, self.nrep = combine_rep(kern, rows, "reg_ns_per_page", *cyc)
        self.reg_samples = sum(max(atol(r["cycles"]), 1) if cycles else 1
                               for r in rows if num(r["reg_ns_per_page"]) is not None)
        # a row of N registrations beside the prober gives each one's stall
        # (stall_us_*, schema 4); an older row, its longest call alone
        self.probe_samples = sum((atol(r["cycles"]) if num(r.get("stall_us_med")) is not None else 1)
                                 for r in rows if num(r["probe_max_us"]) is not None)
        self.fixed, self.plain, self.ratio = (combine(rows, f"{c}_med", None, f"{c}_min", f"{c}_max")
                                              for c in ("fixed_mibs", "plain_mibs", "ratio"))
        self.probe_calls, self.probe_p999 = (combine_rep(kern, rows, c)[0] for c in ("probe_calls", "probe_p999_us"))
        self.probe_max, nr = combine_rep(kern, rows, "probe_max_us", "stall_us_med", "stall_us_min",
                                         "stall_us_max")
        if self.probe_max and nr > self.nrep:
            self.nrep = nr
        self.pages = ""
        if key.op in PAGED_OPS:
            out, intact = ([r.get(c) for r in rows if r.get(c) not in (None, "", "-")]
                           for c in ("pages_out", "pages_intact"))
            if out or intact:
                self.pages = f"{'/'.join(uniq(out)) or '-'} paged out, {'/'.join(uniq(intact)) or '-'} intact"

    def perf(self):
        return bool(self.reg or self.fixed or self.ratio or self.probe_max)


class Compare:
    """The kernels' rows joined: per key (self.keys, in the order first seen) a Cell per kernel."""

    def __init__(self, kernels, baseline):
        self.k = kernels
        labels = [k.label for k in kernels]
        if baseline is not None and baseline not in labels:
            raise Usage(f"--baseline {baseline}: no such label: give one of {' '.join(labels)}")
        self.base = labels.index(baseline) if baseline is not None else 0
        self.pinners = uniq(r["pinner"] for k in kernels for r in k.rows)
        self.make_keys()
        self.cell, self.nfirst_only = {}, 0
        for key, per in self.rows.items():
            with_c = sum(num(r.get("cycle_reg_ns_med")) is not None for rows in per for r in rows)
            nrows = sum(len(rows) for rows in per)
            self.cell[key] = [Cell(k, key, rows, with_c == nrows) for k, rows in zip(kernels, per)]
            self.nfirst_only += 0 < with_c < nrows
        cells = [cl for per in self.cell.values() for cl in per]
        self.have_probe = any(cl.probe_max for cl in cells)
        self.have_emulated = any(cl.emulated and (cl.fixed or cl.plain) for cl in cells)
        self.have_icount = any(cl.icount for cl in cells)
        self.have_repeats = any(len(k.paths) > 1 for k in kernels)
        # per kernel, what io_uring's registration answered per memory type and prefault
        self.registered = [{} for _ in kernels]
        for reg, k in zip(self.registered, kernels):
            for r in k.rows:
                if r["source"] == "harness" and r["pinner"] == DEFAULT_PINNER and r["op"] == "register":
                    reg.setdefault((r["memtype"], r["prefault"]), set()).add(row_result(r))

    def make_keys(self):
        """Rows join on source, pinner, memtype, prefault, size, op; and fs_type where a file has rows
        of one memtype, prefault, size and kind of op (the pins as one) on two file systems."""
        def split_key(r):
            op = "pin" if r["op"] in ("register", "pin", "pin-ro") else r["op"]
            return (r["source"], r["memtype"], r["prefault"], r["size"], op)
        split = set()
        for k in self.k:
            fss = {}
            for r in k.rows:
                fss.setdefault(split_key(r), set()).add(r["fs_type"])
            split |= {sk for sk, fs in fss.items() if len(fs) > 1}
        self.rows, self.first_fs = {}, {}
        for i, k in enumerate(self.k):
            for r in k.rows:
                key = Key(r["source"], r["pinner"], r["memtype"], r["prefault"], r["size"], r["op"],
                          r["fs_type"] if split_key(r) in split else None)
                self.rows.setdefault(key, [[] for _ in self.k])[i].append(r)
                self.first_fs.setdefault(key, r["fs_type"])
        self.keys = list(self.rows)

    def state(self, key):
        """2: results differ, 1: missing (or skipped) somewhere, 0: all the same."""
        res = [cl.res for cl in self.cell[key] if cl.rows and not cl.skipped]
        return 2 if len(set(res)) > 1 else 1 if len(res) < len(self.k) else 0

    def not_applicable(self, key, i):
        """Whether kernel @i lacks or skipped @key because it refused the memory type: a lifetime case
        of a type its io_uring would not register, or a skip row whose note says refused."""
        cl = self.cell[key][i]
        if cl.skipped and any(re.search(r"refus", r["note"], re.I) for r in cl.rows):
            return True
        res = self.registered[i].get((key.memtype, key.prefault))
        return (not cl.rows or cl.skipped) and key.op.startswith("lifetime-") and bool(res) and "0" not in res


# ---- the report: aligned text (stdout) or markdown (--report) ----

def table(rows, md):
    """Rows of strings, the first the header."""
    if md:
        lines = ["".join("| " + s.replace("|", "\\|") + " " for s in r) + "|" for r in rows]
        lines.insert(1, "|---" * len(rows[0]) + "|")
        return "".join(line + "\n" for line in lines)
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "".join("".join(f"  {s:<{w[i]}}" if i + 1 < len(r) else f"  {s}" for i, s in enumerate(r)) + "\n"
                   for r in rows)

def result_text(cl):
    """"0", "-EIO (DATA LOST; 1024 paged out, 0 intact)", "missing", "skip"."""
    if not cl.rows:
        return "missing"
    if cl.skipped:
        return "skip"
    v = cl.verdict
    mark = v if "/" in v else {"fail": "FAIL", "fixed": "defect did not show", "unexercised": "unexercised",
                                "defect": "PINS LEAKED" if cl.pin_defect else "DATA LOST"}.get(v, "")
    more = "; ".join(m for m in (mark, cl.pages) if m)
    return f"{cl.res} ({more})" if more else cl.res


class Report:
    def __init__(self, c, md):
        self.c, self.md, self.out = c, md, []
        self.ind = "" if md else "  "     # a paragraph's indent
        self.item = "- " if md else "  "  # a list item's

    def w(self, s):
        self.out.append(s)

    def heading(self, s):
        self.w(f"\n## {s}\n\n" if self.md else f"\n{s}\n")

    def text(self, s, gap=False):
        """A paragraph of lines, each indented on stdout; in markdown after a blank line if @gap."""
        self.w(("\n" if gap and self.md else "") + "".join(self.ind + line + "\n" for line in s.split("\n")))

    def table_or(self, rows, none):
        self.w(table(rows, self.md) if len(rows) > 1 else f"{self.ind}{none}\n")

    def cells(self):
        for key in self.c.keys:
            for k, cl in zip(self.c.k, self.c.cell[key]):
                yield key, k, cl

    def files(self):
        c = self.c
        self.heading("Kernels and verdicts")
        rows = [["kernel", "file", "pass", "fail", "known defect (data lost, pins leaked)",
                 "defect did not show (fixed)", "unchecked", "skip", "unexercised", "other", "accel"]]
        for i, k in enumerate(c.k):
            rows.append([k.label + (" (baseline)" if i == c.base else ""), k.path] +
                        [str(k.count[v]) for v in VERDICTS + ("other",)] + [k.accel])
        self.w(table(rows, self.md))

    def verdict_list(self, verdict, pins, title, text):
        """The cells of verdict @verdict (and, @pins not None, of a pin defect or not) under @title."""
        hits = [(key, k, cl) for key, k, cl in self.cells()
                if verdict in cl.verdict and (pins is None or cl.pin_defect == pins)]
        if not hits:
            return
        self.heading(title)
        self.w(text + "\n" + ("\n" if self.md else ""))
        for key, k, cl in hits:
            self.w(f"{self.item}{key_label(key)}: {k.label} {cl.res}" + (f" ({cl.pages})\n" if cl.pages else "\n"))

    def defects(self):
        self.verdict_list("defect", False, "Data lost: known kernel defects",
                          "These rows answered what the kernel's contract expects, and the answer is\n"
                          "data loss (a known defect of that kernel, not a pass):")
        self.verdict_list("defect", True, "Pins leaked: known kernel defects",
                          "These rows answered what the kernel's contract expects, and the pins they\n"
                          "took were not all given back (a known defect of that kernel, named in its\n"
                          "contract and in the row's note; not a pass):")
        self.verdict_list("fixed", False, "Known defects that did not show",
                          "The kernel's contract expects data loss on these rows, and the data\n"
                          "survived: the kernel changed, or the contract row is wrong:")
        self.verdict_list("fixed", True, "Known pin leaks that did not show",
                          "The kernel's contract expects these rows' pins to leak, and they were\n"
                          "all given back: the kernel changed, or the contract row is wrong:")
        self.verdict_list("unexercised", None, "Unexercised: the pages never left memory",
                          "These reclaim or lazyfree rows ran, and their pages were never paged out or\n"
                          "freed, so they prove nothing either way (verdict unexercised, not a pass):")

    def failures(self):
        """Rows that left pages pinned or whose data check failed: failures whatever the answer."""
        for corrupt in (False, True):
            hits = [(key, k, cl) for key, k, cl in self.cells() if (cl.ncorrupt if corrupt else cl.leak_kb)]
            if not hits:
                continue
            self.heading("Data lost or corrupted" if corrupt else "Pins leaked")
            self.w(("Rows whose data check failed: what the I/O wrote is not what was read back.\n" if corrupt
                    else "Rows after which VmPin did not come back: pages still pinned.\n") +
                   ("\n" if self.md else ""))
            for key, k, cl in hits:
                what = f"{cl.ncorrupt} row(s)" if corrupt else f"{cl.leak_kb} kB still pinned"
                self.w(f"{self.item}{key_label(key)}: {k.label}, {what}\n")

    def skipped(self):
        """The cases that did not run, counted by kernel and reason (the note)."""
        counts = [(k, Counter(r["note"] or "no reason given" for r in k.rows if r["verdict"] == "skip"))
                  for k in self.c.k]
        if not any(n for _, n in counts):
            return
        self.heading("Skipped")
        self.w("Cases that did not run (verdict skip, never a pass), by kernel and reason:\n" +
               ("\n" if self.md else ""))
        for k, n in counts:
            for why, m in sorted(n.items(), key=lambda x: (-x[1], x[0])):
                self.w(f"{self.item}{k.label}: {m} × {why}\n")

    def diffs(self):
        c = self.c
        st = {key: c.state(key) for key in c.keys}
        nd, nm = sum(s == 2 for s in st.values()), sum(s == 1 for s in st.values())
        skip = any(cl.skipped for _, _, cl in self.cells())
        self.heading("Registration results that differ between kernels")
        self.w(f"{nd} of {len(c.keys)} keys differ, {nm} are missing{' or skipped' if skip else ''} on "
               f"some kernel.\n" + ("\n" if self.md and nd + nm else ""))
        for want in (2, 1):
            for key in (key for key in c.keys if st[key] == want):
                parts = [f"missing on {k.label}" if not cl.rows else f"skipped on {k.label}" if cl.skipped
                         else f"{k.label} {cl.res}" for k, cl in zip(c.k, c.cell[key])]
                self.w(f"{self.item}{key_label(key)}: {', '.join(parts)}\n")

    def results(self):
        c = self.c
        self.heading("Registration result per kernel (! differs, ? missing somewhere)")
        rows = [["", "key"] + [k.label for k in c.k]]
        for want, mark in ((2, "!"), (1, "?"), (0, "")):
            rows += [[mark, key_label(key)] + [result_text(cl) for cl in c.cell[key]]
                     for key in c.keys if c.state(key) == want]
        self.w(table(rows, self.md))

    def emulated_note(self):
        if self.c.have_emulated:
            self.text("(tcg): measured in a guest under QEMU's TCG emulator: MiB/s and\n"
                      "fixed/plain ratios are emulated, not hardware figures; rows with accel\n"
                      "none (bare metal) or a hardware hypervisor (kvm, ...) are the reference.", True)

    def perf(self):
        c = self.c
        n = 7 if c.have_probe else 6
        self.heading("Performance per kernel: median [min-max]")
        rows = [["key", "kernel", "reg ns/page", "fixed MiB/s", "plain MiB/s", "fixed/plain",
                 "mmap probe max / p99.9 us / calls"][:n]]
        for key, k, cl in self.cells():
            if cl.perf():
                io = [tcg(fmt_range(r), cl.emulated) for r in (cl.fixed, cl.plain, cl.ratio)]
                rows.append([key_label(key), k.label, fmt_range(cl.reg)] + io + [probe_text(cl)][:n - 6])
        self.table_or(rows, "no performance data")
        self.emulated_note()
        if c.nfirst_only:
            self.text(f"reg ns/page: {c.nfirst_only} key(s) have --cycles rows in some files only; for them\n"
                      "the first registrations are compared (a cycles' median is not one).", True)

    def against_base(self):
        c = self.c
        n = 7 if c.have_probe else 6
        b = c.k[c.base].label
        self.heading(f"Against the baseline {b}: kernel / {b} (noise: the [min-max] ranges overlap)")
        rows = [["key", "kernel", "registration pages/s", "fixed MiB/s", "plain MiB/s", "fixed/plain",
                 "mmap probe longest"][:n]]
        for key in c.keys:
            bc = c.cell[key][c.base]
            for i, (k, cl) in enumerate(zip(c.k, c.cell[key])):
                if i == c.base or not cl.perf() or not bc.perf():
                    continue
                # a refusal's time is not a registration's
                reg = "- (results differ)" if bc.res != cl.res else rel(bc.reg, cl.reg, True)
                io = [tcg(rel(x, y), bc.emulated or cl.emulated)
                      for x, y in ((bc.fixed, cl.fixed), (bc.plain, cl.plain), (bc.ratio, cl.ratio))]
                rows.append([key_label(key), k.label, reg] + io + [rel(bc.probe_max, cl.probe_max)][:n - 6])
        self.table_or(rows, "no key with performance data on the baseline and another kernel")
        self.emulated_note()

    def spread(self):
        """Per benchmark figure: the method, median, spread and the registrations behind it."""
        rows = [["key", "kernel", "figure", "method", "median", "spread", "samples"]]
        for key, k, cl in self.cells():
            if cl.res != "0":   # refusals: no registration
                continue
            how = ("instructions" + (f", {cl.tick_us} us turns" if cl.tick_us else "")) if cl.icount \
                else "wall clock"
            for fig, r, samples in (("reg ns/page", cl.reg, cl.reg_samples),
                                    ("stall us", cl.probe_max, cl.probe_samples)):
                if not r:
                    continue
                d = max(r.med - r.min, r.max - r.med)
                sp = "-" if r.med <= 0 else ("+-" if d > 0 else "") + "%.1f%%" % (100 * d / r.med)
                sp += " over repeats" if cl.nrep > 1 else " within the run"
                samples = f"{cl.nrep} repeats, {samples} in all" if cl.nrep > 1 else str(samples)
                rows.append([key_label(key), k.label, fig, how, fmt_num(r.med), sp, samples])
        self.heading("Benchmark figures: method, median, spread, samples")
        self.table_or(rows, "no benchmark figures")
        self.text("instructions: QEMU's -icount, the guest's clock counts executed instructions\n"
                  "(2^shift ns each): a figure does not move with the host's load. stall: the\n"
                  "longest mmap+write+munmap of a sibling thread over one registration.\n"
                  "N us turns: an HPET tick every N us ended QEMU's turns between the vCPUs;\n"
                  "without it a turn lasts to the next guest timer, up to 2 ms.", True)

    def render(self):
        c = self.c
        if self.md:
            self.w(f"{MARK}\n# longpin-compare report\n\nFiles: " +
                   " ".join(f"`{k.path}`" for k in c.k) + ".\n")
        self.files()
        self.defects()
        self.failures()
        self.skipped()
        if len(c.pinners) > 1:
            PinnerSection(self).render()
        self.diffs()
        self.results()
        self.perf()
        if len(c.k) > 1:
            self.against_base()
        if c.have_repeats or c.have_icount:
            self.spread()
        return "".join(self.out)

def tcg(s, emulated):
    """Throughput measured under TCG is the emulator's, not the hardware's."""
    return s + " (tcg)" if emulated and s != "-" else s

def probe_text(cl):
    m = cl.probe_max
    if not m:
        return "-"
    p999 = fmt_num(cl.probe_p999.med if cl.probe_p999 else math.nan)
    calls = "%.0f" % (cl.probe_calls.med if cl.probe_calls else math.nan)
    rng = f" [{fmt_num(m.min)}-{fmt_num(m.max)}]" if m.min < m.max else ""
    return f"{fmt_num(m.med)}{rng} / {p999} / {calls}"

def rel(b, k, inverse=False):
    """@k over @b (@b over @k for times): "x1.31 [1.02-1.60]", "noise" when the ranges overlap."""
    n, d = (b, k) if inverse else (k, b)
    if not b or not k or d.med <= 0 or d.min <= 0:
        return "-"
    m, lo, hi = fmt_num(n.med / d.med), fmt_num(n.min / d.max), fmt_num(n.max / d.min)
    noise = b.min <= k.max and k.min <= b.max
    if lo == hi:    # one value each: nothing to tell noise by
        return f"x{m}" + (" noise" if noise else " (no spread)")
    return f"x{m} [{lo}-{hi}]" + (" noise" if noise else "")


class PinnerSection:
    """"What each long-term pinner gets": per kernel a table memory type (prefault, size) x pinner;
    then where they disagree. register and pin are the read-write pins; pin-ro rows have columns of
    their own, compared among themselves."""

    def __init__(self, rep):
        self.r, self.c = rep, rep.c
        np = len(PINNERS)
        self.slot = {}   # row label -> [key or None per column]
        for key in self.c.keys:
            if key.source != "harness" or key.op not in ("register", "pin", "pin-ro"):
                continue
            col = PINNERS.index(key.pinner) + (np if key.op == "pin-ro" else 0)
            lab = f"{key.memtype} {key.prefault} {fmt_size(key.size)}" + (f" ({key.fs})" if key.fs is not None else "")
            slots = self.slot.setdefault(lab, [None] * 2 * np)
            slots[col] = slots[col] or key

    @staticmethod
    def name(col):
        return PINNERS[col % len(PINNERS)] + (" ro" if col >= len(PINNERS) else "")

    def cell(self, lab, col, i, ran=False):
        """The cell of a row and column on kernel @i; None when not run (or, @ran, skipped)."""
        key = self.slot[lab][col]
        cl = self.c.cell[key][i] if key else None
        return cl if cl and cl.rows and not (ran and cl.skipped) else None

    @staticmethod
    def text(cl):
        """"0", "-REFUSED (FAIL)", "0 (unchecked)": marked unless a pass; "-" not run."""
        if not cl or cl.verdict == "pass":
            return cl.res if cl else "-"
        if cl.verdict in ("fail", "defect", "skip", "unexercised") or "/" in cl.verdict:
            return result_text(cl)
        return f"{cl.res} ({cl.verdict or 'no verdict'})"

    def kernel_table(self, i):
        r, label = self.r, self.c.k[i].label
        used = [col for col in range(2 * len(PINNERS)) if any(self.cell(lab, col, i) for lab in self.slot)]
        if len(used) < 2:   # "only io_uring rows"
            what = f"only {self.name(used[0])} rows" if used else "no register or pin rows"
            r.w(f"\n### {label}\n\n{what[0].upper()}{what[1:]}.\n" if r.md else f"\n  {label}: {what}\n")
            return
        r.w(f"\n### {label}\n\n" if r.md else f"\n  {label}:\n")
        rows = [["memory type"] + [self.name(col) for col in used]]
        rows += [[lab] + [self.text(self.cell(lab, col, i)) for col in used]
                 for lab in self.slot if any(self.cell(lab, col, i) for col in used)]
        r.w(table(rows, r.md))

    @staticmethod
    def outcome(res):
        """0 pinned, 1 refused (any errno, or -REFUSED), 2 partly (-PARTIAL), 3 mixed: compared as text."""
        return 0 if res == "0" else 2 if res == "-PARTIAL" else 1 if res.startswith("-") else 3

    def disagreements(self):
        """"stock: file-shared write 4M: io_uring -EOPNOTSUPP, gup-fast 0, gup 0"."""
        np, out = len(PINNERS), []
        for i, k in enumerate(self.c.k):
            for lab in self.slot:
                for cols in (range(np), range(np, 2 * np)):
                    got = [(self.name(col), cl.res) for col in cols if (cl := self.cell(lab, col, i, True))]
                    if any(self.outcome(res) != self.outcome(got[0][1]) or
                           (self.outcome(res) == 3 and res != got[0][1]) for _, res in got):
                        out.append(f"{k.label}: {lab}: " + ", ".join(f"{n} {res}" for n, res in got))
        return out

    def render(self):
        r = self.r
        r.heading("What each long-term pinner gets")
        r.text("The result of each pinner per memory type, prefault and size (ro: a read-only\n"
               "pin), one table per kernel; a verdict other than pass follows in brackets;\n"
               "-: not run. REFUSED: no page pinned, PARTIAL: some pages pinned, not all.")
        for i in range(len(self.c.k)):
            self.kernel_table(i)
        dis = self.disagreements()
        if r.md:
            r.w(f"\n### Where the pinners disagree\n\n{len(dis)} memory type(s) on some kernel: one pinner "
                "pinned, another refused or pinned part (which errno refused is not compared).\n" +
                ("\n" if dis else ""))
        else:
            r.w(f"\n  Where the pinners disagree: {len(dis)} memory type(s) on some kernel\n"
                "  (pinned, refused or partly pinned; which errno refused is not compared)\n")
        r.w("".join(f"{r.item}{d}\n" for d in dis))


# ---- the verdict grid (verdicts.png): laid out here in pixels ----

ROW_H, SLICE_H, LANE_GAP, BLOCK_GAP, MARGIN = 20, 13, 6, 18, 10
TITLE_Y, CAPTION_Y, HEAD_Y, HEAD_LINE, GRID_Y, MIN_W = 14, 36, 52, 12, 84, 760
# the colours, in the legend's order: name, fill, text colour, what the legend says
COLOURS = [("fail", "#212121", "white", "FAIL"), ("lost", "#8d6e63", "white", "known defect"),
           ("0", "#66bb6a", "black", "0"), ("EOPNOTSUPP", "#ffa726", "black", "EOPNOTSUPP"),
           ("EFAULT", "#ef5350", "black", "EFAULT"), ("EINVAL", "#ab47bc", "black", "EINVAL"),
           ("REFUSED", "#26a69a", "black", "REFUSED"), ("PARTIAL", "#f48fb1", "black", "PARTIAL"),
           ("mixed", "#fff176", "black", "mixed"), ("other", "#42a5f5", "black", "other errno"),
           ("unexercised", "#b2ebf2", "black", "unexercised (proves nothing)"),
           ("skip", "#cfd8dc", "black", "skip (did not run)"),
           ("n/a", "#ffffff", "#757575", "n/a (refused by that kernel)"),
           ("missing", "#bdbdbd", "black", "missing (other kernels have it)"),
           ("not run", "#f0f0f0", "black", "not run")]
FILL = {n: (f, t) for n, f, t, _ in COLOURS}
CAPTIONS = ["register / pin", "read-only pin", "lifetime", "other ops", "other tools"]
NOTES = ("Colour and text: the answer, 0 or the errno; FAIL (near black) and a known defect (brown) colour "
         "a cell whatever it answered. Marks after the answer: FAIL, LOST (data lost), LEAK (pins leaked), "
         "? unchecked (no contract row), fixed (the known defect did not show), unexercised (the pages "
         "never left memory). skip: the case did not run (the report says why); n/a: that kernel refused "
         "the memory type, so the case does not apply; missing: other kernels have the row, this one has "
         "not. A cell is sliced only where its keys differ: n r w = prefault none, read, write (or the "
         "size, or the job). A column per kernel and pinner that ran; light grey: none of its keys has "
         "that memory type.")

def text_w(s, pt=9):
    """Pixels @s takes at most in DejaVu Sans at 8 or 9 pt (96 dpi)."""
    w = sum((85 if pt >= 9 else 72) if "A" <= ch <= "Z" else 35 if ch == " " else (68 if pt >= 9 else 60)
            for ch in s)
    return (w + 9) // 10

def block_of(k):
    if k.source != "harness":
        return 4
    return 0 if k.op in ("register", "pin") else 1 if k.op == "pin-ro" else 2 \
        if k.op.startswith("lifetime-") else 3

def cell_text(cl):
    """"0", "EOPNOTSUPP", "EIO LOST", "0/EFAULT pass/fail": the answer without minus signs, the verdict."""
    s = re.sub(r"(^|[/ ])-", r"\1", cl.res[6:] if cl.res.startswith("mixed ") else cl.res)
    v = cl.verdict
    mark = "" if v in ("", "pass") else {"fail": "FAIL", "unchecked": "?",
                                         "defect": "LEAK" if cl.pin_defect else "LOST"}.get(v, v)
    return f"{s} {mark}" if mark else s


class Grid:
    """A row per memory type (and file system, where the keys split by it); a
    column per kernel and lane, a lane being what pinned: io_uring's register,
    a gup pinner's pin or pin-ro, a lifetime case, a tool's jobs (fio). The
    kernels of a lane stand side by side. A cell folds the keys of its type,
    lane and kernel (prefaults, sizes, jobs) into one where they agree, and is
    sliced, each slice labelled (n r w: the prefault), only where they differ."""

    def __init__(self, c):
        self.c = c
        rows, lanes, tseq = {}, {}, {}   # (memtype, fs) -> seq; (block, pinner, op) -> seq; memtype -> key
        for i, key in enumerate(c.keys):
            tseq.setdefault(key.memtype, i)
        for pins in (True, False):   # the pins' rows first: they split by file system
            for key in c.keys:
                if (block_of(key) <= 1) == pins:
                    rows.setdefault(self.row_of(key, rows) or (key.memtype, key.fs), len(rows))
                    lanes.setdefault(self.lane_of(key), len(lanes))
        self.rows = sorted(rows, key=lambda r: (tseq[r[0]], rows[r]))
        lanes = sorted(lanes, key=lambda ln: (ln[0], ln[1], lanes[ln]))
        self.keys = {}   # (row, lane) -> keys
        for key in c.keys:
            self.keys.setdefault((self.row_of(key, rows), self.lane_of(key)), []).append(key)
        self.cols = [(ln, i) for ln in lanes for i in range(len(c.k))
                     if any(c.cell[key][i].rows for (_, kl), keys in self.keys.items() if kl == ln
                            for key in keys)]

    def row_of(self, key, rows):
        """A key's row; one not split by fs_type: its type's without one, or else its first row's fs."""
        for r in ((key.memtype, key.fs), (key.memtype, self.c.first_fs[key]) if key.fs is None else None):
            if r in rows:
                return r
        return None

    @staticmethod
    def lane_of(key):
        b = block_of(key)
        return (b, PINNERS.index(key.pinner), key.source if b == 4 else key.op)

    def colour(self, key, i):
        c, cl = self.c, self.c.cell[key][i]
        if not cl.rows or cl.skipped:
            gc = "n/a" if c.not_applicable(key, i) else "skip" if cl.rows else "missing"
            return gc, gc
        v = cl.verdict
        gc = "fail" if "fail" in v or cl.leak_kb else "lost" if "defect" in v else "fail" if cl.ncorrupt \
            else "unexercised" if "unexercised" in v else cl.res.lstrip("-") \
            if cl.res in ("0", "-EOPNOTSUPP", "-EFAULT", "-EINVAL", "-REFUSED", "-PARTIAL") \
            else "mixed" if cl.res.startswith("mixed") else "other"
        return gc, cell_text(cl)

    @staticmethod
    def field(key, f):
        """Field @f of a key as a slice's label shows it: "n", "16M", "randread-nullb", "xfs"."""
        return [{"none": "n", "read": "r", "write": "w"}.get(key.prefault, key.prefault),
                fmt_size(key.size), key.op, key.fs or "-"][f]

    def parts(self, r, col):
        """The slices of a cell: [(colour, text)]; one if its keys agree, none if the lane has no key
        of that type. Sliced: one per outcome, labelled by the keys that had it ("n w: 0")."""
        keys = self.keys.get((r, col[0]), [])
        p = [self.colour(key, col[1]) for key in keys]
        if len(set(p)) <= 1:
            return p[:1]
        fields = []   # the fields that tell the keys apart, as few as will do
        for f in range(4):
            if any(self.field(a, f) != self.field(b, f) and
                   all(self.field(a, g) == self.field(b, g) for g in fields)
                   for i, a in enumerate(keys) for b in keys[:i]):
                fields.append(f)
        labels = {}
        for key, part in zip(keys, p):
            labels.setdefault(part, []).extend(self.field(key, f) for f in fields)
        return [(gc, f"{' '.join(labels[(gc, t)])}: {t}") for gc, t in labels]

    def head(self, col):
        (block, pinner, op), i = col
        return [self.c.k[i].label, PINNERS[pinner], op[9:] if block == 2 else op]

    def caption(self, cols):
        block, srcs = cols[0][0][0], uniq(col[0][2] for col in cols)
        return f"{srcs[0]} jobs" if block == 4 and len(srcs) == 1 else CAPTIONS[block]

    def layout(self):
        """Pixel geometry: self.x, self.cw per column, self.y, self.rh per row, the blocks."""
        self.row_label = [f"{m} ({fs})" if fs is not None else m for m, fs in self.rows]
        self.label_w = max([text_w(s) for s in self.row_label] + [0]) + MARGIN + 8
        self.cw, self.rh, self.cell_parts = [], [ROW_H] * len(self.rows), {}
        for col in self.cols:
            w = max(text_w(s) for s in self.head(col))
            for ri, r in enumerate(self.rows):
                p = self.cell_parts[ri, col] = self.parts(r, col)
                w = max([w] + [text_w(t, 8) for _, t in p])
                self.rh[ri] = max(self.rh[ri], len(p) * SLICE_H)
            self.cw.append(w + 10)
        starts = [i for i, col in enumerate(self.cols) if not i or col[0][0] != self.cols[i - 1][0][0]]
        self.blocks = list(zip(starts, starts[1:] + [len(self.cols)]))   # [first, end) of each block of columns
        for a, b in self.blocks:   # widen the columns of a block narrower than its caption
            need = text_w(self.caption(self.cols[a:b])) + 8 - sum(self.cw[a:b])
            if need > 0:
                self.cw[a:b] = [w - (-need // (b - a)) for w in self.cw[a:b]]
        x, self.x = self.label_w, []
        for i, col in enumerate(self.cols):   # lanes apart, blocks further apart
            prev = self.cols[i - 1][0] if i else col[0]
            x += BLOCK_GAP if col[0][0] != prev[0] else LANE_GAP if col[0] != prev else 0
            self.x.append(x)
            x += self.cw[i]
        self.width = max(MIN_W, x + MARGIN)
        self.y = [GRID_Y + sum(self.rh[:i]) for i in range(len(self.rh))]
        self.bottom = GRID_Y + sum(self.rh)
        # the legend's swatches, flowing over lines; then the notes, word-wrapped
        self.legend, lx, ly = [], MARGIN, self.bottom + 18
        gup = any(p != DEFAULT_PINNER for p in self.c.pinners)   # REFUSED and PARTIAL are gup's answers
        for name, _, _, what in (x for x in COLOURS if gup or x[0] not in ("REFUSED", "PARTIAL")):
            w = 18 + text_w(what) + 14
            if lx + w > self.width - MARGIN and lx > MARGIN:
                lx, ly = MARGIN, ly + 18
            self.legend.append((lx, ly, name, what))
            lx += w
        y, self.notes, line = ly + 20, [], ""
        for word in NOTES.split():
            if line and text_w(line) + text_w(word) + 4 > self.width - 2 * MARGIN:
                self.notes.append((y, line))
                y, line = y + 15, ""
            line = f"{line} {word}" if line else word
        self.notes.append((y, line))
        self.height = y + 15 + 4

    def draw(self, d, plt):
        self.layout()
        fig, ax = plt.canvas(self.width, self.height)
        ax.set_xlim(0, self.width)
        ax.set_ylim(self.height, 0)
        boxes, side = [], [TXT_MARK + ": what verdicts.png shows, tab-separated",
                           f"size\t{self.width}\t{self.height}"]

        def box(x, y, w, h, gc):
            boxes.append((plt.Rectangle((x + 0.5, y + 0.5), w - 1, h - 1), FILL[gc][0],
                          "#bdbdbd" if gc == "n/a" else "none"))

        def text(x, y, s, ha="center", pt=9, colour="black"):
            ax.text(x, y, s, ha=ha, va="center", fontsize=pt, color=colour, parse_math=False)

        text(self.width / 2, TITLE_Y, "Verdicts: memory type (rows) by kernel and pinner (columns)", pt=11)
        for (a, b) in self.blocks:
            cap = self.caption(self.cols[a:b])
            text((self.x[a] + self.x[b - 1] + self.cw[b - 1]) / 2, CAPTION_Y, cap)
            side.append(f"caption\t{cap}")
        for i, col in enumerate(self.cols):
            for j, s in enumerate(self.head(col)):
                text(self.x[i] + self.cw[i] / 2, HEAD_Y + j * HEAD_LINE, s)
            side.append("column\t" + "\t".join(self.head(col)))
        for ri, lab in enumerate(self.row_label):
            text(self.label_w - 6, self.y[ri] + self.rh[ri] / 2 + 1, lab, "right")
            side.append(f"row\t{lab}")
        for ri in range(len(self.rows)):
            for i, col in enumerate(self.cols):
                p = self.cell_parts[ri, col] or [("not run", "")]
                h = self.rh[ri] / len(p)
                for s, (gc, t) in enumerate(p):
                    y = self.y[ri] + h * s
                    box(self.x[i], y, self.cw[i], h, gc)
                    text(self.x[i] + self.cw[i] / 2, y + h / 2, t, pt=8, colour=FILL[gc][1])
                    lane = self.head(col)
                    side.append(f"cell\t{self.row_label[ri]}\t{lane[0]}\t{lane[1]} {col[0][2]}\t{t}\t{gc}")
        for x, y, name, what in self.legend:
            box(x, y - 6, 12, 12, name)
            text(x + 16, y, what, "left")
            side.append(f"legend\t{name}\t{what}\t{FILL[name][0]}")
        for y, line in self.notes:
            text(MARGIN, y, line, "left")
        ax.add_collection(plt.PatchCollection([b[0] for b in boxes], facecolors=[b[1] for b in boxes],
                                              edgecolors=[b[2] for b in boxes], linewidths=0.5))
        return plt.save(fig, d, "verdicts", side)


# ---- the other plots ----

class Plots:
    """matplotlib (Agg) for --plots: each NAME.png with its data in NAME.txt."""
    NAMES = ("verdicts", "reg", "ratio", "reg-size", "stall-size")

    def __init__(self):
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.collections import PatchCollection
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle
        self.Figure, self.Canvas = Figure, FigureCanvasAgg
        self.Rectangle, self.PatchCollection = Rectangle, PatchCollection

    def canvas(self, w, h, axes=False):
        """A figure of @w x @h pixels (96 dpi) and its axes: all of it, or (@axes) laid out."""
        fig = self.Figure(figsize=((w + 0.01) / 96, (h + 0.01) / 96), dpi=96,
                          layout="constrained" if axes else None)
        self.Canvas(fig)
        if axes:
            return fig, fig.add_subplot()
        ax = fig.add_axes([0, 0, 1, 1])
        ax.axis("off")
        return fig, ax

    @staticmethod
    def save(fig, d, name, side):
        png = io.BytesIO()
        fig.savefig(png, format="png", metadata={"Software": PROG})
        put_file(d / f"{name}.png", png.getvalue(), "--plots")
        put_file(d / f"{name}.txt", ("\n".join(side) + "\n").encode(), "--plots")
        return name

    def chart_done(self, fig, ax, d, name, title, ylabel, series):
        """A chart's title, labels, legend; its data beside it, a line per point."""
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
        return self.save(fig, d, name, [f"{TXT_MARK}: the data of {name}.png, tab-separated",
                                        "x\tseries\tmedian\tmin\tmax"] +
                         [f"{x}\t{t}\t{r.med:g}\t{r.min:g}\t{r.max:g}" for t, pts in series for x, r in pts])

    def bars(self, c, d, ratio):
        """Registration ns/page or (@ratio) fixed/plain of the written registrations, a group per key."""
        name = "ratio" if ratio else "reg"
        groups = []
        for key in c.keys:
            if key.source != "harness" or key.prefault != "write" or not key.op.startswith("register"):
                continue
            cls = c.cell[key]
            if ratio:
                vals = [cl.ratio for cl in cls]
            else:
                vals = [cl.reg if cl.res == "0" and cl.reg and cl.reg.med > 0 else None for cl in cls]
                vals = [v._replace(min=v.med) if v and v.min <= 0 else v for v in vals]
            if any(cl.ratio if ratio else cl.reg and cl.res == "0" for cl in cls):
                groups.append((key_label(key, False), vals))
        if not groups:
            return None
        nf = len(c.k)
        fig, ax = self.canvas(max(640, 300 + len(groups) * (30 + 14 * nf)), 540, True)
        w, series = 1 / (nf + 1), []
        for i, k in enumerate(c.k):
            title = f"{k.label} (tcg: emulated)" if ratio and "tcg" in k.accel else k.label
            pts = [(g, (j, v[i])) for j, (g, v) in enumerate(groups) if v[i]]
            ax.bar([j + (i - (nf - 1) / 2) * w for _, (j, _) in pts], [v.med for _, (_, v) in pts], w,
                   yerr=[[v.med - v.min for _, (_, v) in pts], [v.max - v.med for _, (_, v) in pts]],
                   label=title, color=f"C{i}", alpha=0.7, edgecolor="black", linewidth=0.5, capsize=2)
            series.append((title, [(g, v) for g, (_, v) in pts]))
        ax.set_xticks(range(len(groups)), [g for g, _ in groups], rotation=-35, ha="left",
                      rotation_mode="anchor")
        if ratio:
            ax.set_ylim(bottom=0)
            ax.axhline(1, color="grey", linestyle="--", linewidth=1)
        else:
            ax.set_yscale("log")
        ax.grid(axis="y", alpha=0.5)
        return self.chart_done(fig, ax, d, name, ("Fixed / plain read MiB/s" if ratio else
                                                  "Registration ns per 4 KiB page (registered rows only)") +
                               "\nprefault write; median, error bars min-max",
                               "READ_FIXED / READ" if ratio else "ns per page (log)", series)

    def by_size(self, c, d, stall):
        """Registration ns/page or (@stall) the sibling's longest call against the size of written (and
        untouched) anon buffers, log-log; only where a line has two sizes or more."""
        name = "stall-size" if stall else "reg-size"
        op = "register-mmap-probe" if stall else "register"
        series = []
        for pf in ("write", "none") if stall else ("write",):
            keys = sorted((k for k in c.keys if k.source == "harness" and k.memtype == "anon" and k.op == op
                           and k.prefault == pf and k.fs is None), key=lambda k: num(k.size) or 0)
            for i, kern in enumerate(c.k):
                pts = [((num(key.size) or 0) / 1048576, r) for key in keys
                       if c.cell[key][i].res == "0" and (r := c.cell[key][i].probe_max if stall
                                                         else c.cell[key][i].reg) and r.med > 0]
                title = kern.label + ((" written" if pf == "write" else " untouched") if stall else "")
                series.append((title, [(x, r._replace(min=r.med) if r.min <= 0 else r) for x, r in pts], i, pf))
        if max([len(s[1]) for s in series] + [0]) < 2:
            return None
        fig, ax = self.canvas(900, 560, True)
        for title, pts, i, pf in series:
            if pts:
                ax.errorbar([x for x, _ in pts], [r.med for _, r in pts],
                            yerr=[[r.med - r.min for _, r in pts], [r.max - r.med for _, r in pts]],
                            fmt="-o" if pf == "write" else "--s", color=f"C{i}", label=title, capsize=2)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ticks = [4, 8, 16, 32, 64, 128, 256, 512, 1024]
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.set_xlabel("buffer MiB (log)")
        ax.grid(alpha=0.5)
        method = "guest instructions (QEMU -icount)" if c.have_icount else "wall clock"
        return self.chart_done(fig, ax, d, name, ("Longest mmap+write+munmap of a sibling thread per "
                                                  "registration" if stall else "Registration ns per 4 KiB "
                                                  "page, written anonymous memory") +
                               f"\n{method}; median, error bars min-max" + (" over repeats" if c.have_repeats else ""),
                               ("stall us" if stall else "ns per page") + " (log)",
                               [(t, [(f"{x:g}", r) for x, r in p]) for t, p, _, _ in series])

    def write(self, c, d):
        made = [Grid(c).draw(d, self)] if c.keys else []
        made += [n for n in (self.bars(c, d, False), self.bars(c, d, True),
                             self.by_size(c, d, False), self.by_size(c, d, True)) if n]
        for n in self.NAMES:   # our own plots of an earlier run that have no data now
            for p in (d / f"{n}.png", d / f"{n}.txt"):
                if n not in made and p.is_file() and own_file(p):
                    p.unlink()
        return made


# ---- output safety: never an input, never a file longpin-compare did not write ----
#
# An output is written only where nothing is, or over a regular file that
# longpin-compare wrote and nobody changed since: the report's first line
# is MARK and its last SUM_LINE, the sha256 of every byte before that
# line. Nothing but a regular file is ever replaced, --force or not: a
# path is looked at with lstat() and opened O_NONBLOCK, so a FIFO or a
# device is named, never read, written or renamed over.

SUM_LINE = "<!-- longpin-compare sha256 {} -->\n"
SUM_RE = re.compile(rb"<!-- longpin-compare sha256 ([0-9a-f]{64}) -->\n\Z")

def kind_of(mode):
    """What a file that is not a regular one is, for a message."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"

def real_target(p, what):
    """@p with its symlinks followed: (path, lstat or None when nothing is there); raises Usage
    when @p is, or points to, anything but a regular file or nothing at all."""
    p = Path(p)
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return p, None
    except OSError as e:
        raise Usage(f"{what} {p}: {e.strerror}: give the path of a new or regular file")
    if not stat.S_ISLNK(st.st_mode):
        if not stat.S_ISREG(st.st_mode):
            raise Usage(f"{what} {p} is {kind_of(st.st_mode)}: give the path of a new or regular file")
        return p, st
    r = Path(os.path.realpath(p))
    try:
        st = os.lstat(r)
    except FileNotFoundError:
        raise Usage(f"{what} {p} points to nothing ({os.readlink(p)}): give the path of a new or regular file")
    if not stat.S_ISREG(st.st_mode):
        raise Usage(f"{what} {p} points to {r}, which is {kind_of(st.st_mode)}: "
                    "give the path of a new or regular file")
    return r, st

def read_regular(p, limit=1 << 30):
    """The bytes of @p when it is a regular file (opened O_NONBLOCK|O_NOFOLLOW, never
    waiting on a FIFO), else None."""
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        return f.read()

def report_sealed(data):
    """Whether @data is a report exactly as longpin-compare wrote it: its mark first, the
    checksum of the rest last."""
    m = SUM_RE.search(data)
    return (data.startswith(MARK.encode() + b"\n") and m is not None and
            hashlib.sha256(data[:m.start()]).hexdigest() == m.group(1).decode())

def own_file(p):
    """Whether longpin-compare wrote @p, a regular file: a sidecar by its first line, a PNG by a text chunk."""
    data = read_regular(p)
    if data is None:
        return False
    if data.startswith(b"\x89PNG\r\n\x1a\n"):   # its tEXt chunk (length, type, text) before the image
        text = b"Software\0" + PROG.encode()
        return len(text).to_bytes(4, "big") + b"tEXt" + text in data[:data.find(b"IDAT")]
    return data.startswith(TXT_MARK.encode()) or report_sealed(data)

def same_file(a, b):
    return os.path.exists(a) and os.path.exists(b) and os.path.samefile(a, b)

def check_report(a, inputs):
    """The report's path, refused unless new, or (--force, or its own unedited) a regular file."""
    r = Path(a.report)
    if any(same_file(r, p) for p in inputs):
        raise Usage(f"--report {r} is one of the input files: give the report a path of its own")
    real, st = real_target(r, "--report")
    if st is None or a.force:
        return
    data = read_regular(real)
    if data is not None and report_sealed(data):
        return
    if data is not None and data.startswith(MARK.encode() + b"\n"):
        if SUM_RE.search(data):
            raise Usage(f"--report {r} was written by {PROG} and edited since (its checksum differs): "
                        "give a new path, or --force to overwrite it")
        raise Usage(f"--report {r} carries no checksum of what {PROG} wrote (edited, or an older "
                    f"{PROG}'s): give a new path, or --force to overwrite it")
    raise Usage(f"--report {r} exists and {PROG} did not write it: give a new path, "
                "or --force to overwrite it")

def check_outputs(a, inputs):
    """Refuse an output that is an input, that is not a regular file, or that holds what
    longpin-compare did not write (but --force)."""
    if a.report:
        check_report(a, inputs)
    if a.plots:
        d = Path(a.plots)
        for p in [d] + [d / f"{n}.{e}" for n in Plots.NAMES for e in ("png", "txt")]:
            if any(same_file(p, q) for q in inputs):
                raise Usage(f"--plots {d}: {p} is one of the input files: give the plots a directory of their own")
        if d.exists() and not d.is_dir():
            raise Usage(f"--plots {d} is not a directory: give a new or empty directory")
        if not d.is_dir():
            return
        for p in sorted(d.iterdir()):
            mode = os.lstat(p).st_mode
            ours = p.name in {f"{n}.{e}" for n in Plots.NAMES for e in ("png", "txt")}
            if ours and not stat.S_ISREG(mode):
                raise Usage(f"--plots {d} holds {p.name}, which is "
                            f"{'a symlink' if stat.S_ISLNK(mode) else kind_of(mode)}: "
                            "give a new or empty directory")
            if not a.force and (not stat.S_ISREG(mode) or not own_file(p)):
                raise Usage(f"--plots {d} holds {p.name}, which {PROG} did not write: give a new or empty "
                            "directory, or --force to write beside it")

def put_file(path, data, what):
    """All or nothing: @data into a temporary file beside @path, then linked to a new @path
    (never over something that appeared meanwhile) or renamed over the regular file it is."""
    path, tmp = Path(path), None
    real, st = real_target(path, what)
    try:
        fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        if st is None:
            os.link(tmp, real)
            os.unlink(tmp)
        else:
            now = os.lstat(real)
            if not stat.S_ISREG(now.st_mode) or now.st_ino != st.st_ino:
                raise Usage(f"{what} {path} changed while {PROG} ran: run it again")
            os.replace(tmp, real)
        tmp = None
    except OSError as e:
        if e.errno == errno.EEXIST:
            raise Usage(f"{what} {path} appeared while {PROG} ran: run it again")
        raise Usage(f"{path}: {e.strerror}: give a writable path")
    finally:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)

def write_report(path, text):
    """The report, its checksum as its last line."""
    body = text.encode()
    if not body.endswith(b"\n"):
        body += b"\n"
    put_file(path, body + SUM_LINE.format(hashlib.sha256(body).hexdigest()).encode(), "--report")


# ---- main ----

class Parser(argparse.ArgumentParser):
    def error(self, message):
        message = re.sub(r"^argument (--[a-z]+)/\S+ expected one argument", r"\1 needs a value", message)
        raise Usage(f"{message.replace('unrecognized arguments:', 'unknown option')}: {PROG} --help")

def kernels_of(paths, repeats):
    """The kernels: a file each or (--repeats) the files of one basename, in the order of the first."""
    if not repeats:
        if not 2 <= len(paths) <= MAX_FILES:
            raise Usage(f"give 2 to {MAX_FILES} CSV files (got {len(paths)}): {PROG} --help")
        return [Kernel(p, [p]) for p in paths]
    kernels = {}
    for p in paths:
        k = kernels.setdefault(Kernel(p).label, Kernel(p))
        if len(kernels) > MAX_FILES:
            raise Usage(f"--repeats: more than {MAX_FILES} kernels: give fewer files")
        if len(k.paths) == MAX_REPEATS:
            raise Usage(f"--repeats: more than {MAX_REPEATS} files of kernel {k.label}: give fewer repeats")
        k.paths.append(p)
    if len(kernels) < 2:
        raise Usage(f"--repeats: give files of 2 kernels or more (got {len(kernels)}): {PROG} --help")
    return list(kernels.values())

def main(argv):
    ap = Parser(prog=PROG, add_help=False)
    for opt in ("report", "plots", "baseline"):
        ap.add_argument(f"--{opt}", f"-{opt[0]}")
    for opt in ("--repeats", "--force", "--help/-h"):
        ap.add_argument(*opt.split("/"), action="store_true")
    ap.add_argument("files", nargs="*")
    a = ap.parse_intermixed_args(argv)
    if a.help:
        sys.stdout.write(USAGE)
        return 0
    kernels = kernels_of(a.files, a.repeats)
    plt = None
    if a.plots:
        try:
            plt = Plots()
        except ImportError as e:
            raise Usage(f"--plots needs matplotlib ({e}): apt-get install python3-matplotlib, "
                        "or leave --plots out")
    check_outputs(a, a.files)
    for i, k in enumerate(kernels):
        k.load(kernels[0] if i else None)
    unique_labels(kernels)
    c = Compare(kernels, a.baseline)
    sys.stdout.write(f"{PROG}: {len(kernels)} kernels, {len(c.keys)} keys, baseline {kernels[c.base].label}\n")
    sys.stdout.write(Report(c, False).render())
    if a.report:
        write_report(a.report, Report(c, True).render())
    if plt:
        d = Path(a.plots)
        try:
            d.mkdir(exist_ok=True)
            made = plt.write(c, d)
        except OSError as e:
            raise Usage(f"{e.filename or d}: {e.strerror}: give a writable --plots directory")
        sys.stdout.write(f"\nplots in {d}:" + "".join(f" {n}.png" for n in made) +
                         ("" if made else " nothing to plot (no rows)") + "\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Usage as e:
        sys.stdout.flush()
        print(f"{PROG}: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        # one line, as for bad input; a file being written is not put in place
        print(f"{PROG}: interrupted: a report or plot it was writing is not in place", file=sys.stderr)
        sys.exit(130)
