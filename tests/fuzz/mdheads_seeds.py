#!/usr/bin/env python3
"""Makes fuzz_mdheads's seeds: the values of the entries of heads (kind
page-heads, site/mdcache.c) that builds of fixtures of tests/sites
and of the example site write, each named by its hash.

usage: tests/fuzz/mdheads_seeds.py path/to/sheaf OUT
  e.g. tests/fuzz/mdheads_seeds.py build/sheaf tests/fuzz/corpus/mdheads
(run from the top of the source tree; each site is built in a copy; a
fixture whose build fails is said and skipped)."""
import glob
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile

# headings, links, images, citations (BibTeX, CSL, CSL-JSON), labels and
# cross-page links, shortcodes, formulas, notebooks, search
SITES = ["example", "basic", "links", "images", "citations", "csl-page", "csljson", "xref",
         "shortcodes", "math", "notebooks", "i18n"]
EXAMPLE = ["content", "site.yaml", "refs.bib", "templates"]


def main():
    sheaf, out = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="sheaf-mdheads-seeds-")
    env = dict(os.environ, NO_COLOR="1")
    env.pop("SHEAF_CACHE_MAX", None)
    n = 0
    for name in SITES:
        site = os.path.join(tmp, name)
        if name == "example":  # the repository's own, as tests/sites/example takes it
            os.makedirs(site)
            for f in EXAMPLE:
                (shutil.copytree if os.path.isdir(f) else shutil.copy)(f, os.path.join(site, f))
        else:
            shutil.copytree(os.path.join("tests/sites", name, "site"), site, symlinks=True,
                            ignore=shutil.ignore_patterns(".sheaf-cache", "public"))
        r = subprocess.run([sheaf, "build", "-q", "-s", site], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            print("%s: the build failed, skipped:\n%s" % (name, r.stderr), file=sys.stderr)
            continue
        for path in glob.glob(os.path.join(site, ".sheaf-cache", "v1", "page-heads", "*", "*")):
            with open(path, "rb") as fh:
                data = fh.read()
            if data[:4] != b"SHC2":
                continue
            klen, vlen = struct.unpack("<II", data[4:12])
            value = data[12 + 32 + klen:]
            if len(value) != vlen:
                continue
            with open(os.path.join(out, hashlib.sha256(value).hexdigest()[:16]), "wb") as fh:
                fh.write(value)
            n += 1
    shutil.rmtree(tmp)
    print("%d entries of heads written to %s" % (n, out))


if __name__ == "__main__":
    main()
