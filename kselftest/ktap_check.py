#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks KTAP output with the kernel's own parser, kunit.py parse.

ktap_check.py --kunit DIR kselftest FILE [--not-ok RE] [--want-not-ok NAME]...
    FILE is what run_kselftest.sh printed. kunit.py parses the whole (the
    runner's TAP: one line per test program) and each program's own KTAP
    (its lines, which the runner prefixes with "# ", as a file of their
    own: kunit.py strips the prefix of a version line's indentation).
ktap_check.py --kunit DIR documents FILE...
    FILE holds KTAP documents one after the other, with other lines
    between them (./run.sh's raw/LANE.log: the guest's "# phase" headers,
    longpin-vm's stage lines); each document, from its version line to
    the last result its plan announces, is parsed alone.

Every line of a document must be one kunit.py knows: a version line, the
plan (right after the version line), a result line or a "#" diagnostic.
kunit.py must report no error and find as many results as the plan says,
numbered from 1; a SKIP must give its reason. --not-ok RE: every "not ok"
case's name matches RE (none may fail otherwise); --want-not-ok NAME: that
case must be "not ok". Prints what it found; exit 0 when all holds, 1 when
not, 2 on bad input. DIR is tools/testing/kunit of a kernel source tree.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

STAGE = re.compile(r'^\[\d\d:\d\d:\d\d \+[0-9.]+s\] ')


class Checker:
    def __init__(self, kunit_dir):
        self.kunit = os.path.join(kunit_dir, 'kunit.py')
        if not os.path.isfile(self.kunit):
            sys.exit(f'ktap_check: no kunit.py in {kunit_dir}')
        sys.path.insert(0, kunit_dir)
        import kunit_parser  # the kernel's own line formats
        self.kp = kunit_parser
        self.errors = []
        self.cases = []   # (document, name, status, directive text)

    def err(self, where, msg):
        self.errors.append(f'{where}: {msg}')

    def kind(self, line):
        """The KTAP line kind of line (no indentation), or None."""
        kp = self.kp
        if kp.KTAP_START.match(line) or kp.TAP_START.match(line):
            return 'version'
        if kp.TEST_PLAN.match(line):
            return 'plan'
        if kp.TEST_RESULT.match(line):
            return 'result'
        if line.startswith('#'):
            return 'diagnostic'
        return None

    def parse(self, where, lines):
        """kunit.py parse on lines: its JSON, the errors it printed."""
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, 'in.ktap')
            out = os.path.join(tmp, 'out.json')
            with open(src, 'w') as f:
                f.write('\n'.join(lines) + '\n')
            try:
                p = subprocess.run([sys.executable, self.kunit, 'parse',
                                    '--json=' + out, src],
                                   capture_output=True, text=True, timeout=60)
            except subprocess.TimeoutExpired:
                self.err(where, 'kunit.py parse did not finish in 60 s '
                         '(it loops on a plan after the results)')
                return None
            for l in p.stdout.splitlines():
                if '[ERROR]' in l:
                    self.err(where, 'kunit.py: ' + l.split('[ERROR]', 1)[1].strip())
            if not os.path.exists(out):
                self.err(where, 'kunit.py wrote no JSON: ' + p.stderr.strip()[-300:])
                return None
            with open(out) as f:
                return json.load(f)

    def document(self, where, lines, prefix='', reasons=True):
        """Checks one KTAP document (lines without the prefix)."""
        kp = self.kp
        body = [l[len(prefix):] if l.startswith(prefix) else l for l in lines]
        if not body or self.kind(body[0]) != 'version':
            self.err(where, 'does not start with a KTAP version line')
            return
        plan = None
        results = []
        for i, l in enumerate(body):
            k = self.kind(l)
            if k is None:
                self.err(where, f'line {i + 1} is not KTAP: {l[:100]!r}')
            elif k == 'version' and i:
                self.err(where, f'line {i + 1}: a second version line')
            elif k == 'plan':
                if i != 1:
                    self.err(where, f'line {i + 1}: the plan is not right after the version line')
                plan = int(kp.TEST_PLAN.match(l).group(1))
            elif k == 'result':
                results.append(l)
        if plan is None:
            self.err(where, 'no plan')
        elif plan != len(results):
            self.err(where, f'a plan of {plan} and {len(results)} results')
        for n, l in enumerate(results, 1):
            m = kp.TEST_RESULT.match(l)
            if int(m.group(2)) != n:
                self.err(where, f'result {n} is numbered {m.group(2)}')
            s = kp.TEST_RESULT_SKIP.match(l)
            if reasons and s and not s.group(5).strip():
                self.err(where, f'a skip without its reason: {l}')
        tree = self.parse(where, [prefix + l for l in body])
        if tree is None:
            return
        parsed = tree['test_cases']
        if len(parsed) != len(results) or tree['sub_groups']:
            self.err(where, f'kunit.py found {len(parsed)} cases and '
                     f'{len(tree["sub_groups"])} groups for {len(results)} result lines')
        for l, c in zip(results, parsed):
            m = kp.TEST_RESULT.match(l)
            s = kp.TEST_RESULT_SKIP.match(l)
            name = (s.group(4) if s else m.group(4)).strip()
            want = 'SKIP' if s else 'PASS' if m.group(1) == 'ok' else 'FAIL'
            if c['name'].strip() != name or c['status'] != want:
                self.err(where, f'kunit.py read {c["name"]!r} {c["status"]} '
                         f'from {l!r}')
            self.cases.append((where, name, want, (m.group(5) or '').strip()[1:].strip()))

    def kselftest(self, path):
        with open(path, errors='backslashreplace') as f:
            lines = f.read().splitlines()
        # the runner's TAP, whole: its lines, and each program's output
        # prefixed with "# " (diagnostics to it)
        # (the runner's own skips give no reason: that is kselftest's)
        self.document(path, lines, reasons=False)
        runner = [c for c in self.cases if c[0] == path]
        self.cases = [c for c in self.cases if c[0] != path]
        # each program's output: between its "# selftests: C: T" header
        # and its result line
        head = re.compile(r'^# selftests: (\S+): (\S+)$')
        i = 0
        programs = 0
        while i < len(lines):
            m = head.match(lines[i])
            if not m:
                i += 1
                continue
            name = m.group(2)
            j = i + 1
            while j < len(lines) and lines[j].startswith('#'):
                j += 1
            inner = lines[i + 1:j]
            start = next((k for k, l in enumerate(inner)
                          if l.startswith('# ') and self.kind(l[2:]) == 'version'), None)
            programs += 1
            if start is None:
                self.err(name, 'printed no KTAP')
            else:
                for l in inner[:start]:
                    if l != '#' and not l.startswith('# timeout'):
                        self.err(name, f'output before its version line: {l[:100]!r}')
                self.document(name, inner[start:], prefix='# ')
            i = j
        if programs == 0:
            self.err(path, 'no test program ran')
        return runner

    def documents(self, path):
        with open(path, errors='backslashreplace') as f:
            lines = f.read().splitlines()
        i = 0
        ndoc = 0
        while i < len(lines):
            l = lines[i]
            if self.kind(l) == 'version':
                ndoc += 1
                j = i + 1
                want = None
                got = 0
                doc = [l]
                while j < len(lines):
                    k = self.kind(lines[j])
                    if k == 'version' or (want is not None and got == want):
                        break
                    if STAGE.match(lines[j]):   # the host's, between
                        j += 1
                        continue
                    if k == 'plan' and want is None:
                        want = int(self.kp.TEST_PLAN.match(lines[j]).group(1))
                    if k == 'result':
                        got += 1
                    doc.append(lines[j])
                    j += 1
                self.document(f'{path} document {ndoc} (line {i + 1})', doc)
                i = j
                continue
            k = self.kind(l)
            if l and k != 'diagnostic' and not STAGE.match(l):
                self.err(f'{path} line {i + 1}', f'outside any KTAP document: {l[:100]!r}')
            i += 1
        return ndoc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--kunit', required=True, help='tools/testing/kunit of a kernel tree')
    ap.add_argument('mode', choices=['kselftest', 'documents'])
    ap.add_argument('files', nargs='+')
    ap.add_argument('--not-ok', help='every not ok case matches this regex')
    ap.add_argument('--want-not-ok', action='append', default=[],
                    help='this case must be not ok')
    a = ap.parse_args()
    c = Checker(a.kunit)
    for f in a.files:
        if not os.path.isfile(f):
            print(f'ktap_check: no file {f}', file=sys.stderr)
            return 2
        if a.mode == 'kselftest':
            for w, n, s, d in c.kselftest(f):
                print(f'{s:4} {n}{" # " + d if d else ""}')
        else:
            print(f'{f}: {c.documents(f)} KTAP documents')
    bad = [x for x in c.cases if x[2] == 'FAIL']
    counts = {s: sum(1 for x in c.cases if x[2] == s) for s in ('PASS', 'FAIL', 'SKIP')}
    print(f'kunit.py parsed {len(c.cases)} cases: {counts["PASS"]} ok, '
          f'{counts["FAIL"]} not ok, {counts["SKIP"]} skipped')
    for w, n, s, d in bad:
        print(f'not ok: {w}: {n}{" # " + d if d else ""}')
    if a.not_ok is not None:
        for w, n, s, d in bad:
            if not re.search(a.not_ok, n):
                c.err(w, f'{n} is not ok, and only cases matching {a.not_ok!r} may be')
    elif a.mode == 'kselftest' and bad:
        c.err('kselftest', f'{len(bad)} cases not ok')
    for want in a.want_not_ok:
        if not any(n == want for w, n, s, d in bad):
            c.err('kselftest', f'{want} is not "not ok"')
    for e in c.errors:
        print('ERROR ' + e)
    return 1 if c.errors else 0


if __name__ == '__main__':
    sys.exit(main())
