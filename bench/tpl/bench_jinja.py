#!/usr/bin/python3
"""Renders bench/tpl/templates with Jinja2 3.1 and the same data as
bench_tpl.c (a post page: extends, includes, a loop over 20 tags, ten
filters; an index page of 10,000 posts), prints renders per second, and,
given the bench_tpl binary, runs it too, checks that both engines wrote the
same bytes and prints the ratio.

usage: bench_jinja.py [BENCH_TPL_BINARY]
"""
import datetime as dt
import os
import re
import subprocess
import sys
import tempfile
import time
import unicodedata

import jinja2

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(HERE, "templates")
EPOCH = 1704067200
TZ = dt.timezone(dt.timedelta(hours=8))
SUMMARY = ("Gradient compression, model parallelism and in-network aggregation: what the papers "
           "measured, what they assumed about the network, and which of the results still hold when "
           "stragglers and fragmented GPU clusters enter the picture. 分布式训练研究 & notes.")
BASE_PATH = "/notes/"


def f_date(d, fmt):
    out, i = [], 0
    while i < len(fmt):
        if fmt[i] == "%" and i + 2 < len(fmt) and fmt[i + 1] == "-":
            out.append(d.strftime("%" + fmt[i + 2]).lstrip("0") or "0")
            i += 3
        elif fmt[i] == "%" and i + 1 < len(fmt):
            out.append(d.strftime(fmt[i:i + 2]))
            i += 2
        else:
            out.append(fmt[i])
            i += 1
    return "".join(out)


def f_slugify(s):
    out, dash = [], False
    for ch in str(s).lower():
        if unicodedata.category(ch)[0] in "LN":
            if dash and out:
                out.append("-")
            dash = False
            out.append(ch)
        else:
            dash = True
    return "".join(out)


def f_relative_url(path):
    path = str(path)
    if re.match(r"^[A-Za-z0-9+.-]+:", path) or path.startswith("//"):
        return path
    if path.startswith(BASE_PATH):
        return path
    return BASE_PATH + path.lstrip("/")


def post(i, ntags):
    return {
        "title": f"Notes on distributed training, part {i}",
        "url": f"/posts/part-{i}/",
        "date": dt.datetime.fromtimestamp(EPOCH + i * 3600, TZ),
        "tags": [f"Topic {(i + k) % 37}: <Scheduling> & {'GPUs' if k % 2 else 'Networks'}"
                 for k in range(ntags)],
        "summary": SUMMARY,
        "content": "".join(f"<p>Paragraph {p} of part {i}: <em>{SUMMARY}</em></p>\n"
                           for p in range(8)),
    }


def data():
    site = {
        "title": "☀️ Hello World.", "language": "en", "author": "A. Researcher",
        "build_date": dt.datetime.fromtimestamp(EPOCH, dt.timezone.utc),
        "menu": [{"name": n, "url": u} for n, u in
                 (("Home", "/"), ("Archive", "/archive/"), ("Tags", "/tags/"), ("About", "/about/"))],
        "posts": [post(i, 3) for i in range(10000)],
    }
    return {"site": site, "page": post(4242, 20)}


def bench(env, name, ctx, secs):
    """Renders for `secs` seconds in windows of half a second (and at least
    10 renders); the renders per second of the best window, as timeit
    advises (bench_tpl.c measures sheaf the same way)."""
    t = env.get_template(name)
    best, out, start = 0.0, None, time.perf_counter()
    while time.perf_counter() - start < secs:
        n, w0 = 0, time.perf_counter()
        while True:
            out = t.render(**ctx)
            n += 1
            el = time.perf_counter() - w0
            if el >= 0.5 and n >= 10:
                break
        best = max(best, n / el)
    return best, out


def main(argv):
    env = jinja2.Environment(autoescape=True, loader=jinja2.FileSystemLoader(TEMPLATES))
    env.filters.update(date=f_date, slugify=f_slugify, relative_url=f_relative_url)
    ctx = data()
    jpost, post_out = bench(env, "post.html", ctx, 2.0)
    jindex, index_out = bench(env, "index.html", ctx, 10.0)
    print(f"jinja2 post:  {jpost:10.0f} renders/s")
    print(f"jinja2 index: {jindex:10.1f} renders/s")
    if len(argv) < 2:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([argv[1], TEMPLATES, tmp], capture_output=True, text=True, check=True)
        figures = dict(re.findall(r"^(\w+): ([\d.]+) renders/s$", p.stdout, re.M))
        same = all(open(os.path.join(tmp, f"{n}.out"), encoding="utf-8").read() == o
                   for n, o in (("post", post_out), ("index", index_out)))
    spost, sindex = float(figures["post"]), float(figures["index"])
    print(f"sheaf  post:  {spost:10.0f} renders/s   ({spost / jpost:.1f}x Jinja2)")
    print(f"sheaf  index: {sindex:10.1f} renders/s   ({sindex / jindex:.1f}x Jinja2)")
    print("outputs identical" if same else "OUTPUTS DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
