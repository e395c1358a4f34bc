#!/usr/bin/python3
"""Render every default-theme template with Python Jinja2 and a realistic mock
of the data the pipeline gives templates, and fail on any error.

    tests/theme/render_mock.py [OUT_DIR] [--base-url URL]

The mock site is the example site (content/) plus the posts in
tests/theme/mock/ (a Chinese post, a post with code, tables and nested
headings, filler posts for pagination). Markdown goes through libcmark-gfm,
as in sheaf. The output tree mirrors the base path, so OUT_DIR can be served as is
(`python3 -m http.server -d OUT_DIR`) and opened at the base path.

Checks, beyond "every template renders":
  - only the Jinja2 features sheaf supports (the filter, test and method lists
    of the design) appear in the templates;
  - an unknown top-level name is an error, as in sheaf;
  - atom.xml and sitemap.xml are well-formed XML with the required Atom
    elements; every HTML page has balanced tags;
  - the seed post shows "— Mar 18, 2024", the header "☀️ Hello World.", a TOC,
    "Linked from" where linked; a local link in any page resolves to a file.
"""
import ctypes
import datetime as dt
import html
import html.parser
import os
import re
import shutil
import sys
import unicodedata
import urllib.parse
import xml.etree.ElementTree as ET

import jinja2
import yaml
from jinja2 import nodes
from markupsafe import Markup, escape

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
THEME = os.path.join(ROOT, "themes", "default")
TEMPLATES = os.path.join(THEME, "templates")

# --------------------------------------------------------------------------
# What sheaf's template language accepts (docs: the design's template section).

ALLOWED_FILTERS = set("""
escape e safe length count lower upper capitalize title trim default d join
first last reverse sort truncate striptags urlencode replace int float string
list abs round min max sum unique batch slice groupby map select reject
selectattr rejectattr wordcount indent center tojson items dictsort
date slugify absolute_url relative_url group_by limit xml_escape rfc3339 absolute_links plaintext
used_ranges
""".split())
ALLOWED_METHODS = set("upper lower strip startswith endswith replace split items keys values get".split())
ALLOWED_GLOBALS = {"range", "namespace", "loop", "super", "self", "caller", "varargs", "kwargs", "t"}

with open(os.path.join(THEME, "i18n", "en.yaml"), encoding="utf-8") as _f:
    STRINGS = yaml.safe_load(_f)


def t_string(key, **kw):
    """t("key", name=…) as sheaf defines it, with the English table."""
    s = STRINGS.get(key + "_one") if kw.get("n") == 1 and (key + "_one") in STRINGS else None
    if s is None:
        if key not in STRINGS:
            raise KeyError(f"no theme string '{key}' in en.yaml")
        s = STRINGS[key]
    for k, v in kw.items():
        s = s.replace("{" + k + "}", str(v))
    return s


def lint_template(env, name, source):
    """Fail on a filter or method outside sheaf's list (tests: any of Jinja2's)."""
    problems = []
    tree = env.parse(source, name)
    for f in tree.find_all(nodes.Filter):
        if f.name not in ALLOWED_FILTERS:
            problems.append(f"{name}:{f.lineno}: filter '{f.name}' is not in sheaf's list")
    for c in tree.find_all(nodes.Call):
        if isinstance(c.node, nodes.Getattr) and not (
            isinstance(c.node.node, nodes.Name) and c.node.node.name in ("self", "loop")
        ):
            if c.node.attr not in ALLOWED_METHODS:
                problems.append(f"{name}:{c.lineno}: method '{c.node.attr}' is not in sheaf's list")
    for t in tree.find_all(nodes.Test):
        if t.name not in env.tests:
            problems.append(f"{name}:{t.lineno}: unknown test '{t.name}'")
    return problems


# --------------------------------------------------------------------------
# Values


class SheafDate:
    """A date value: an instant plus the offset it was written in."""

    def __init__(self, d):
        if isinstance(d, str):  # "2024-03-18 10:20", which YAML leaves a string
            d = dt.datetime.fromisoformat(d)
        if isinstance(d, dt.datetime):
            self.has_time = True
            self.has_zone = d.tzinfo is not None
            self.dt = d if d.tzinfo else d.replace(tzinfo=dt.timezone.utc)
        elif isinstance(d, dt.date):
            self.has_time = self.has_zone = False
            self.dt = dt.datetime(d.year, d.month, d.day, tzinfo=dt.timezone.utc)
        else:
            raise TypeError(f"not a date: {d!r}")

    def instant(self):
        return self.dt.timestamp()

    def __str__(self):
        return str(self.dt)


