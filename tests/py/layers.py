#!/usr/bin/env python3
"""layers.py SRCDIR OBJDIR: the harness stays layered. From the symbols
each object of harness/ defines and uses (nm), a file refers to another
when it uses a function or table the other defines. No file may refer,
directly or through others, back to itself (a circle); no folder may
either (cli/ above the modes above pinners/ and mem/ above core/); and
core/ refers to nothing outside it; and every symbol an object exports
(a function or table another file could use) carries the project's
prefix, lp_ (LP_ for constants), so that longpin's names never meet a
library's. Prints each breach; exit 1 if any."""
import subprocess
import sys
from collections import defaultdict
from pathlib import Path


PREFIXES = ("lp_", "LP_")


def graph(src, objdir):
    defs, uses = {}, defaultdict(set)
    for o in Path(objdir).rglob("*.c.o"):
        rel = str(o).split("/harness/", 1)
        if len(rel) < 2 or not (Path(src) / "harness" / rel[1][:-2]).exists():
            continue        # not the harness's, or its source is gone
        f = rel[1][:-4]
        for line in subprocess.run(["nm", str(o)], capture_output=True, text=True,
                                   check=True).stdout.splitlines():
            p = line.split()
            if len(p) == 2 and p[0] == "U":
                uses[f].add(p[1])
            elif len(p) == 3 and p[1] in "TDRBCVWG":
                defs[p[2]] = f
        uses.setdefault(f, set())
    edges = defaultdict(dict)
    for f, syms in uses.items():
        for s in sorted(syms):
            d = defs.get(s)
            if d and d != f:
                edges[f].setdefault(d, s)
    return sorted(uses), edges, defs


def circles(nodes, edges):
    """strongly connected sets of more than one node (Tarjan, iterative)"""
    index, low, on, stack, out, n = {}, {}, set(), [], [], 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(edges.get(root, {})))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    c = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        c.append(x)
                        if x == v:
                            break
                    if len(c) > 1:
                        out.append(sorted(c))
            elif w not in index:
                index[w] = low[w] = n
                n += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(edges.get(w, {}))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: layers.py SRCDIR OBJDIR")
    files, edges, defs = graph(sys.argv[1], sys.argv[2])
    if not files:
        sys.exit(f"no objects of harness/ under {sys.argv[2]}: build first")
    bad = []
    for c in circles(files, edges):
        bad.append("a circle of files: " + " ".join(c) + ": " +
                   "; ".join(f"{a} -> {b} ({edges[a][b]})" for a in c for b in edges[a] if b in c))
    top = lambda f: f.split("/")[0]
    fedges = defaultdict(dict)
    for a in files:
        for b, s in edges[a].items():
            if top(a) != top(b):
                fedges[top(a)].setdefault(top(b), f"{a} -> {b} ({s})")
    for c in circles(sorted({top(f) for f in files}), fedges):
        bad.append("a circle of folders: " + " ".join(c) + ": " +
                   "; ".join(fedges[a][b] for a in c for b in fedges[a] if b in c))
    for b, why in fedges.get("core", {}).items():
        bad.append(f"core/ refers to {b}/: {why}")
    for sym, f in sorted(defs.items()):
        if not sym.startswith(PREFIXES) and sym != "main":
            bad.append(f"{f} exports {sym} without the prefix lp_: make it static or name it lp_{sym}")
    for b in bad:
        print(b)
    print(f"{len(files)} files, {sum(len(e) for e in edges.values())} references, "
          f"{len(defs)} exported symbols, {len(bad)} breaches")
    sys.exit(1 if bad else 0)


main()
