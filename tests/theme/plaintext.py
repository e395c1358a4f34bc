#!/usr/bin/python3
"""No doubled formula anywhere (issue 33): builds the example site and a
site whose notes put formulas where plain text is made from them — the
first paragraph (description, feed summaries, search), a sentence that
cites a paper (/papers/<key>/), next to a footnote mark — and checks every
file of the output (the search page's texts, search/text/G-K.json, too): a formula's MathML text followed by its TeX (what tag
stripping gives, "kn=8192kn = 8192") is never there, and the plain texts
hold the TeX once.

usage: plaintext.py path/to/sheaf
"""
import html
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BIB = """@article{smith2020,
  author = {Smith, Ann and Jones, Bo},
  title = {Sparse Sums},
  journal = {J. Sums},
  year = {2020}
}
"""

POST = """---
title: Sums
date: 2024-05-01
description_not_set: true
---

Each step sums $kn = 8192$ values and $\\mathbb{R}^d$ vectors[^1].

A sparse sum of $g_1, \\dots, g_n$ is cheaper, as $x^2 + y^2$ shows [@smith2020].

[^1]: A footnote with $\\alpha + \\beta$.
"""


def formulas(text):
    """(MathML text, TeX) of every formula in an HTML page."""
    out = []
    for m in re.finditer(r"<math\b.*?</math>", text, re.S):
        tex = re.search(r'<annotation encoding="application/x-tex">(.*?)</annotation>', m.group(0), re.S)
        if not tex:
            continue
        shown = re.sub(r"<annotation\b.*?</annotation>", "", m.group(0), flags=re.S)
        shown = html.unescape(re.sub(r"<[^>]*>", "", shown))
        out.append((shown, html.unescape(tex.group(1))))
    return out


def readable(path):
    """The file's text with HTML/XML references and JSON escapes undone."""
    raw = open(path, encoding="utf-8", errors="replace").read()
    texts = [raw, html.unescape(raw)]
    if path.endswith(".json"):
        try:
            texts.append(json.dumps(json.loads(raw), ensure_ascii=False))
        except ValueError:
            pass
    return texts


def check_site(sheaf, site, out, failures):
    r = subprocess.run([sheaf, "build", "-o", out], cwd=site, capture_output=True, text=True)
    if r.returncode:
        failures.append(f"{site}: build failed: {r.stderr}")
        return []
    pairs = set()
    files = []
    for d, _, fs in os.walk(out):
        for f in fs:
            p = os.path.join(d, f)
            if f.endswith((".html", ".xml", ".json")):
                files.append(p)
                if f.endswith(".html"):
                    pairs.update(formulas(open(p, encoding="utf-8").read()))
    # a pair whose doubling is a word anywhere ("n" + "n") tells nothing
    pairs = {(s, t) for s, t in pairs if s != t and len(s + t) >= 6}
    if not pairs:
        failures.append(f"{site}: no formula found: the check checks nothing")
    for p in files:
        for text in readable(p):
            for s, t in pairs:
                for doubled in (s + t, s + " " + t):
                    if doubled in text:
                        failures.append(f"{os.path.relpath(p, out)}: doubled formula {doubled!r}")
    return files


def main(argv):
    sheaf = os.path.abspath(argv[1])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        check_site(sheaf, ROOT, os.path.join(tmp, "example"), failures)

        site = os.path.join(tmp, "site")
        os.makedirs(os.path.join(site, "content", "posts"))
        with open(os.path.join(site, "site.yaml"), "w") as f:
            f.write("title: T\nbase_url: https://example.org/\nbibliography: refs.bib\n")
        with open(os.path.join(site, "refs.bib"), "w") as f:
            f.write(BIB)
        with open(os.path.join(site, "content", "posts", "2024-05-01-sums.md"), "w") as f:
            f.write(POST)
        out = os.path.join(tmp, "out")
        check_site(sheaf, site, out, failures)

        def want(rel, needle):
            path = os.path.join(out, rel)
            if not os.path.exists(path):
                failures.append(f"{rel}: missing")
                return
            if not any(needle in t for t in readable(path)):
                failures.append(f"{rel}: no {needle!r}")

        # the description and feed summaries: the TeX once, no footnote mark
        want("posts/sums/index.html",
             '<meta property="og:description" content="Each step sums kn = 8192 values and '
             '\\mathbb{R}^d vectors.')
        want("feed.json", '"summary": "Each step sums kn = 8192 values and \\\\mathbb{R}^d vectors."')
        # the citing sentence on the paper's page
        want("papers/smith2020/index.html",
             "“A sparse sum of g_1, \\dots, g_n is cheaper, as x^2 + y^2 shows (Smith and Jones 2020).”")
        # the search index's text
        want("search/seg/0.json", "Each step sums kn = 8192 values")
        # the text the search page cuts its snippets from (search/text/G-K.json):
        # each formula's TeX once, the citation as shown, no footnote mark,
        # the footnote's own text
        try:
            texts = json.load(open(os.path.join(out, "search", "text", "0-0.json"), encoding="utf-8"))
        except (OSError, ValueError) as e:
            texts = []
            failures.append(f"search/text/0-0.json: {e}")
        text = texts[0] if texts and isinstance(texts[0], str) else ""
        for needle in ("Each step sums kn = 8192 values and \\mathbb{R}^d vectors. ",
                       "A sparse sum of g_1, \\dots, g_n is cheaper, as x^2 + y^2 shows (Smith and Jones 2020).",
                       "A footnote with \\alpha + \\beta."):
            if needle not in text:
                failures.append(f"search/text/0-0.json: no {needle!r} in {text!r}")
    for f in failures:
        print("FAIL:", f)
    print(f"plaintext: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
