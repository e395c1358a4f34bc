#!/usr/bin/python3
"""End-to-end fixture sites: build each one with the real binary and check
what it wrote and said.

A fixture is a folder tests/sites/<name>/ holding `site/` (the input site,
copied to a fresh temporary folder before the first step) and `test.yaml`,
a list of steps run in order:

  - run: [build, --drafts]    # sheaf arguments; "-s <site>" is appended
    status: 0                 # expected exit status (default 0)
    stdout: [regex, ...]      # each must match some line of stdout
    stderr: [line, ...]       # each must be a line of stderr, word for word
    stderr_exact: true        # ... and stderr holds nothing else (the
                              #   warning of a base_url without a host is
                              #   left out unless `stderr` lists it)
    files:                    # output files (relative to public/) and
      posts/a/index.html:     #   snippets each must contain
        - '<h1>A</h1>'
    not_in:                   # snippets a file must NOT contain
      index.html: ['Draft']
    counts:                   # how many times a file holds a snippet
      tags/go/index.html: {'href="/posts/a/"': 1}
    absent: [drafts/x/index.html]   # paths that must not exist
    absent_site: [../victim.txt]    # paths relative to the site folder
                                    #   that must not exist
    snapshot: first           # remember the output tree (bytes, inode, mtime)
    same_as: first            # output bytes equal a snapshot's
    kept: first               # ... and every file kept its inode and mtime
    untouched: first          # the output folder is byte-for-byte the snapshot
  - write: {content/x.md: "text"}   # edit the site between steps (a
                                    #   !!binary value is written as bytes)
  - remove: [content/x.md]
  - mkdir: [content/empty]          # an (empty) folder
  - symlink: {content/x.md: /nowhere}   # a symbolic link ("{site}/x" in a
                                        #   target: the site folder's path)
  - fifo: [refs.bib]                # a named pipe (no writer ever opens it)
  - sleep: 1.1                # let mtimes move on (for `kept`)
  - from_repo: [content, site.yaml]   # copy these from the repository root
  - copy_out: j1              # keep a copy of public/ under a name
  - compare_out: j1           # public/ equals that copy byte for byte
  - golden: expected          # public/ equals tests/sites/<name>/expected/
                              #   byte for byte, same file list
  - links_resolve: /notes/    # every internal href/src of every HTML page
                              #   (under this base path, or relative) names
                              #   an output file, and its #fragment an id
                              #   in that file
  - images_checked: /notes/   # every <img> of every HTML page has width
                              #   and height; each srcset candidate (under
                              #   this base path) is an output file that
                              #   decodes (vipsheader) at its w width
  - feeds_valid: true         # every *.xml output is well-formed, and every
                              #   atom.xml a feed with id, title, updated and
                              #   a self link, each entry with id, title,
                              #   updated and a link; every *.json output
                              #   is JSON, every feed.json a JSON Feed 1.1

Golden trees are regenerated, after a change that alters the output on
purpose, with

    SHEAF_UPDATE_GOLDEN=1 ctest --test-dir build -R sites/
    git diff --stat tests/sites/; git diff tests/sites/   # review, then commit

which rewrites each `golden:` folder from what the step built (and says so)
instead of comparing.

usage: run.py path/to/sheaf NAME   (or: run.py path/to/sheaf, for all)
"""
import os
import html.parser
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))


def tree(root):
    """path → (bytes, inode, mtime_ns) for every file below root; the
    manifest by its paths only (its generation lines say which build made
    it, and it is written anew by each: docs/internals.md, "The commit")."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            full = os.path.join(dirpath, f)
            st = os.lstat(full)
            with open(full, "rb") as fh:
                data = fh.read()
            rel = os.path.relpath(full, root)
            if rel == ".sheaf-manifest":
                out[rel] = (b"".join(l for l in data.splitlines(True)
                                     if not l.startswith(b"\\") or l.startswith(b"\\\\")),
                            None, None)
            else:
                out[rel] = (data, st.st_ino, st.st_mtime_ns)
    return out


class Fail(Exception):
    pass


class _Page(html.parser.HTMLParser):
    """The ids and the href/src values of one HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.urls = set(), []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k == "id" or (k == "name" and tag == "a"):
                self.ids.add(v)
            elif k in ("href", "src") and v is not None:
                self.urls.append(v)


