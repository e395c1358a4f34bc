#!/usr/bin/python3
"""Differential test of sheaf's template engine against Jinja2 3.1.

Every tests/tpl/cases/<name>.html (names starting with '_' are partials that
other cases include, extend or import) is rendered twice: by Jinja2
(Environment(autoescape=True, loader=FileSystemLoader(cases/))) with the
variables of <name>.yaml when there is one, and by `sheaf render`. The outputs
must be byte-identical; a mismatch prints a unified diff. Exit status 1 when
any case differs or fails.

sheaf's own filters (date, rfc3339, slugify, absolute_url, relative_url,
group_by, limit, xml_escape) are given to Jinja2 as the Python functions
below, so templates using them are compared too.

usage: diff.py SHEAF [CASE...]        (CASE: a name without .html)
"""
import concurrent.futures
import datetime as dt
import difflib
import os
import re
import subprocess
import sys
import unicodedata
import urllib.parse

import jinja2
import yaml
from jinja2.filters import _GroupTuple
from markupsafe import Markup

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
BASE_URL = "https://example.org/notes/"


# ---- sheaf's filters, in Python -------------------------------------------

def as_datetime(v):
    """(aware datetime in its own offset, has_time) for a YAML date value."""
    if isinstance(v, str):
        v = yaml.safe_load(v) if re.match(r"^\d{4}-\d\d?-\d\d?", v) else v
        if isinstance(v, str):
            v = dt.datetime.fromisoformat(v)
    if isinstance(v, dt.datetime):
        return (v if v.tzinfo else v.replace(tzinfo=dt.timezone.utc)), True
    if isinstance(v, dt.date):
        return dt.datetime(v.year, v.month, v.day, tzinfo=dt.timezone.utc), False
    raise TypeError(f"not a date: {v!r}")


def f_date(value, fmt="%b %-d, %Y"):
    if value is None or isinstance(value, jinja2.Undefined):
        return jinja2.Undefined()
    d, _ = as_datetime(value)
    out = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c != "%" or i + 1 == len(fmt):
            out.append(c)
            i += 1
            continue
        spec = fmt[i + 1]
        if spec == "-" and i + 2 < len(fmt):
            s = d.strftime("%" + fmt[i + 2])
            out.append(s.lstrip("0") or "0")
            i += 3
            continue
        if spec == "Z":
            off = int(d.utcoffset().total_seconds() // 60)
            sign, off = ("+" if off > 0 else "-"), abs(off)
            out.append("UTC" if off == 0 else f"{sign}{off // 60:02d}:{off % 60:02d}")
        else:
            out.append(d.strftime("%" + spec))
        i += 2
    return "".join(out)


def f_rfc3339(value):
    if value is None or isinstance(value, jinja2.Undefined):
        return jinja2.Undefined()
    d, _ = as_datetime(value)
    off = int(d.utcoffset().total_seconds() // 60)
    s = d.strftime("%Y-%m-%dT%H:%M:%S")
    if off == 0:
        return s + "Z"
    sign = "+" if off > 0 else "-"
    off = abs(off)
    return f"{s}{sign}{off // 60:02d}:{off % 60:02d}"


def f_slugify(s):
    out = []
    dash = False
    for ch in str(s).lower():
        if unicodedata.category(ch)[0] in "LN":
            if dash and out:
                out.append("-")
            dash = False
            out.append(ch)
        else:
            dash = True
    return "".join(out)


def _base():
    u = urllib.parse.urlsplit(BASE_URL)
    return f"{u.scheme}://{u.netloc}", u.path or "/"


def _is_abs(path):
    return path.startswith("//") or re.match(r"^[A-Za-z0-9+.-]+:", path) is not None


def f_relative_url(path):
    path = str(path)
    if _is_abs(path):
        return path
    _, bp = _base()
    if path.startswith("/") and path.startswith(bp) and bp != "/":
        return path
    return bp + path.lstrip("/")


def f_absolute_url(path):
    path = str(path)
    if _is_abs(path):
        return path
    origin, _ = _base()
    return origin + f_relative_url(path)


def f_absolute_links(s):
    origin, _ = _base()
    out = re.sub(r'(?<![\w-])(href|src)="/(?!/)', lambda m: f'{m.group(1)}="{origin}/', str(s))
    return Markup(out) if isinstance(s, Markup) else out


def f_group_by(seq, attr):
    groups = {}
    for x in seq:
        k = x.get(attr) if isinstance(x, dict) else getattr(x, attr, None)
        groups.setdefault(k, []).append(x)
    return [_GroupTuple(k, v) for k, v in groups.items()]


def f_limit(seq, n):
    return list(seq)[: max(n, 0)]


def f_xml_escape(s):
    s = str(s)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = s.replace('"', "&quot;").replace("'", "&apos;")
    return Markup(s)


def jinja_env():
    env = jinja2.Environment(autoescape=True, loader=jinja2.FileSystemLoader(CASES))
    env.filters.update(date=f_date, rfc3339=f_rfc3339, slugify=f_slugify,
                       absolute_url=f_absolute_url, relative_url=f_relative_url, absolute_links=f_absolute_links,
                       group_by=f_group_by, limit=f_limit, xml_escape=f_xml_escape)
    return env


# ---- the runner -------------------------------------------------------------

def load_data(name):
    path = os.path.join(CASES, name + ".yaml")
    if not os.path.exists(path):
        return None, {}
    with open(path, encoding="utf-8") as f:
        return path, yaml.safe_load(f) or {}


def run_case(sheaf, name):
    """Returns None when the outputs match, else a message."""
    data_path, data = load_data(name)
    try:
        want = jinja_env().get_template(name + ".html").render(**data).encode("utf-8")
    except Exception as e:  # a case must be valid Jinja2
        return f"Jinja2 rejects the case: {type(e).__name__}: {e}"
    cmd = [sheaf, "render", os.path.join(CASES, name + ".html"), "--templates", CASES,
           "--base-url", BASE_URL]
    if data_path:
        cmd += ["--data", data_path]
    p = subprocess.run(cmd, capture_output=True, timeout=30)
    if p.returncode != 0:
        return f"sheaf render failed (exit {p.returncode}):\n{p.stderr.decode(errors='replace')}"
    got = p.stdout
    if got == want:
        return None
    a = want.decode("utf-8", errors="replace").splitlines(keepends=True)
    b = got.decode("utf-8", errors="replace").splitlines(keepends=True)
    diff = "".join(difflib.unified_diff(a, b, "jinja2", "sheaf"))
    if not diff:  # differences in line endings only
        diff = f"jinja2: {want!r}\nsheaf:  {got!r}\n"
    return "output differs:\n" + diff


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    sheaf = argv[1]
    names = argv[2:] or sorted(f[:-5] for f in os.listdir(CASES)
                               if f.endswith(".html") and not f.startswith("_"))
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        for name, msg in zip(names, ex.map(lambda n: run_case(sheaf, n), names)):
            if msg:
                failed += 1
                print(f"FAIL {name}: {msg}")
    print(f"{len(names) - failed}/{len(names)} cases match Jinja2")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
