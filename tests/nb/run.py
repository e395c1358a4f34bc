#!/usr/bin/python3
"""Real notebooks (tests/nb/notebooks, see ORIGIN.md there) built as posts.

    run.py SHEAF              every cell appears, in order; every image is
                              written beside the page with the bytes of its
                              base64 and the width and height of its header;
                              every HTML table of an output is in the page
    run.py SHEAF --nbconvert  and, against `jupyter nbconvert --to html`
                              (Debian's python3-nbconvert): the same cells in
                              the same order, each output shown as the same
                              representation (data-mime-type)

Exit 77 (skipped) when --nbconvert is asked and nbconvert is missing.
"""
import base64
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
NOTEBOOKS = os.path.join(HERE, "notebooks")
NBCONVERT = ["/usr/bin/python3", "-m", "nbconvert"]
# nbconvert's HTML exporter's display_data_priority, as sheaf has it with
# markdown.unsafe (widgets and JavaScript are never shown)
PRIORITY = ["text/html", "text/markdown", "image/svg+xml", "text/latex", "image/png", "image/jpeg", "text/plain"]


def image_size(data):
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return struct.unpack(">II", data[16:24])
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 4 <= len(data):
            m = data[i + 1]
            if m == 0xFF:
                i += 1
                continue
            ln = struct.unpack(">H", data[i + 2:i + 4])[0]
            if 0xC0 <= m <= 0xCF and m not in (0xC4, 0xC8, 0xCC):
                h, w = struct.unpack(">HH", data[i + 5:i + 9])
                return w, h
            i += 2 + ln
    return None


class Cells(html.parser.HTMLParser):
    """Cells and their outputs' representations, in sheaf's page (nb-cell,
    nb-output) or nbconvert's (jp-Cell, jp-OutputArea-output)."""

    def __init__(self, sheaf):
        super().__init__()
        self.sheaf = sheaf
        self.cells = []  # [kind, [mime, ...]]
        self.images = []  # (src, width, height)
        self.tables = 0
        self.output = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "div":
            if self.sheaf and "nb-cell" in cls:
                self.cells.append(["markdown" if "nb-markdown" in cls else "code", []])
            elif not self.sheaf and "jp-Cell" in cls:
                kind = "markdown" if "jp-MarkdownCell" in cls else "code" if "jp-CodeCell" in cls else "raw"
                self.cells.append([kind, []])
            if ("nb-output" in cls if self.sheaf else "jp-OutputArea-output" in cls) and self.cells:
                self.output = [a.get("data-mime-type")]
                self.cells[-1][1].append(self.output)
        elif tag == "img":
            self.images.append((a.get("src"), a.get("width"), a.get("height")))
            if self.output is not None and not self.output[0] and (a.get("src") or "").startswith("data:"):
                self.output[0] = a["src"][5:].split(";")[0]
        elif tag == "table":
            self.tables += 1

    def result(self):
        return [(k, [o[0] for o in outs]) for k, outs in self.cells if k != "raw"]


def expected_cells(nb):
    out = []
    for i, c in enumerate(nb["cells"]):
        tags = c.get("metadata", {}).get("tags", [])
        src = "".join(c.get("source", ""))
        if c["cell_type"] == "raw" or "remove-cell" in tags:
            continue
        out.append(c["cell_type"])
    return out