def broken_links(out, base):
    """Internal links of the output that name no file or no id."""
    pages = {}
    for dirpath, _dirs, files in os.walk(out):
        for f in files:
            if f.endswith(".html"):
                full = os.path.join(dirpath, f)
                pg = _Page()
                with open(full, encoding="utf-8") as fh:
                    pg.feed(fh.read())
                pages[os.path.relpath(full, out)] = pg
    bad = []
    for rel, pg in sorted(pages.items()):
        for url in pg.urls:
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", url):
                continue  # external
            path, _, frag = url.partition("#")
            path = urllib.parse.unquote(path.split("?")[0])
            if not path:
                target = rel
            elif path.startswith("/"):
                if not path.startswith(base):
                    bad.append(f"{rel}: {url} (outside {base})")
                    continue
                target = path[len(base):]
            else:
                target = os.path.normpath(os.path.join(os.path.dirname(rel), path))
            if target in ("", ".") or target.endswith("/"):
                target = os.path.join(target, "index.html")
            target = os.path.normpath(target)
            if os.path.isdir(os.path.join(out, target)):
                target = os.path.join(target, "index.html")
            if not os.path.isfile(os.path.join(out, target)):
                bad.append(f"{rel}: {url} (no file {target})")
            elif frag and target in pages and frag not in pages[target].ids \
                    and urllib.parse.unquote(frag) not in pages[target].ids:
                bad.append(f"{rel}: {url} (no id {frag!r} in {target})")
    return bad


class _StrictLoader(yaml.SafeLoader):
    """safe_load, but a key written twice in one mapping is an error: with
    PyYAML the later one silently wins, and the earlier expectations would
    never be checked."""


def _no_duplicates(loader, node, deep=False):
    seen = set()
    for k, _v in node.value:
        key = loader.construct_object(k, deep=True)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"key {key!r} written twice in one mapping", k.start_mark)
        seen.add(key)
    return yaml.SafeLoader.construct_mapping(loader, node, deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicates)


def bad_feeds(out):
    """What is wrong with the XML outputs: not well-formed, or an atom.xml
    that lacks what RFC 4287 requires of a feed and its entries; a .json
    output that is not JSON, or a feed.json that lacks what JSON Feed 1.1
    requires."""
    import xml.etree.ElementTree as ET
    atom = "{http://www.w3.org/2005/Atom}"
    bad = []
    for dirpath, _dirs, files in os.walk(out):
        for f in files:
            if not f.endswith(".xml"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), out)
            try:
                root = ET.parse(os.path.join(dirpath, f)).getroot()
            except ET.ParseError as e:
                bad.append(f"{rel}: {e}")
                continue
            if f != "atom.xml":
                continue
            if root.tag != atom + "feed":
                bad.append(f"{rel}: the root is {root.tag}, not an Atom feed")
                continue
            for need in ("id", "title", "updated"):
                if root.find(atom + need) is None or not (root.find(atom + need).text or "").strip():
                    bad.append(f"{rel}: the feed has no {need}")
            if not any(l.get("rel") == "self" for l in root.findall(atom + "link")):
                bad.append(f"{rel}: the feed has no self link")
            for n, e in enumerate(root.findall(atom + "entry"), 1):
                for need in ("id", "title", "updated"):
                    if e.find(atom + need) is None:
                        bad.append(f"{rel}: entry {n} has no {need}")
                if e.find(atom + "link") is None:
                    bad.append(f"{rel}: entry {n} has no link")
    import json
    for dirpath, _dirs, files in os.walk(out):
        for f in files:
            if not f.endswith(".json"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), out)
            try:
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    doc = json.load(fh)
            except ValueError as e:
                bad.append(f"{rel}: not JSON: {e}")
                continue
            if f != "feed.json":
                continue
            # JSON Feed 1.1: what a feed and its items must have
            if not isinstance(doc, dict) or doc.get("version") != "https://jsonfeed.org/version/1.1":
                bad.append(f"{rel}: not a JSON Feed 1.1 (version)")
                continue
            if not isinstance(doc.get("title"), str) or not isinstance(doc.get("items"), list):
                bad.append(f"{rel}: the feed needs a title and items")
                continue
            for n, it in enumerate(doc["items"], 1):
                if not isinstance(it.get("id"), str) or not it["id"]:
                    bad.append(f"{rel}: item {n} has no id")
                if not isinstance(it.get("content_html", it.get("content_text")), str):
                    bad.append(f"{rel}: item {n} has no content_html or content_text")
                for k in ("date_published", "date_modified"):
                    if k in it and not re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$", it[k]):
                        bad.append(f"{rel}: item {n}: {k} is not RFC 3339")
    return bad