def f_date(value, fmt="%b %-d, %Y"):
    if not isinstance(value, SheafDate):
        raise TypeError(f"date filter on {type(value).__name__}: {value!r}")
    d = value.dt
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
            if off == 0:
                out.append("Z")
            else:
                sign = "+" if off > 0 else "-"
                off = abs(off)
                out.append(f"{sign}{off // 60:02d}:{off % 60:02d}")
        else:
            out.append(d.strftime("%" + spec))
        i += 2
    return "".join(out)


def slugify(s):
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


class Site:
    def __init__(self, base_url):
        self.base_url = base_url
        self.base_path = urllib.parse.urlsplit(base_url).path or "/"
        u = urllib.parse.urlsplit(base_url)
        self.host = f"{u.scheme}://{u.netloc}"

    def relative_url(self, path):
        path = str(path)
        if path.startswith(self.base_path) and self.base_path != "/":
            return path
        return self.base_path + path.lstrip("/")

    def absolute_url(self, path):
        path = str(path)
        if re.match(r"^[a-z][a-z0-9+.-]*:", path):
            return path
        if path.startswith(self.base_path) and self.base_path != "/":
            return self.host + path
        return self.base_url + path.lstrip("/")


def f_group_by(seq, attr):
    groups = {}
    for x in seq:
        groups.setdefault(x.get(attr) if isinstance(x, dict) else getattr(x, attr), []).append(x)
    return [{"grouper": k, "list": v} for k, v in groups.items()]


def f_limit(seq, n):
    return list(seq)[:n]


def f_used_ranges(s, parts, within=None):
    # The parts (name -> CSS unicode-range list) a character of the HTML s
    # falls in, in the map's order; with within, only that element's text.
    ranges = {}
    for name, spec in parts.items():
        rs = ranges[name] = []
        for item in spec.split(","):
            lo, _, hi = item.strip()[2:].partition("-")
            rs.append((int(lo.replace("?", "0"), 16), int((hi or lo).replace("?", "F"), 16)))
    used, depth = set(), 0
    for m in re.finditer(r"<(/?)([A-Za-z][^\s/>]*)[^>]*>|([^<]+)", str(s)):
        if m.group(3) is None:
            if within and m.group(2).lower() == within:
                depth += -1 if m.group(1) else (0 if m.group(0).endswith("/>") else 1)
                depth = max(depth, 0)
        elif not within or depth:
            for ch in html.unescape(m.group(3)):
                used.update(n for n, rs in ranges.items() if any(lo <= ord(ch) <= hi for lo, hi in rs))
    return [n for n in parts if n in used]


def f_xml_escape(s):
    # Escapes markup too: the result is escaped text, marked safe so that
    # autoescaping does not escape it twice.
    s = str(s)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = s.replace('"', "&quot;").replace("'", "&apos;")
    return Markup(s)


class SheafUndefined(jinja2.Undefined):
    """Jinja2's Undefined, except that an unknown top-level name is an error
    wherever it is used (sheaf), while `is defined` and `default` still
    accept it (they do not print, iterate or test it)."""

    def _top(self):
        return self._undefined_obj is jinja2.utils.missing

    def __str__(self):
        if self._top():
            self._fail_with_undefined_error()
        return ""

    def __bool__(self):
        if self._top():
            self._fail_with_undefined_error()
        return False

    def __iter__(self):
        if self._top():
            self._fail_with_undefined_error()
        return iter(())

    def __len__(self):
        if self._top():
            self._fail_with_undefined_error()
        return 0

    def __eq__(self, other):
        if self._top():
            self._fail_with_undefined_error()
        return type(self) is type(other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = jinja2.Undefined.__hash__


# --------------------------------------------------------------------------
# Markdown through libcmark-gfm, then what sheaf's md stage adds.

_cmark = ctypes.CDLL("libcmark-gfm.so.0.29.0.gfm.6")
_cmark_ext = ctypes.CDLL("libcmark-gfm-extensions.so.0.29.0.gfm.6")
_cmark_ext.cmark_gfm_core_extensions_ensure_registered()
for _name, _res, _args in [
        ("cmark_parser_new", ctypes.c_void_p, [ctypes.c_int]),
        ("cmark_find_syntax_extension", ctypes.c_void_p, [ctypes.c_char_p]),
        ("cmark_parser_attach_syntax_extension", ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p]),
        ("cmark_parser_feed", None, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]),
        ("cmark_parser_finish", ctypes.c_void_p, [ctypes.c_void_p]),
        ("cmark_parser_get_syntax_extensions", ctypes.c_void_p, [ctypes.c_void_p]),
        ("cmark_render_html", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]),
        ("cmark_node_free", None, [ctypes.c_void_p]),
        ("cmark_parser_free", None, [ctypes.c_void_p])]:
    getattr(_cmark, _name).restype = _res
    getattr(_cmark, _name).argtypes = _args
