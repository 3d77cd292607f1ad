#!/usr/bin/env python3
"""mutate.py: the mutation lists of the judges (tests/mutate/run.sh).

A list is a file NAME.mutations beside the code it mutates (harness/,
compare/): lines "KEY VALUE", "#" comments, blank lines between blocks.

  file FILE             the file the mutations change, beside the list
  tests REGEX           the ctest tests that must catch them (ctest -R)
  build TARGET...       what to rebuild after a change (default: longpin)
  mutation NAME         a mutation; the lines after it until the next:
    from TEXT           the text it changes: found exactly once in FILE
    to TEXT             what it becomes
    tests REGEX         its own tests, instead of the list's
    equivalent REASON   no test can catch it: why (it must survive)

Commands, on a copy of the repository at ROOT (LIST: a list's path in
it; default: every *.mutations under ROOT):
  mutate.py list ROOT [LIST...]       one line per mutation, tab-separated:
                                      ID FILE TESTS BUILD EQUIVALENT ("-":
                                      none), FILE relative to ROOT
  mutate.py apply ROOT ID [LIST...]   change ROOT/FILE as mutation ID says;
                                      exit 2 unless FROM is found once
  mutate.py check ROOT [LIST...]      that every FROM is found once (no
                                      file is changed)
Exit 2 with one line on a malformed list.
"""
import os
import sys


class Bad(Exception):
    pass


def parse(path):
    """The mutations of one list: dicts with id, file, tests, build, from, to, equivalent."""
    base = os.path.basename(path)
    if not base.endswith(".mutations"):
        raise Bad(f"{path}: a list is named NAME.mutations")
    stem = base[:-len(".mutations")]
    head = {"file": None, "tests": None, "build": "longpin"}
    muts, cur = [], None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            key, _, val = line.strip().partition(" ")
            val = val.strip()
            if not val:
                raise Bad(f"{path}:{n}: '{key}' without a value")
            if key == "mutation":
                cur = {"name": val, "line": n, "from": None, "to": None,
                       "tests": None, "equivalent": None}
                muts.append(cur)
            elif cur is None and key in ("file", "tests", "build"):
                head[key] = val
            elif cur is not None and key in ("from", "to", "tests", "equivalent"):
                if cur[key] is not None:
                    raise Bad(f"{path}:{n}: a second '{key}' in mutation {cur['name']}")
                # "to" keeps the text as written after one space (it may
                # end in spaces); "from" likewise
                cur[key] = line.strip()[len(key) + 1:] if key in ("from", "to") else val
            else:
                raise Bad(f"{path}:{n}: unknown line '{key}'")
    if not head["file"]:
        raise Bad(f"{path}: no 'file' line")
    names = set()
    for m in muts:
        for k in ("from", "to"):
            if m[k] is None:
                raise Bad(f"{path}:{m['line']}: mutation {m['name']} has no '{k}'")
        if m["from"] == m["to"]:
            raise Bad(f"{path}:{m['line']}: mutation {m['name']} changes nothing")
        if not (m["tests"] or head["tests"]):
            raise Bad(f"{path}:{m['line']}: mutation {m['name']} has no tests")
        if m["name"] in names:
            raise Bad(f"{path}:{m['line']}: a second mutation {m['name']}")
        names.add(m["name"])
        m["id"] = f"{stem}/{m['name']}"
        m["file"] = os.path.normpath(os.path.join(os.path.dirname(path), head["file"]))
        m["tests"] = m["tests"] or head["tests"]
        m["build"] = head["build"]
    return muts


def lists_of(root):
    """Every *.mutations under @root, outside build and hidden directories."""
    found = []
    for d, subdirs, files in os.walk(root):
        subdirs[:] = sorted(x for x in subdirs if not x.startswith((".", "build")) and x != "results")
        found += [os.path.relpath(os.path.join(d, f), root) for f in sorted(files) if f.endswith(".mutations")]
    return found


def load(root, lists):
    muts = []
    for rel in lists or lists_of(root):
        for m in parse(os.path.join(root, rel)):
            m["file"] = os.path.relpath(m["file"], root)
            muts.append(m)
    return muts


def mutated(root, m):
    """The text of m's file with m applied."""
    with open(os.path.join(root, m["file"]), encoding="utf-8") as f:
        text = f.read()
    n = text.count(m["from"])
    if n != 1:
        raise Bad(f"{m['id']}: '{m['from']}' is in {m['file']} {n} times, not once: correct the list")
    return text.replace(m["from"], m["to"])


def apply(root, m):
    text = mutated(root, m)
    with open(os.path.join(root, m["file"]), "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    if len(argv) >= 2 and argv[0] == "list":
        for m in load(argv[1], argv[2:]):
            print("\t".join([m["id"], m["file"], m["tests"], m["build"],
                             m["equivalent"] or "-"]))
        return 0
    if len(argv) >= 2 and argv[0] == "check":
        muts = load(argv[1], argv[2:])
        for m in muts:
            mutated(argv[1], m)
        print(f"{len(muts)} mutations, each found once")
        return 0
    if len(argv) >= 3 and argv[0] == "apply":
        found = [m for m in load(argv[1], argv[3:]) if m["id"] == argv[2]]
        if len(found) != 1:
            raise Bad(f"no mutation {argv[2]} in the lists")
        apply(argv[1], found[0])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (Bad, OSError) as e:
        print(f"mutate.py: {e}", file=sys.stderr)
        sys.exit(2)