_URL_ATTR = re.compile(r"""\b(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""", re.I)


def _bad_scheme(url):
    """The scheme of a URL as a browser reads it (leading controls and
    spaces skipped, tabs and line breaks ignored), when it is not one of
    http, https, mailto; else None."""
    import html as _html
    u = _html.unescape(url).lstrip("".join(chr(c) for c in range(0x21)))
    u = u.replace("\t", "").replace("\n", "").replace("\r", "")
    m = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*):", u)
    if m and m.group(1).lower() not in ("http", "https", "mailto"):
        return m.group(1).lower()
    return None


def bad_outputs(out):
    """The class check of issue 34, run on every output of every build: each
    HTML, XML and JSON file is valid UTF-8, and no href or src in it (in an
    XML or JSON file: also in the HTML it carries, escaped) has a scheme
    other than http, https or mailto."""
    import html as _html
    import json
    bad = []
    for dirpath, _dirs, files in os.walk(out):
        for f in files:
            if not f.endswith((".html", ".xml", ".json")):
                continue
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, out)
            with open(full, "rb") as fh:
                raw = fh.read()
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                bad.append(f"{rel}: invalid UTF-8 at byte {e.start}: {raw[max(0, e.start - 20):e.end + 20]!r}")
                continue
            texts = [text]
            if f.endswith(".xml"):
                texts.append(_html.unescape(text))
            elif f.endswith(".json"):
                try:
                    stack = [json.loads(text)]
                except ValueError:
                    stack = []
                while stack:
                    v = stack.pop()
                    if isinstance(v, str):
                        texts.append(v)
                    elif isinstance(v, list):
                        stack.extend(v)
                    elif isinstance(v, dict):
                        stack.extend(v.values())
            for t in texts:
                for m in _URL_ATTR.finditer(t):
                    url = next(g for g in m.groups() if g is not None)
                    scheme = _bad_scheme(url)
                    if scheme:
                        bad.append(f"{rel}: {m.group(0)[:80]!r} (scheme {scheme})")
    return bad


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def run_fixture(sheaf, name):
    spec_path = os.path.join(HERE, name, "test.yaml")
    with open(spec_path, encoding="utf-8") as f:
        steps = yaml.load(f, Loader=_StrictLoader)
    tmp = tempfile.mkdtemp(prefix="sheaf-site-")
    try:
        site = os.path.join(tmp, "site")
        src = os.path.join(HERE, name, "site")
        if os.path.isdir(src):
            shutil.copytree(src, site, symlinks=True)
        else:
            os.makedirs(site)
        out = os.path.join(site, "public")
        snaps, copies = {}, {}
        for i, step in enumerate(steps, 1):
            where = f"{name} step {i}"
            if "write" in step:
                for rel, text in step["write"].items():
                    p = os.path.join(site, rel)
                    os.makedirs(os.path.dirname(p), exist_ok=True)
                    if isinstance(text, bytes):  # a !!binary value: bytes as they are
                        with open(p, "wb") as fh:
                            fh.write(text)
                    else:
                        with open(p, "w", encoding="utf-8") as fh:
                            fh.write(text)
                continue
            if "symlink" in step:
                for rel, target in step["symlink"].items():
                    p = os.path.join(site, rel)
                    os.makedirs(os.path.dirname(p), exist_ok=True)
                    os.symlink(target.replace("{site}", site), p)
                continue
            if "fifo" in step:
                for rel in step["fifo"]:
                    p = os.path.join(site, rel)
                    os.makedirs(os.path.dirname(p), exist_ok=True)
                    os.mkfifo(p)
                continue
            if "mkdir" in step:
                for rel in step["mkdir"]:
                    os.makedirs(os.path.join(site, rel), exist_ok=True)
                continue
            if "remove" in step:
                for rel in step["remove"]:
                    p = os.path.join(site, rel)
                    if os.path.isdir(p) and not os.path.islink(p):  # a link goes, not its target
                        shutil.rmtree(p)
                    else:
                        os.unlink(p)
                continue
            if "from_repo" in step:
                repo = os.path.dirname(os.path.dirname(HERE))
                for rel in step["from_repo"]:
                    s, dst = os.path.join(repo, rel), os.path.join(site, rel)
                    if os.path.isdir(s):
                        shutil.copytree(s, dst, dirs_exist_ok=True)
                    else:
                        shutil.copy(s, dst)
                continue
            if "links_resolve" in step:
                bad = broken_links(out, step["links_resolve"])
                check(not bad, f"{where}: internal links that do not resolve:\n  " + "\n  ".join(bad))
                continue
            if "feeds_valid" in step:
                bad = bad_feeds(out)
                check(not bad, f"{where}: feeds that are not valid:\n  " + "\n  ".join(bad))
                continue
            if "sleep" in step:
                time.sleep(step["sleep"])
                continue
            if "copy_out" in step:
                dst = os.path.join(tmp, "copy-" + step["copy_out"])
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(out, dst)
                copies[step["copy_out"]] = dst
                continue
            if "compare_out" in step:
                a = {k: v[0] for k, v in tree(out).items()}
                b = {k: v[0] for k, v in tree(copies[step["compare_out"]]).items()}
                check(a.keys() == b.keys(),
                      f"{where}: file lists differ: {sorted(set(a) ^ set(b))}")
                diff = [k for k in a if a[k] != b[k]]
                check(not diff, f"{where}: files differ: {diff}")
                continue
            if "golden" in step:
                golden = os.path.join(HERE, name, step["golden"])
                if os.environ.get("SHEAF_UPDATE_GOLDEN"):
                    shutil.rmtree(golden, ignore_errors=True)
                    shutil.copytree(out, golden, ignore=shutil.ignore_patterns(".sheaf-manifest"))
                    print(f"updated {os.path.relpath(golden, HERE)}: review it with git diff")
                    continue
                check(os.path.isdir(golden), f"{where}: no golden tree {golden} "
                      "(SHEAF_UPDATE_GOLDEN=1 writes it)")
                # the manifest of what sheaf wrote is checked by tests/output
                a = {k: v[0] for k, v in tree(out).items() if k != ".sheaf-manifest"}
                b = {k: v[0] for k, v in tree(golden).items()}
                check(a.keys() == b.keys(), f"{where}: files differ from {step['golden']}/: "
                      f"only built {sorted(set(a) - set(b))}, only expected {sorted(set(b) - set(a))}")
                diff = sorted(k for k in a if a[k] != b[k])
                if diff:
                    import difflib
                    first = diff[0]
                    lines = difflib.unified_diff(
                        b[first].decode("utf-8", "replace").splitlines(),
                        a[first].decode("utf-8", "replace").splitlines(),
                        f"{step['golden']}/{first}", f"built/{first}", lineterm="", n=1)
                    shown = "\n".join(list(lines)[:40])
                    raise Fail(f"{where}: {len(diff)} files differ from {step['golden']}/: "
                               f"{diff}\n{shown}\n(if the change is meant, "
                               "SHEAF_UPDATE_GOLDEN=1 rewrites the tree; review with git diff)")
                continue
            args = [sheaf] + [str(a) for a in step["run"]] + ["-s", site]
            env = dict(os.environ, NO_COLOR="1")
            p = subprocess.run(args, capture_output=True, timeout=120, env=env, cwd=tmp)
            stdout = p.stdout.decode("utf-8", "replace")
            stderr = p.stderr.decode("utf-8", "replace").replace(site + "/", "")
            shown = f"\n--- stdout\n{stdout}--- stderr\n{stderr}"
            want = step.get("status", 0)
            check(p.returncode == want,
                  f"{where}: `{' '.join(args[1:])}` exited {p.returncode}, not {want}{shown}")
            lines = stderr.splitlines()
            # most fixtures have no base_url: its one warning is checked
            # only where a step lists it
            if not any("base_url has no scheme" in l for l in step.get("stderr", [])):
                lines = [l for l in lines if "warning: base_url has no scheme and host" not in l]
            if os.path.isdir(out):
                bad = bad_outputs(out)
                check(not bad, f"{where}: outputs with invalid UTF-8 or a URL scheme other than "
                      "http, https, mailto:\n  " + "\n  ".join(bad[:20]))
            for line in step.get("stderr", []):
                check(line in lines, f"{where}: stderr lacks the line\n  {line}{shown}")
            if step.get("stderr_exact"):
                extra = [l for l in lines if l not in step.get("stderr", [])]
                check(not extra, f"{where}: unexpected stderr lines {extra}{shown}")
            if "images_checked" in step:
                bad = image_problems(out, step["images_checked"])
                check(not bad, f"{where}: images:\n  " + "\n  ".join(bad[:20]))
            for rx in step.get("stdout", []):
                check(any(re.search(rx, l) for l in stdout.splitlines()),
                      f"{where}: no stdout line matches /{rx}/{shown}")
            for rel, snippets in (step.get("files") or {}).items():
                p2 = os.path.join(out, rel)
                check(os.path.isfile(p2), f"{where}: {rel} was not written{shown}")
                with open(p2, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for s in snippets or []:
                    check(s in text, f"{where}: {rel} lacks\n  {s}\n--- {rel}\n{text}")
            for rel, snippets in (step.get("not_in") or {}).items():
                with open(os.path.join(out, rel), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for s in snippets:
                    check(s not in text, f"{where}: {rel} should not contain\n  {s}")
            for rel, want in (step.get("counts") or {}).items():
                with open(os.path.join(out, rel), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for s, n in want.items():
                    check(text.count(s) == n,
                          f"{where}: {rel} holds\n  {s}\n{text.count(s)} times, not {n}\n--- {rel}\n{text}")
            for rel in step.get("absent", []):
                check(not os.path.exists(os.path.join(out, rel)),
                      f"{where}: {rel} should not exist")
            for rel in step.get("absent_site", []):
                check(not os.path.lexists(os.path.join(site, rel)),
                      f"{where}: {rel} (beside the output) should not exist")
            if "same_as" in step or "kept" in step or "untouched" in step:
                now = tree(out)
                ref = snaps[step.get("same_as") or step.get("kept") or step.get("untouched")]
                check(now.keys() == ref.keys(),
                      f"{where}: file lists differ: {sorted(set(now) ^ set(ref))}")
                diff = [k for k in now if now[k][0] != ref[k][0]]
                check(not diff, f"{where}: contents differ: {diff}")
                if "kept" in step or "untouched" in step:
                    moved = [k for k in now if now[k][1:] != ref[k][1:]]
                    check(not moved, f"{where}: rewritten (inode or mtime changed): {moved}")
            if "snapshot" in step:
                snaps[step["snapshot"]] = tree(out)
            leftovers = [e for e in os.listdir(site)
                         if ".tmp-" in e or ".sheaf-new-" in e or ".sheaf-old-" in e]
            check(not leftovers, f"{where}: temporary folders left behind: {leftovers}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class ImgParser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.imgs = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.imgs.append(dict(attrs))

    handle_startendtag = handle_starttag


def image_problems(out, base):
    """What is wrong with the <img> tags of the HTML pages below out."""
    bad, widths = [], {}

    def width_of(rel):
        if rel not in widths:
            p = subprocess.run(["vipsheader", "-f", "width", os.path.join(out, rel)],
                               capture_output=True, text=True)
            widths[rel] = int(p.stdout) if p.returncode == 0 else None
        return widths[rel]

    for rel in sorted(tree(out)):
        if not rel.endswith(".html"):
            continue
        parser = ImgParser()
        with open(os.path.join(out, rel), encoding="utf-8") as fh:
            parser.feed(fh.read())
        for img in parser.imgs:
            src = img.get("src", "")
            if not ("width" in img and "height" in img) and not src.startswith("http"):
                bad.append(f"{rel}: <img src={src!r}> has no width and height")
            for cand in filter(None, (c.strip() for c in img.get("srcset", "").split(", "))):
                url, _, w = cand.rpartition(" ")
                if not url.startswith(base) or not w.endswith("w"):
                    bad.append(f"{rel}: srcset candidate {cand!r} is not '{base}… Nw'")
                    continue
                file = urllib.parse.unquote(url[len(base):])
                got = width_of(file) if os.path.isfile(os.path.join(out, file)) else "missing"
                if got != int(w[:-1]):
                    bad.append(f"{rel}: srcset candidate {cand!r}: {file} is {got} wide")
    return bad


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sheaf = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or sorted(
        d for d in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, d, "test.yaml")))
    failed = 0
    for name in names:
        try:
            run_fixture(sheaf, name)
            print(f"ok   {name}")
        except Fail as e:
            failed += 1
            print(f"FAIL {name}: {e}")
        except Exception as e:  # a broken test.yaml, a crash of the runner
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
