#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""summary.py RUN_DIR: the last lines of ./run.sh, from the CSVs of a run.

Per kernel: the verdicts counted (pass, fail, defect, fixed, unexercised,
skip, unchecked) and the skips by reason; the data-loss rows (a reclaim or
lazyfree row reading "defect": what the device wrote is gone after the
unpin, with how many pages left memory); and, where RUN_DIR/bench/ holds
two or more kernels' benchmarks, the 64 MiB figures of each against the
first (stock):
registration ns (instructions under -icount) per page, written and
untouched, of a freshly faulted buffer's first registration and, beside
it, of the same buffer registered again; each registration's stall
beside the prober, written and
untouched, the ratio of each, a stall at the instrument's floor given as a
bound. Reads the CSVs with Python's csv module; prints plain text.
"""
import csv
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

VERDICTS = ("pass", "fail", "defect", "fixed", "unexercised", "skip", "unchecked")
LOSS_OPS = ("lifetime-reclaim", "lifetime-reclaim-pinned", "lifetime-lazyfree")


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def verdicts(label, rs):
    c = Counter(r["verdict"] for r in rs)
    out = [f"{label}: " + ", ".join(f"{c[v]} {v}" for v in VERDICTS if c[v])
           + "".join(f", {n} {v}" for v, n in c.items() if v not in VERDICTS)]
    skips = Counter(r["note"] for r in rs if r["verdict"] == "skip")
    for why, n in skips.most_common():
        out.append(f"  skipped {n} x: {why}")
    loss = [r for r in rs if r["op"] in LOSS_OPS and r["verdict"] == "defect"]
    for r in loss:
        out.append(f"  data lost: {r['op'][9:]} {r['memtype']} {r['prefault']}: "
                   f"{r.get('pages_out', '-')} pages left memory, {r.get('pages_intact', '-')} came back whole")
    bad = [r for r in rs if r["verdict"] in ("fail", "fixed")]
    for r in bad[:10]:
        out.append(f"  {r['verdict']}: {r['op']} {r['pinner']} {r['memtype']} {r['prefault']}: {r['note'][:160]}")
    return out


def repro(run, label, rs):
    """kernel-patches/mainline's test in this kernel's guest, against the kernel's own rows: a case
    must fail where the row of the same experiment reads defect, and pass where it reads pass"""
    path = run / "raw" / f"repro-{label}.txt"
    if not path.exists():
        return [], True
    text = path.read_text()
    out, ok = [], True
    fails = 0
    for case, op, mem, pf in (("shmem", "lifetime-reclaim", "memfd", "read"),
                              ("madvfree", "lifetime-lazyfree", "anon", "write"),
                              ("shmem-odirect", "lifetime-reclaim", "memfd", "read"),
                              ("madvfree-odirect", "lifetime-lazyfree", "anon", "write")):
        line = next((l for l in text.splitlines() if l.startswith(case + ": ")), None)
        row = next((r for r in rs if r["op"] == op and r["memtype"] == mem and r["prefault"] == pf), None)
        if not line or not row:
            continue
        got = line.split(": ")[1]
        fails += got == "FAIL"
        want = {"defect": "FAIL", "pass": "PASS"}.get(row["verdict"])
        agree = want is None or got == want
        ok &= agree
        out.append(f"  fixed-buf-unpin-dirty {line[:100]}; "
                   f"{op[9:]} {mem} {pf} reads {row['verdict']}: {'agrees' if agree else 'DISAGREES'}")
    # the same test under liburing's runtests.sh: it fails where a case failed alone
    rt = run / "raw" / f"repro-runtests-{label}.txt"
    if rt.exists():
        lines = rt.read_text().splitlines()
        verdict = next((l for l in reversed(lines) if l.startswith(("Tests failed", "All tests passed"))),
                       next((l for l in lines if l.startswith("SKIP")), "no verdict line"))
        code = next((l[5:] for l in reversed(lines) if l.startswith("exit ")), "?")
        agree = code == ("1" if fails else "0")
        ok &= agree or verdict.startswith("SKIP")
        out.append(f"  under liburing's runtests.sh: {verdict[:100]} (exit {code}): "
                   f"{'agrees' if agree else 'skipped' if verdict.startswith('SKIP') else 'DISAGREES'}")
    return out, ok


def fig(rs, op, pf, size, col):
    vals = [num(r[col]) for r in rs if r["op"] == op and r["prefault"] == pf
            and r["size"] == str(size) and r["memtype"] == "anon" and num(r[col]) is not None]
    return statistics.median(vals) if vals else None


def stall(rs, pf, size):
    """median, min, max of each registration's stall (schema 4), else of the rows' longest call"""
    sel = [r for r in rs if r["op"] == "register-mmap-probe" and r["prefault"] == pf
           and r["size"] == str(size) and r["memtype"] == "anon"]
    med = [num(r.get("stall_us_med")) for r in sel if num(r.get("stall_us_med")) is not None]
    if med:
        return (statistics.median(med), min(num(r["stall_us_min"]) for r in sel),
                max(num(r["stall_us_max"]) for r in sel))
    m = [num(r["probe_max_us"]) for r in sel if num(r["probe_max_us"]) is not None]
    return (statistics.median(m), min(m), max(m)) if m else None


def cost_table(bdir, k):
    """kernel k's per-page figures of the cost model (bench/cost-K.txt), by phase, or None"""
    path = Path(bdir) / f"cost-{k}.txt"
    if not path.exists():
        return None
    t = {}
    for line in path.read_text().splitlines():
        for phase in ("registration", "unregistration", "whole cycle"):
            f = line[len(phase):].split()
            if line.startswith(phase + " ") and len(f) == 10 and num(f[0]) is not None:
                t[phase] = dict(zip(("insns", "atomics", "loads", "stores", "l1", "l2", "llc", "walks",
                                     "cycles", "ns"), map(float, f)))
    return t


