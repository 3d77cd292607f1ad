#!/usr/bin/env python3
"""docs_check.py CHECK REPO [LONGPIN]: the docs describe the present.

  history   no commit of this repository and no results/ run-id in
            README.md or docs/*.md outside a link target or a table cell (a
            figure cites its run in a table or a link whose text says which
            run; history stays in git)
  readme    README.md's first 30 lines say what longpin is and give the two
            commands (./run.sh, ./test.sh) with what each gives
  stale     every "N/M" patch number in README.md, docs/ and
            kernel-patches/README.md names a series of M patches that has a
            patch N; every pinner of harness/pinners/pinners.def is named in
            docs/harness.md's pinner column, the README's layout row and
            `longpin --help` (LONGPIN: the binary)
  results   results/ keeps reference runs only: at most 6 runs and 8 MB,
            each cited by README.md, a page of docs/ or a cover letter

Prints each problem on a line; exit 1 if any, else 0.
"""
import re
import subprocess
import sys
from pathlib import Path

HEX = re.compile(r"(?<![\w/.#-])[0-9a-f]{7,40}(?![\w/.-])")
RUNID = re.compile(r"(?<![\w-])20\d{6}-\d{6}(?:-[\w.-]+)?")
LINK = re.compile(r"\[[^\]]*\]\([^)]*\)")


def pages(repo):
    return [repo / "README.md"] + sorted((repo / "docs").glob("*.md"))


def prose(path, spans=False):
    """(line number, text) of the lines outside fenced code and tables:
    links and code spans cut out, or with @spans only links' targets"""
    code = False
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("```"):
            code = not code
            continue
        if code or line.lstrip().startswith("|"):
            continue
        if spans:	# a run-id in a link's text or a code span is prose too
            yield i, re.sub(r"\]\([^)]*\)", "]()", line)
        else:
            yield i, re.sub(r"`[^`]*`", "``", LINK.sub("[]()", line))


def ours(repo, tok):
    """is @tok a commit of this repository (not an upstream kernel commit a changelog cites)?"""
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "-q", tok + "^{commit}"],
                          capture_output=True).returncode == 0


def history(repo):
    bad = []
    for p in pages(repo):
        for i, line in prose(p):
            for m in HEX.finditer(line):
                tok = m.group(0)
                if re.search(r"[0-9]", tok) and re.search(r"[a-f]", tok) and ours(repo, tok):
                    bad.append(f"{p.relative_to(repo)}:{i}: a commit of this repository in prose: {tok}")
        for i, line in prose(p, spans=True):
            for m in RUNID.finditer(line):
                bad.append(f"{p.relative_to(repo)}:{i}: a run-id in prose: {m.group(0)} (cite it in a link or a table)")
    return bad


def readme(repo):
    head = "\n".join((repo / "README.md").read_text().splitlines()[:30])
    bad = []
    for cmd in ("./run.sh", "./test.sh"):
        if cmd not in head:
            bad.append(f"README.md: {cmd} is not in the first 30 lines")
    if "long-term" not in head.lower() and "foll_longterm" not in head.lower():
        bad.append("README.md: the first 30 lines do not say what longpin is (long-term pins)")
    return bad


def series_counts(repo):
    counts = {}
    for s in (repo / "kernel-patches").glob("*/series"):
        n = sum(1 for l in s.read_text().splitlines() if l.strip() and not l.lstrip().startswith("#"))
        counts.setdefault(n, []).append(s.parent.name)
    return counts


def stale(repo, longpin):
    bad = []
    counts = series_counts(repo)
    docs = pages(repo) + [repo / "kernel-patches" / "README.md"]
    for p in docs:
        for i, line in enumerate(p.read_text().splitlines(), 1):
            # "1/20 of stock" is a fraction, not a patch number
            for m in re.finditer(r"(?<![\w/.-])(\d{1,2})/(\d{1,2})(?![\w/.-])(?! of stock)", line):
                n, tot = int(m.group(1)), int(m.group(2))
                if tot < 2 or tot > 40 or n > tot or n == 0:
                    continue
                if tot not in counts:
                    bad.append(f"{p.relative_to(repo)}:{i}: patch {n}/{tot}: no series has {tot} patches "
                               f"(series sizes: {sorted(counts)})")
    pinners = re.findall(r'LP_PINNER\(\w+, "([^"]+)"', (repo / "harness/pinners/pinners.def").read_text())
    harness = (repo / "docs/harness.md").read_text()
    row = next((l for l in harness.splitlines() if l.startswith("| `pinner`")), "")
    layout = next((l for l in (repo / "README.md").read_text().splitlines() if l.startswith("| `harness/`")), "")
    helptext = subprocess.run([longpin, "--help"], capture_output=True, text=True).stdout if longpin else ""
    for p in pinners:
        if f"`{p}`" not in row:
            bad.append(f"docs/harness.md: the pinner column's row does not name `{p}`")
        if p not in layout:
            bad.append(f"README.md: the layout row of harness/ does not name the pinner {p}")
        if longpin and p.replace("-fast", "") not in helptext and p not in helptext:
            bad.append(f"longpin --help does not name the pinner {p}")
    return bad


def results(repo):
    runs = sorted(d for d in (repo / "results").iterdir() if d.is_dir())
    bad = []
    if len(runs) > 6:
        bad.append(f"results/: {len(runs)} runs, at most 6: git rm the ones nothing cites")
    size = sum(f.stat().st_size for d in runs for f in d.rglob("*") if f.is_file())
    if size > 8 * 1024 * 1024:
        bad.append(f"results/: {size / 1048576:.1f} MB, at most 8 MB")
    citing = pages(repo) + sorted((repo / "kernel-patches").glob("*/0000-cover-letter.patch"))
    text = "\n".join(p.read_text() for p in citing)
    for d in runs:
        if d.name not in text:
            bad.append(f"results/{d.name}: cited by no README, docs/ page or cover letter")
    return bad


def main():
    checks = ("history", "readme", "stale", "results")
    if len(sys.argv) < 3 or sys.argv[1] not in checks:
        sys.exit("usage: docs_check.py " + "|".join(checks) + " REPO [LONGPIN]")
    repo = Path(sys.argv[2])
    check = sys.argv[1]
    bad = {"history": lambda: history(repo), "readme": lambda: readme(repo),
           "stale": lambda: stale(repo, sys.argv[3] if len(sys.argv) > 3 else None),
           "results": lambda: results(repo)}[check]()
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


main()