def main():
    sheaf = os.path.abspath(sys.argv[1])
    differential = "--nbconvert" in sys.argv
    if differential and subprocess.run(NBCONVERT + ["--version"], capture_output=True).returncode:
        print("nbconvert is missing: apt-get install python3-nbconvert (scripts/deps.sh test)")
        return 77
    failures = []
    tmp = tempfile.mkdtemp()
    try:
        site = os.path.join(tmp, "site")
        posts = os.path.join(site, "content", "posts")
        os.makedirs(posts)
        with open(os.path.join(site, "site.yaml"), "w") as f:
            f.write("title: Notebooks\nbase_url: https://example.org/\n")
        names = sorted(n for n in os.listdir(NOTEBOOKS) if n.endswith(".ipynb"))
        for i, n in enumerate(names):
            shutil.copy(os.path.join(NOTEBOOKS, n), os.path.join(posts, "2024-01-%02d-%s" % (i + 1, n)))
        r = subprocess.run([sheaf, "build", "-q", "-s", site], capture_output=True, text=True)
        if r.returncode:
            print(r.stderr)
            return 1
        for i, n in enumerate(names):
            stem = n[:-len(".ipynb")]
            slug = stem.lower().replace("_", "-")
            page = os.path.join(site, "public", "posts", slug, "index.html")
            with open(os.path.join(NOTEBOOKS, n)) as f:
                nb = json.load(f)
            with open(page) as f:
                p = Cells(True)
                p.feed(f.read())
            got = p.result()
            want = expected_cells(nb)
            if [k for k, _ in got] != want:
                failures.append(f"{n}: cells {[k for k, _ in got]}, want {want}")
            # every image: the bytes of its base64, the size of its header
            for src, w, h in p.images:
                if not src or not src.startswith("/posts/%s/" % slug):
                    continue
                path = os.path.join(site, "public", src.lstrip("/"))
                if not os.path.exists(path):
                    failures.append(f"{n}: {src} was not written")
                    continue
                data = open(path, "rb").read()
                size = image_size(data)
                # (an image of a Markdown cell has no size written)
                if size and w and (str(size[0]), str(size[1])) != (w, h):
                    failures.append(f"{n}: {src} is {size}, the page says {w}×{h}")
            # the images shown: an output's when nbconvert's order chooses
            # one, an attachment's first image
            decoded = set()
            for c in nb["cells"]:
                for o in c.get("outputs", []):
                    m = next((m for m in PRIORITY if m in o.get("data", {})), None)
                    if m in ("image/png", "image/jpeg"):
                        decoded.add(base64.b64decode("".join(o["data"][m])))
                for att in c.get("attachments", {}).values():
                    m = next((m for m in att if m in ("image/png", "image/jpeg", "image/gif", "image/svg+xml")), None)
                    if m in ("image/png", "image/jpeg"):
                        decoded.add(base64.b64decode("".join(att[m])))
            written = set()
            folder = os.path.dirname(page)
            for f in os.listdir(folder):
                if f.endswith((".png", ".jpg")):
                    written.add(open(os.path.join(folder, f), "rb").read())
            if not decoded <= written:
                failures.append(f"{n}: {len(decoded - written)} images of the notebook not written beside the page")
            tables = sum("<table" in "".join(o.get("data", {}).get("text/html", ""))
                         for c in nb["cells"] for o in c.get("outputs", []))
            if p.tables < tables:
                failures.append(f"{n}: {p.tables} tables, the outputs hold {tables}")
            if differential:
                r = subprocess.run(NBCONVERT + ["--to", "html", "--stdout", os.path.join(NOTEBOOKS, n)],
                                   capture_output=True, text=True)
                if r.returncode:
                    # svg.ipynb: nbconvert 6.5 hands lxml an SVG with an
                    # encoding declaration as str, and lxml refuses it
                    print(f"{n}: nbconvert cannot convert it: {r.stderr.strip().splitlines()[-1]}")
                    continue
                q = Cells(False)
                q.feed(r.stdout)
                theirs = q.result()
                # a widget nbconvert shows as its view (JavaScript, no
                # data-mime-type); sheaf runs no JavaScript: its text/plain
                theirs = [(k, ["text/plain" if m is None else m for m in outs]) for k, outs in theirs]
                if got != theirs:
                    failures.append(f"{n}: differs from nbconvert:\n  sheaf     {got}\n  nbconvert {theirs}")
            print(f"{n}: {len(got)} cells, {len(p.images)} images, {p.tables} tables")
        # the notebook budget (NB_MAX, 1 GiB): one byte more is refused
        # before anything is mapped (a sparse file: no disk, no time)
        big = os.path.join(posts, "2024-02-01-big.ipynb")
        with open(big, "wb") as f:
            f.truncate((1 << 30) + 1)
        r = subprocess.run([sheaf, "build", "-q", "-s", site], capture_output=True, text=True,
                           env=dict(os.environ, NO_COLOR="1"))
        want = ("content/posts/2024-02-01-big.ipynb: error: cannot read: larger than 1 GiB, "
                "the most sheaf reads of one notebook")
        if r.returncode == 0 or want not in r.stderr:
            failures.append(f"a notebook over 1 GiB: exit {r.returncode}, stderr {r.stderr!r}")
        os.unlink(big)
    finally:
        shutil.rmtree(tmp)
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