def cost(bdir, a, b):
    """the cost model's per-page figures of kernels a and b"""
    ta, tb = cost_table(bdir, a), cost_table(bdir, b)
    if not ta or not tb:
        return []
    out = [f"cost model, 64 MiB written, per page (bench/cost-K.txt: instructions / atomics / L2 misses / "
           f"modelled cycles; {b} against {a}):"]
    for ph in ("registration", "unregistration", "whole cycle"):
        x, y = ta.get(ph), tb.get(ph)
        if x and y:
            out.append(f"  {ph}: {a} {x['insns']:.1f} / {x['atomics']:.2f} / {x['l2']:.2f} / {x['cycles']:.1f}, "
                       f"{b} {y['insns']:.1f} / {y['atomics']:.2f} / {y['l2']:.2f} / {y['cycles']:.1f}: "
                       f"x{x['insns'] / y['insns']:.2f} in instructions, x{x['cycles'] / y['cycles']:.2f} in modelled cycles")
    return out


def native(bdir, a):
    """the hardware anchor (bench/native.csv) beside the model's figures of kernel a"""
    nat, ta = Path(bdir) / "native.csv", cost_table(bdir, a)
    out = []
    if nat.exists() and ta:
        rs = rows(nat)
        # each process registers a freshly written buffer first, then again
        first = [num(r["reg_ns_per_page"]) for r in rs if num(r["reg_ns_per_page"]) is not None]
        reg = [num(r["cycle_reg_ns_med"]) for r in rs if num(r["cycle_reg_ns_med"]) is not None]
        unreg = [num(r["unreg_ns_per_page"]) for r in rs if num(r["unreg_ns_per_page"]) is not None]
        if first and reg and unreg:
            f, r, u = statistics.median(first), statistics.median(reg), statistics.median(unreg)
            out.append(f"  native, this machine's {rs[0]['kernel']} (no VM, {len(reg)} processes): registration "
                       f"first {f:.1f} ns [{min(first):.1f}-{max(first):.1f}], repeated {r:.1f} ns "
                       f"[{min(reg):.1f}-{max(reg):.1f}], whole repeated cycle {r + u:.1f} ns; the model's "
                       f"{a} (repeated): {ta['registration']['ns']:.1f} and {ta['whole cycle']['ns']:.1f} ns")
    return out