_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]
CMARK_OPT_UNSAFE = 1 << 17
CMARK_OPT_FOOTNOTES = 1 << 13


def markdown(text):
    """cmark-gfm with the extensions sheaf turns on; tables in sheaf's box."""
    b = text.encode("utf-8")
    opts = CMARK_OPT_UNSAFE | CMARK_OPT_FOOTNOTES
    p = _cmark.cmark_parser_new(opts)
    for ext in (b"table", b"strikethrough", b"autolink", b"tasklist"):
        _cmark.cmark_parser_attach_syntax_extension(p, _cmark.cmark_find_syntax_extension(ext))
    _cmark.cmark_parser_feed(p, b, len(b))
    doc = _cmark.cmark_parser_finish(p)
    h = _cmark.cmark_render_html(doc, opts, _cmark.cmark_parser_get_syntax_extensions(p))
    s = ctypes.string_at(h).decode("utf-8")
    _libc.free(h)
    _cmark.cmark_node_free(doc)
    _cmark.cmark_parser_free(p)
    s = s.replace("<table>", '<div class="table-scroll" tabindex="0" role="group" aria-label="Table">\n<table>')
    s = s.replace("</table>\n", "</table>\n</div>\n").replace("<pre>", '<pre tabindex="0">')
    # a task's checkbox is labelled with its item's first line of text
    return re.sub(r'(<li><input type="checkbox"(?: checked="")? disabled="")( /> )([^\n]*?)(?=</li>|\n)',
                  lambda m: f'{m.group(1)} aria-label="{html.escape(strip_tags(m.group(3)))}"{m.group(2)}{m.group(3)}', s)


def strip_tags(s):
    return html.unescape(re.sub(r"<[^>]*>", "", s))


def plain_text(s):
    """sheaf's plaintext filter, roughly: a formula as its TeX, hidden parts
    and footnote marks out, one line."""
    s = re.sub(r'<math\b.*?<annotation encoding="application/x-tex">(.*?)</annotation>.*?</math>', r"\1",
               str(s), flags=re.S)
    s = re.sub(r'<(\w+)[^>]*(?:aria-hidden="true"|class="footnote-(?:back)?ref")[^>]*>.*?</\1>', "", s,
               flags=re.S)
    return " ".join(strip_tags(s).split())


def add_heading_ids(body):
    """Ids for headings (unique: x, x-1, …) and the nested TOC."""
    seen = {}
    flat = []

    def sub(m):
        level, inner = int(m.group(1)), m.group(2)
        text = strip_tags(inner)
        base = slugify(text) or "section"
        hid = base
        n = seen.get(base, 0)
        while hid in seen:
            n += 1
            hid = f"{base}-{n}"
        seen[base] = n
        seen[hid] = seen.get(hid, 0)
        flat.append({"level": level, "id": hid, "title": text, "children": []})
        return (f'<h{level} id="{hid}">{inner} <a class="anchor" href="#{hid}" '
                f'aria-hidden="true" tabindex="-1">#</a></h{level}>')

    body = re.sub(r"<h([1-6])>(.*?)</h\1>", sub, body)
    toc, stack = [], []
    for h in flat:
        while stack and stack[-1]["level"] >= h["level"]:
            stack.pop()
        (stack[-1]["children"] if stack else toc).append(h)
        stack.append(h)
    return body, toc, [h["id"] for h in flat]


