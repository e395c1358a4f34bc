#!/usr/bin/python3
"""Error messages of sheaf's template engine.

Each tests/tpl/errors/<name>.html is rendered with `sheaf render` (variables
from <name>.yaml when present; templates it names live beside it, named _*).
It must exit with status 1 and its first line on stderr must be the first
line of <name>.err, where "DIR/" stands for the errors folder.

usage: errors.py SHEAF [NAME...]
"""
import os
import subprocess
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "errors")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    sheaf = argv[1]
    names = argv[2:] or sorted(f[:-5] for f in os.listdir(HERE)
                               if f.endswith(".html") and not f.startswith("_"))
    failed = 0
    for name in names:
        with open(os.path.join(HERE, name + ".err"), encoding="utf-8") as f:
            want = f.readline().rstrip("\n").replace("DIR/", HERE + "/")
        cmd = [sheaf, "render", os.path.join(HERE, name + ".html"), "--templates", HERE]
        data = os.path.join(HERE, name + ".yaml")
        if os.path.exists(data):
            cmd += ["--data", data]
        p = subprocess.run(cmd, capture_output=True, timeout=30)
        lines = p.stderr.decode("utf-8", errors="replace").splitlines()
        got = lines[0] if lines else ""
        if p.returncode != 1 or got != want:
            failed += 1
            print(f"FAIL {name}: exit {p.returncode}\n  want: {want}\n  got:  {got}")
            if p.stdout:
                print(f"  stdout: {p.stdout[:200]!r}")
    print(f"{len(names) - failed}/{len(names)} error cases as expected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