def free(rs, pf, size):
    """the prober's calls outside the registrations of the stall row: median, p99 (schema 4)"""
    sel = [r for r in rs if r["op"] == "register-mmap-probe" and r["prefault"] == pf
           and r["size"] == str(size) and r["memtype"] == "anon" and num(r.get("probe_free_med_us")) is not None]
    return (statistics.median(num(r["probe_free_med_us"]) for r in sel),
            max(num(r["probe_free_p99_us"]) for r in sel)) if sel else None


def bench(bdir):
    csvs = sorted(Path(bdir).glob("*.csv"))
    # every other kernel of the run against the first (stock)
    order = [p.stem for p in csvs if p.stem != "native"]
    names = sys.argv[2].split(",") if len(sys.argv) > 2 else order
    have = [n for n in names if n in order]
    if len(have) < 2:
        return []
    out = []
    for b in have[1:]:
        out += against(bdir, have[0], b)
    return out + native(bdir, have[0])


def against(bdir, a, b):
    """kernel b's 64 MiB benchmarks and cost model against kernel a's"""
    ra, rb = rows(Path(bdir) / f"{a}.csv"), rows(Path(bdir) / f"{b}.csv")
    accel = ra[0].get("accel", "") if ra else ""
    unit = "instructions" if "icount" in accel else "ns"
    size = 64 << 20
    out = [f"benchmarks, 64 MiB anon ({accel}; {unit} per 4 KiB page, {b} against {a}):"]
    # first: a freshly faulted buffer's first registration, as an application
    # makes it (reg_ns_per_page; a --cycles row's is its first pin); then
    # the same buffer registered again (the cycles' median), where measured
    for pf, what in (("write", "written"), ("none", "untouched")):
        x, y = (fig(r, "register", pf, size, "reg_ns_per_page") for r in (ra, rb))
        if not (x and y):
            continue
        line = f"  registration, {what}: first {a} {x:.1f}, {b} {y:.1f}: x{x / y:.2f} fewer"
        x, y = (fig(r, "register", pf, size, "cycle_reg_ns_med") for r in (ra, rb))
        if x and y:
            line += f"; repeated {a} {x:.1f}, {b} {y:.1f}: x{x / y:.2f} fewer"
        out.append(line)
    for pf, what in (("write", "written"), ("none", "untouched")):
        sa, sb = stall(ra, pf, size), stall(rb, pf, size)
        if not (sa and sb):
            continue
        floor = free(rb, pf, size)
        line = (f"  stall, {what}: {a} {sa[0]:.1f} us [{sa[1]:.1f}-{sa[2]:.1f}], "
                f"{b} {sb[0]:.1f} us [{sb[1]:.1f}-{sb[2]:.1f}]: ")
        if floor and sb[0] <= floor[1]:
            line += (f"<= x{sb[0] / sa[0]:.4f}, at the instrument's floor (the prober's calls "
                     f"outside the registrations: {floor[0]:.1f} us, p99 {floor[1]:.1f})")
        else:
            line += f"x{sb[0] / sa[0]:.4f}"
            if floor:
                line += f" (the instrument's floor: {floor[0]:.1f} us, p99 {floor[1]:.1f})"
        out.append(line)
    return out + cost(bdir, a, b)


def main():
    if len(sys.argv) < 2 or not Path(sys.argv[1]).is_dir():
        sys.exit("usage: summary.py RUN_DIR [KERNEL,KERNEL...]: a directory of ./run.sh")
    run = Path(sys.argv[1])
    lines = []
    names = sys.argv[2].split(",") if len(sys.argv) > 2 else None
    csvs = sorted(p for p in run.glob("*.csv") if not p.name.startswith("torture-"))
    if names:
        csvs = [run / f"{n}.csv" for n in names if (run / f"{n}.csv").exists()]
    agree = True
    for p in csvs:
        rs = rows(p)
        lines += verdicts(p.stem, rs)
        more, ok = repro(run, p.stem, rs)
        lines += more
        agree &= ok
    for p in sorted(run.glob("torture-*.csv")):
        c = Counter(r["verdict"] for r in rows(p))
        lines.append(f"{p.stem}: " + ", ".join(f"{n} {v}" for v, n in sorted(c.items())))
    if (run / "bench").is_dir():
        lines += bench(run / "bench")
    print("\n".join(lines))
    sys.exit(0 if agree else 1)


main()