def word_count(text):
    cjk = len(re.findall(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]", text))
    rest = re.sub(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]", " ", text)
    return cjk + len(rest.split())


# --------------------------------------------------------------------------
# The mock site model


def load_page(path, rel, site):
    text = open(path, encoding="utf-8").read()
    m = re.match(r"^---\n(.*?)\n---\n", text, re.S)
    fm = yaml.safe_load(m.group(1)) if m else {}
    body_md = text[m.end():] if m else text
    name = os.path.basename(rel)[:-3]
    dm = re.match(r"^(\d{4}-\d{2}-\d{2})-(.*)$", name)
    slug = fm.get("slug") or (dm.group(2) if dm else name)
    is_post = rel.startswith("posts/") or rel.startswith("mock/")
    section = "posts/" if is_post else os.path.dirname(rel) + ("/" if os.path.dirname(rel) else "")
    url = site.base_path + section + slug + "/"
    date = fm.get("date") or (dt.date.fromisoformat(dm.group(1)) if dm else None)
    html_body = markdown(body_md)
    html_body, toc, ids = add_heading_ids(html_body)
    if "summary" in fm:
        summary, has_more = markdown(fm["summary"]), True
    elif "<!--more-->" in html_body:
        summary, has_more = html_body.split("<!--more-->")[0], True
    else:
        p = re.search(r"<p>.*?</p>", html_body, re.S)
        summary = p.group(0) if p else ""
        has_more = summary.strip() != html_body.strip()
    wc = word_count(strip_tags(html_body))
    return {
        "kind": "post" if is_post else "page",
        "title": fm.get("title", name),
        **({"date": SheafDate(date)} if date else {}),
        **({"updated": SheafDate(fm["updated"])} if fm.get("updated") else {}),
        "url": url,
        "permalink": site.absolute_url(url),
        "slug": slug,
        "tags": [
            {"name": t, "slug": slugify(t), "url": site.base_path + "tags/" + slugify(t) + "/"}
            for t in (fm.get("tags") or [])
        ],
        "taxonomies": {"tags": [
            {"name": t, "slug": slugify(t), "url": site.base_path + "tags/" + slugify(t) + "/"}
            for t in (fm.get("tags") or [])
        ], "categories": []},
        "content": Markup(html_body.strip()),
        "summary": Markup(summary.strip()),
        "has_more": has_more,
        "toc": toc,
        "word_count": wc,
        "reading_time": 1,
        "backlinks": [],
        "params": fm,
        "source": "content/" + rel,
        "draft": bool(fm.get("draft", False)),
        "_ids": ids,
        "_dir": os.path.dirname(path),
        "_path": os.path.abspath(path),
    }


def resolve_links(pages):
    by_path = {p["_path"]: p for p in pages}
    for p in pages:
        def sub(m):
            target, anchor = urllib.parse.unquote(m.group(1)), m.group(2) or ""
            tp = os.path.abspath(os.path.join(p["_dir"], target))
            if tp not in by_path:
                # The mock posts link to the example site's posts by name.
                tp = os.path.join(ROOT, "content", "posts", os.path.basename(target))
            if tp not in by_path:
                raise SystemExit(f"{p['source']}: link to '{target}': no such file")
            t = by_path[tp]
            if anchor and anchor[1:] not in t["_ids"]:
                raise SystemExit(f"{p['source']}: link to '{target}{anchor}': no heading '{anchor[1:]}' in {t['source']}")
            text = strip_tags(m.group(3))
            if not any(b["url"] == p["url"] for b in t["backlinks"]):
                b = {"title": p["title"], "url": p["url"], "text": text}
                if "date" in p:
                    b["date"] = p["date"]
                t["backlinks"].append(b)
            return f'<a href="{t["url"]}{anchor}">{m.group(3)}</a>'

        pat = r'<a href="(?![a-z][a-z0-9+.-]*:|#|/)([^"#]+\.md)(#[^"]*)?">(.*?)</a>'
        p["content"] = Markup(re.sub(pat, sub, str(p["content"])))
        p["summary"] = Markup(re.sub(pat, lambda m: f'<a href="{by_path.get(os.path.abspath(os.path.join(p["_dir"], m.group(1))), {"url": "#"})["url"]}{m.group(2) or ""}">{m.group(3)}</a>', str(p["summary"])))


def build_model(base_url, paginate):
    site_obj = Site(base_url)
    cfg = yaml.safe_load(open(os.path.join(ROOT, "site.yaml"), encoding="utf-8"))
    pages = []
    for d, prefix in ((os.path.join(ROOT, "content"), ""), (os.path.join(HERE, "mock"), "mock/")):
        for dirpath, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith(".md"):
                    full = os.path.join(dirpath, f)
                    pages.append(load_page(full, prefix + os.path.relpath(full, d), site_obj))
    resolve_links(pages)
    posts = sorted((p for p in pages if p["kind"] == "post"), key=lambda p: p["date"].instant(), reverse=True)
    plain = [p for p in pages if p["kind"] == "page"]
    for i, p in enumerate(posts):
        if i + 1 < len(posts):
            o = posts[i + 1]
            p["prev"] = {"title": o["title"], "url": o["url"], "date": o["date"]}
        if i > 0:
            n = posts[i - 1]
            p["next"] = {"title": n["title"], "url": n["url"], "date": n["date"]}
    tags = {}
    for p in posts:
        for t in p["tags"]:
            tags.setdefault(t["slug"], {"name": t["name"], "slug": t["slug"], "url": t["url"], "posts": []})["posts"].append(p)
    taglist = sorted(tags.values(), key=lambda t: t["name"])
    for t in taglist:
        t["count"] = len(t["posts"])
        t["feed_url"] = t["url"] + "atom.xml"
        t["taxonomy"] = "tags"
        t["permalink"] = site_obj.absolute_url(t["url"])
        t["date"] = t["posts"][0]["date"]  # its newest post's
    years = []
    for p in posts:
        y = p["date"].dt.year
        if not years or years[-1]["year"] != y:
            years.append({"year": y, "posts": []})
        years[-1]["posts"].append(p)
    site = {
        "title": cfg["title"],
        "description": cfg.get("description", ""),
        "base_url": base_url,
        "base_path": site_obj.base_path,
        "author": cfg.get("author", ""),
        "language": cfg.get("language", "en"),
        "params": cfg.get("params") or {},
        "posts": posts,
        "pages": plain,
        "tags": taglist,
        "taxonomies": {"tags": {"name": "tags", "title": "Tags", "url": site_obj.base_path + "tags/",
                                "permalink": site_obj.absolute_url(site_obj.base_path + "tags/"),
                                "feed_url": site_obj.base_path + "tags/atom.xml",
                                "terms": taglist, "count": len(taglist)},
                       "categories": {"name": "categories", "title": "Categories",
                                      "url": site_obj.base_path + "categories/",
                                      "permalink": site_obj.absolute_url(site_obj.base_path + "categories/"),
                                      "terms": [], "count": 0}},
        "sections": [{"name": "posts", "title": "Posts", "url": site_obj.base_path + "posts/",
                      "permalink": site_obj.absolute_url(site_obj.base_path + "posts/"),
                      "feed_url": site_obj.base_path + "posts/atom.xml", "posts": posts,
                      "count": len(posts), "content": Markup(""), "summary": Markup(""), "params": {}}],
        "build_date": SheafDate(dt.datetime(2024, 3, 22, 10, 0, tzinfo=dt.timezone.utc)),
        "favicon": {"url": site_obj.base_path + "favicon.svg", "text": "☀️", "emoji": True},
        "search": True,
    }
    return site_obj, site, posts, plain, taglist, years, paginate


# --------------------------------------------------------------------------
# Checks on the output


VOID = set("area base br col embed hr img input link meta source track wbr".split())


class Balance(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.ids, self.hrefs = [], [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])
        if tag in ("link",) and "href" in a:
            self.hrefs.append(a["href"])
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append(f"line {self.getpos()[0]}: </{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            # resync
            for i in range(len(self.stack) - 1, -1, -1):
                if self.stack[i][0] == tag:
                    del self.stack[i:]
                    break
        else:
            self.stack.pop()


def main(argv):
    out = "/tmp/sheaf-theme-mock"
    base_url = "https://example.org/notes/"
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--base-url":
            base_url = args.pop(0)
        else:
            out = a
    failures = []

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=SheafUndefined,
        keep_trailing_newline=False,
    )
    site_obj, site, posts, plain, taglist, years, paginate = build_model(base_url, 2)
    env.globals["t"] = t_string
    env.filters.update(
        date=f_date,
        rfc3339=lambda v: f_date(v, '%Y-%m-%dT%H:%M:%S%Z'),
        slugify=slugify,
        absolute_url=site_obj.absolute_url,
        relative_url=site_obj.relative_url,
        group_by=f_group_by,
        limit=f_limit,
        xml_escape=f_xml_escape,
        used_ranges=f_used_ranges,
        plaintext=plain_text,
        absolute_links=lambda s: (Markup if isinstance(s, Markup) else str)(
            re.sub(r'(?<![\w-])(href|src)="/(?!/)', lambda m: f'{m.group(1)}="{site_obj.host}/', str(s))),
    )

    for dirpath, _, files in os.walk(TEMPLATES):
        for f in sorted(files):
            name = os.path.relpath(os.path.join(dirpath, f), TEMPLATES)
            failures += lint_template(env, name, open(os.path.join(dirpath, f), encoding="utf-8").read())

    if os.path.isdir(out):
        shutil.rmtree(out)
    root = os.path.join(out, site_obj.base_path.strip("/"))
    written = {}

    def render(tpl, rel, **ctx):
        ctx.setdefault("site", site)
        try:
            text = env.get_template(tpl).render(**ctx)
        except Exception as e:  # any Jinja2 error fails the run
            failures.append(f"{tpl} → {rel}: {type(e).__name__}: {e}")
            return
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        written[rel] = text

    def listpage(kind, title, url):
        return {"kind": kind, "title": title, "url": url, "permalink": site_obj.absolute_url(url)}

    for p in posts + plain:
        render(p["params"].get("template", "post.html" if p["kind"] == "post" else "page.html"),
               p["url"][len(site_obj.base_path):] + "index.html", page=p)
    chunks = [posts[i:i + paginate] for i in range(0, len(posts), paginate)] or [[]]
    total = len(chunks)

    def page_url(n):
        return site_obj.base_path + ("" if n == 1 else f"page/{n}/")

    for n, chunk in enumerate(chunks, 1):
        pg = {"pages": chunk, "current": n, "total": total, "first_url": page_url(1), "last_url": page_url(total)}
        if n > 1:
            pg["prev_url"] = page_url(n - 1)
        if n < total:
            pg["next_url"] = page_url(n + 1)
        rel = "index.html" if n == 1 else f"page/{n}/index.html"
        render("index.html", rel, page=listpage("index", site["title"], page_url(n)), paginator=pg)
    for sec in site["sections"]:
        base = sec["url"][len(site_obj.base_path):]

        def sec_url(n):
            return sec["url"] + ("" if n == 1 else f"page/{n}/")

        for n, chunk in enumerate(chunks, 1):
            pg = {"pages": chunk, "current": n, "total": total, "first_url": sec_url(1), "last_url": sec_url(total)}
            if n > 1:
                pg["prev_url"] = sec_url(n - 1)
            if n < total:
                pg["next_url"] = sec_url(n + 1)
            lp = dict(listpage("section", sec["title"], sec_url(n)), section=sec["name"],
                      content=sec["content"], summary=sec["summary"], params=sec["params"])
            render("section.html", base + ("" if n == 1 else f"page/{n}/") + "index.html",
                   page=lp, paginator=pg, section=sec)
        render("atom.xml", base + "atom.xml", page=listpage("feed", sec["title"], sec["url"]), section=sec,
               feed={"title": sec["title"], "url": sec["permalink"] + "atom.xml",
                     "alternate": sec["permalink"], "posts": sec["posts"]})
    for t in taglist:
        pg = {"pages": t["posts"], "current": 1, "total": 1, "first_url": t["url"], "last_url": t["url"]}
        render("tag.html", f"tags/{t['slug']}/index.html", page=listpage("tag", t["name"], t["url"]), tag=t,
               term=t, taxonomy=site["taxonomies"]["tags"], paginator=pg)
        render("atom.xml", f"tags/{t['slug']}/atom.xml", page=listpage("feed", t["name"], t["url"]), term=t,
               feed={"title": t["name"], "url": site_obj.absolute_url(t["url"] + "atom.xml"),
                     "alternate": site_obj.absolute_url(t["url"]), "posts": t["posts"]})
    # another taxonomy: one category holding the first tag's posts
    cat = dict(taglist[0], slug="field-work", name="Field work", url=site_obj.base_path + "categories/field-work/",
               permalink=site_obj.absolute_url(site_obj.base_path + "categories/field-work/"),
               feed_url=site_obj.base_path + "categories/field-work/atom.xml", taxonomy="categories")
    cats = dict(site["taxonomies"]["categories"], terms=[cat], count=1,
                feed_url=site_obj.base_path + "categories/atom.xml")
    pg = {"pages": cat["posts"], "current": 1, "total": 1, "first_url": cat["url"], "last_url": cat["url"]}
    render("term.html", "categories/field-work/index.html", page=dict(listpage("term", cat["name"], cat["url"]),
           taxonomy="categories"), term=cat, tag=cat, taxonomy=cats, paginator=pg)
    render("atom.xml", "categories/field-work/atom.xml", page=listpage("feed", cat["name"], cat["url"]), term=cat,
           feed={"title": "Categories: Field work", "url": site_obj.absolute_url(cat["feed_url"]),
                 "alternate": site_obj.absolute_url(cat["url"]), "posts": cat["posts"]})
    render("terms.html", "categories/index.html", page=dict(listpage("terms", "Categories", cats["url"]),
           taxonomy="categories"), taxonomy=cats)
    render("tags.html", "tags/index.html", page=listpage("tags", "Tags", site_obj.base_path + "tags/"),
           taxonomy=site["taxonomies"]["tags"])
    # the feeds of the terms: those with the newest posts first
    recent = sorted(taglist, key=lambda t: posts.index(t["posts"][0]))
    for x, terms in ((site["taxonomies"]["tags"], recent), (cats, [cat])):
        render("terms.xml", f"{x['name']}/atom.xml", page=dict(listpage("feed", x["title"], x["url"]),
               taxonomy=x["name"]), taxonomy=x,
               feed={"title": x["title"], "url": site_obj.absolute_url(x["feed_url"]),
                     "alternate": x["permalink"], "terms": terms})
    render("archive.html", "archive/index.html", page=listpage("archive", "Archive", site_obj.base_path + "archive/"), years=years)
    render("404.html", "404.html", page=listpage("404", "Not found", site_obj.base_path + "404.html"))
    site_feed = {"title": site["title"], "url": site_obj.absolute_url(site_obj.base_path + "atom.xml"),
                 "alternate": base_url, "posts": posts}
    render("search.html", "search/index.html", page=listpage("search", "Search", site_obj.base_path + "search/"))
    for x in ("atom.xml", "sitemap.xml", "robots.txt", "favicon.svg"):
        render(x, x, page=listpage(x, x, site_obj.base_path + x), feed=site_feed)
    shutil.copytree(os.path.join(THEME, "static"), root, dirs_exist_ok=True)

    # An empty site and a bare post: every optional part absent.
    empty = dict(site, posts=[], pages=[], tags=[], sections=[], author="", description="")
    bare = {"kind": "post", "title": "Bare", "url": site_obj.base_path + "posts/bare/",
            "permalink": site_obj.absolute_url("posts/bare/"), "slug": "bare", "tags": [],
            "content": Markup("<p>x</p>"), "summary": Markup("<p>x</p>"), "has_more": False,
            "toc": [], "word_count": 1, "reading_time": 1, "backlinks": [], "params": {},
            "source": "content/posts/bare.md", "draft": False, "date": posts[0]["date"], "taxonomies": {}}
    for tpl, ctx in (
        ("post.html", {"page": bare}),
        ("page.html", {"page": dict(bare, kind="page", date=None)}),
        ("index.html", {"page": listpage("index", "", site_obj.base_path),
                        "paginator": {"pages": [], "current": 1, "total": 1}}),
        ("tags.html", {"page": listpage("tags", "Tags", site_obj.base_path + "tags/"),
                       "taxonomy": dict(site["taxonomies"]["tags"], terms=[], count=0, feed_url=None)}),
        ("archive.html", {"page": listpage("archive", "Archive", site_obj.base_path + "archive/"), "years": []}),
        ("atom.xml", {"page": listpage("atom.xml", "", ""), "feed": dict(site_feed, posts=[])}),
        ("sitemap.xml", {"page": listpage("sitemap.xml", "", "")}),
    ):
        try:
            text = env.get_template(tpl).render(site=empty, **ctx)
            if tpl.endswith(".xml"):
                ET.fromstring(text.encode("utf-8"))
        except Exception as e:
            failures.append(f"{tpl} on an empty site: {type(e).__name__}: {e}")

    # An unknown top-level name must fail, as in sheaf.
    try:
        env.from_string("{{ pgae.title }}").render(site=site)
        failures.append("an unknown top-level name did not fail")
    except jinja2.UndefinedError:
        pass

    # ---- checks on what was written
    for rel, text in written.items():
        if rel.endswith(".html"):
            b = Balance()
            b.feed(text)
            b.close()
            for e in b.errors:
                failures.append(f"{rel}: {e}")
            if b.stack:
                failures.append(f"{rel}: unclosed {b.stack}")
            dup = {i for i in b.ids if b.ids.count(i) > 1}
            if dup:
                failures.append(f"{rel}: duplicate ids {sorted(dup)}")
            for h in b.hrefs:
                if h.startswith(site_obj.base_path):
                    target = os.path.join(out, urllib.parse.unquote(h.split("#")[0]).lstrip("/"))
                    if target.endswith("/"):
                        target += "index.html"
                    if not os.path.exists(target):
                        failures.append(f"{rel}: link to {h}: no such file in the output")
            if "<!DOCTYPE html>" not in text[:20]:
                failures.append(f"{rel}: no doctype")
            if "☀️ Hello World." not in text:
                failures.append(f"{rel}: no site title")
            if f'<html lang="{site["language"]}">' not in text:
                failures.append(f"{rel}: no html lang")
    for x in ("atom.xml", "sitemap.xml", "tags/atom.xml", "categories/atom.xml"):
        if x in written:
            try:
                ET.fromstring(written[x].encode("utf-8"))
            except ET.ParseError as e:
                failures.append(f"{x}: not well-formed: {e}")
    if "atom.xml" in written:
        A = "{http://www.w3.org/2005/Atom}"
        feed = ET.fromstring(written["atom.xml"].encode("utf-8"))
        for req in ("title", "id", "updated", "author"):
            if feed.find(A + req) is None:
                failures.append(f"atom.xml: feed has no <{req}>")
        rels = {l.get("rel") for l in feed.findall(A + "link")}
        if rels != {"self", "alternate"}:
            failures.append(f"atom.xml: feed links {rels}")
        entries = feed.findall(A + "entry")
        if len(entries) != min(20, len(posts)):
            failures.append(f"atom.xml: {len(entries)} entries")
        rfc3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$")
        for e in entries:
            for req in ("title", "id", "updated", "content"):
                if e.find(A + req) is None:
                    failures.append(f"atom.xml: entry has no <{req}>")
            for d in ("updated", "published"):
                if not rfc3339.match(e.find(A + d).text or ""):
                    failures.append(f"atom.xml: {d} {e.find(A + d).text!r} is not RFC 3339")
            c = e.find(A + "content").text
            if not c.lstrip().startswith("<"):
                failures.append("atom.xml: content is not HTML after one unescape")
        first = entries[0].find(A + "content").text
        if "<h2 id=" not in first:
            failures.append("atom.xml: content lost its headings")
    # the feed of the tags: one entry a tag, each dated by its newest post
    if "tags/atom.xml" in written:
        A = "{http://www.w3.org/2005/Atom}"
        feed = ET.fromstring(written["tags/atom.xml"].encode("utf-8"))
        entries = feed.findall(A + "entry")
        if [e.find(A + "title").text for e in entries] != [t["name"] for t in recent][:20]:
            failures.append("tags/atom.xml: not the tags with the newest posts first")
        for e in entries:
            for req in ("title", "id", "updated", "link"):
                if e.find(A + req) is None:
                    failures.append(f"tags/atom.xml: entry has no <{req}>")
            if not rfc3339.match(e.find(A + "updated").text or ""):
                failures.append(f"tags/atom.xml: updated {e.find(A + 'updated').text!r} is not RFC 3339")
    if "robots.txt" in written and f"Sitemap: {site_obj.absolute_url('sitemap.xml')}" not in written["robots.txt"]:
        failures.append("robots.txt: no absolute Sitemap line")

    seed = written.get("posts/distributed-training-research/index.html", "")
    for needle in (
        '<p class="date">— <time datetime="2024-03-18T00:00:00Z">Mar 18, 2024</time></p>',
        '<nav class="toc" aria-label="Contents">',
        '<h2 id="in-network-aggregation">In-network Aggregation <a class="anchor" href="#in-network-aggregation"',
        f'<a href="{site_obj.base_path}posts/in-network-aggregation/#switchml">this post</a>',
        "<title>Distributed Training Research — ☀️ Hello World.</title>",
        "Linked from",
    ):
        if needle not in seed:
            failures.append(f"seed post: missing {needle!r}")
    cjk = written.get("posts/分布式训练笔记/index.html", "")
    for needle in ('<h2 id="参数服务器">', '<time datetime="2024-03-21T00:30:00+08:00">Mar 21, 2024</time>',
                   f'href="{site_obj.base_path}tags/分布式训练/"'):
        if needle not in cjk:
            failures.append(f"CJK post: missing {needle!r}")
    about = written.get("about/index.html", "")
    if 'class="toc"' in about:
        failures.append("about: a TOC for a page without three headings")
    if f'<a href="{site_obj.base_path}about/" aria-current="page">About</a>' not in about:
        failures.append("about: nav does not mark About as current")

    # The Nu HTML Checker, when the test suite's npm tools are installed.
    vnu = os.path.join(ROOT, "tests", "node_modules", "vnu-jar", "build", "dist", "vnu.jar")
    if os.path.exists(vnu) and shutil.which("java"):
        import subprocess
        r = subprocess.run(["java", "-jar", vnu, "--skip-non-html", "--errors-only", root],
                           capture_output=True, text=True)
        for line in (r.stdout + r.stderr).splitlines():
            failures.append("vnu: " + line)
        r = subprocess.run(["java", "-jar", vnu, "--css", "--errors-only", "--filterfile",
                            os.path.join(ROOT, "tests", "theme", "vnu-css.filter"), os.path.join(root, "style.css")],
                           capture_output=True, text=True)
        for line in (r.stdout + r.stderr).splitlines():
            failures.append("vnu css: " + line)
    else:
        print("render_mock: no Nu HTML Checker (scripts/deps.sh test installs it); HTML not validated")

    for f in failures:
        print("FAIL:", f)
    print(f"render_mock: {len(written)} files in {out}, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
