#!/usr/bin/python3
"""End-to-end test of publishing under a sub-path.

`sheaf new site` -> `sheaf new post` (an ASCII and a CJK title) -> deploy,
with base_url https://user.github.io/notes/, to a local folder -> Debian's
nginx, started here on a free loopback port with its own config, pid and
log paths, serves that folder under /notes/ -> a crawler follows every
internal link, image, stylesheet, script, feed and sitemap URL from the home
page and fails on anything but 200. Then a post is deleted, the site
deployed again, and the stale page must be gone from the target (and 404).

usage: e2e.py path/to/sheaf
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser

BASE = "https://user.github.io/notes/"
NGINX = "/usr/sbin/nginx"


def run(args, ok=True, **kw):
    p = subprocess.run(args, capture_output=True, text=True, timeout=60, **kw)
    if ok and p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)} exited {p.returncode}\n{p.stdout}{p.stderr}")
    return p


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Links(HTMLParser):
    """Every URL an HTML page points at: href, src, srcset."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls = []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if v is None:
                continue
            if k in ("href", "src"):
                self.urls.append(v)
            elif k == "srcset":
                self.urls += [c.strip().split()[0] for c in v.split(",") if c.strip()]


def xml_urls(text):
    """URLs in an Atom feed or a sitemap: href="…" attributes and <loc>/<uri>/<icon>/<logo>."""
    urls = re.findall(r'\bhref="([^"]*)"', text)
    urls += re.findall(r"<(?:loc|uri|icon|logo)>\s*([^<\s]+)\s*</", text)
    return [u.replace("&amp;", "&") for u in urls]


class Crawler:
    def __init__(self, port):
        self.server = f"http://127.0.0.1:{port}/"
        self.root = self.server + "notes/"
        self.seen = {}
        self.errors = []

    def local(self, url, page):
        """The server URL for a link found on `page`, or None if external."""
        url = urllib.parse.urljoin(page, url)
        url, _ = urllib.parse.urldefrag(url)
        # As a browser does: raw non-ASCII in a link is sent percent-encoded.
        url = urllib.parse.quote(url, safe=":/?&=;+,@!$'()*%-._~")
        if url.startswith(BASE):
            return self.root + url[len(BASE):]
        host = urllib.parse.urlsplit(BASE).netloc
        if urllib.parse.urlsplit(url).netloc == host:
            self.errors.append(f"{page}: link {url} leaves the site's sub-path")
            return None
        if url.startswith(self.server):
            return url
        return None

    def crawl(self, seeds):
        queue = list(seeds)
        while queue:
            url, referrer = queue.pop(0)
            if url in self.seen:
                continue
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    status, ctype, body = r.status, r.headers.get("Content-Type", ""), r.read()
            except urllib.error.HTTPError as e:
                status, ctype, body = e.code, "", b""
            self.seen[url] = status
            if status != 200:
                self.errors.append(f"{url}: HTTP {status} (linked from {referrer})")
                continue
            text = body.decode("utf-8", "replace")
            if "html" in ctype:
                p = Links()
                p.feed(text)
                found = p.urls
            elif "xml" in ctype or url.endswith(".xml"):
                found = xml_urls(text)
            else:
                found = []
            for u in found:
                if u.startswith(("mailto:", "javascript:", "data:", "tel:")):
                    continue
                target = self.local(u, url)
                if target and target not in self.seen:
                    queue.append((target, url))


class Nginx:
    """nginx in the foreground, every path inside `work`."""

    def __init__(self, work, port, docroot):
        self.work, self.port = work, port
        os.makedirs(os.path.join(work, "temp"), exist_ok=True)
        conf = os.path.join(work, "nginx.conf")
        user = "user root;\n" if os.geteuid() == 0 else ""
        temps = "".join(
            f"  {k}_temp_path {work}/temp/{k};\n"
            for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        with open(conf, "w") as f:
            f.write(f"""{user}worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log;
events {{ worker_connections 64; }}
http {{
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log {work}/access.log;
{temps}  server {{
    listen 127.0.0.1:{port};
    location /notes/ {{ alias {docroot}/; }}
  }}
}}
""")
        self.proc = subprocess.Popen(
            [NGINX, "-p", work + "/", "-e", f"{work}/error.log", "-c", conf,
             "-g", "daemon off;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while time.time() < deadline:
            if self.proc.poll() is not None:
                sys.exit("FAIL: nginx exited: " + self.proc.stderr.read().decode())
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        sys.exit("FAIL: nginx did not start listening")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


def main():
    # ctest's timeout sends SIGTERM: unwind so nginx is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("FAIL: terminated"))
    sheaf = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="sheaf-e2e-")
    nginx = None
    try:
        site, www = os.path.join(tmp, "site"), os.path.join(tmp, "www")
        env = dict(os.environ, TMPDIR=tmp)

        out = run([sheaf, "new", "site", site]).stdout
        check("Created a site in" in out, "new site says what it made: " + out)
        for rel in ("site.yaml", "content/about.md", "templates", ".gitignore"):
            check(os.path.exists(os.path.join(site, rel)), "new site made " + rel)

        p1 = run([sheaf, "new", "post", "-s", site, "Gradient Compression", "--tags",
                  "ml,systems"]).stdout.strip()
        check(re.search(r"/content/posts/\d{4}-\d\d-\d\d-gradient-compression\.md$", p1),
              "new post prints its path: " + p1)
        p2 = run([sheaf, "new", "post", "-s", site, "分布式训练"]).stdout.strip()
        check(p2.endswith("-分布式训练.md"), "CJK slug: " + p2)

        # Give the posts links, an image and a stylesheet-bearing theme to follow.
        os.makedirs(os.path.join(site, "content/posts/img"), exist_ok=True)
        with open(os.path.join(site, "content/posts/img/chart.svg"), "w") as f:
            f.write('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>\n')
        with open(p1, "a") as f:
            f.write("Top-k sparsification, see [the survey](%s#survey).\n\n"
                    "![chart](img/chart.svg)\n\n## Results\n\nSmaller gradients.\n"
                    % os.path.basename(p2))
        with open(p2, "a") as f:
            f.write("## Survey\n\n数据并行与模型并行。 Back to "
                    "[compression](%s#results) and [about](../about.md).\n"
                    % os.path.basename(p1))
        with open(os.path.join(site, "site.yaml"), "a") as f:
            f.write(f"\nbase_url: {BASE}\npaginate: 1\ndeploy:\n  target: ../www\n")

        out = run([sheaf, "deploy", "-s", site], env=env).stdout
        check(re.search(r"^deployed to .*www: \d+ added, 0 changed, 0 removed$", out, re.M),
              "deploy summary: " + out)
        check(os.path.exists(os.path.join(www, ".nojekyll")), ".nojekyll in the target")
        check(not [n for n in os.listdir(tmp) if n.startswith("sheaf-deploy-")],
              "the build folder is removed")
        out = run([sheaf, "deploy", "-s", site, "--dry-run"], env=env).stdout
        check(re.search(r"would deploy to .*www: 0 added, 0 changed, 0 removed", out),
              "a second deploy has nothing to do: " + out)

        port = free_port()
        nginx = Nginx(os.path.join(tmp, "nginx"), port, www)
        c = Crawler(port)
        root = c.root
        c.crawl([(root, "(start)"), (root + "atom.xml", "(start)"),
                 (root + "sitemap.xml", "(start)")])
        check(not c.errors, "crawl:\n  " + "\n  ".join(c.errors))
        cjk = root + "posts/" + urllib.parse.quote("分布式训练") + "/"
        must = [root + "posts/gradient-compression/", cjk, root + "posts/img/chart.svg",
                root + "about/", root + "page/2/"]
        for u in must:
            check(c.seen.get(u) == 200, f"the crawl reached {u}")
        check(any(u.endswith(".css") for u in c.seen), "the crawl reached a stylesheet")
        print(f"crawled {len(c.seen)} URLs, all 200")

        # Delete a post: the next deploy removes its page.
        os.remove(p2)
        with open(p1) as f:
            text = f.read()
        with open(p1, "w") as f:
            f.write(re.sub(r"see \[the survey\]\([^)]*\)", "see the survey", text))
        out = run([sheaf, "deploy", "-s", site], env=env).stdout
        m = re.search(r"deployed to .*www: (\d+) added, (\d+) changed, (\d+) removed", out)
        check(m and int(m.group(3)) >= 1, "the second deploy removes files: " + out)
        check(not os.path.exists(os.path.join(www, "posts", "分布式训练")),
              "the deleted post's folder is gone from the target")
        try:
            urllib.request.urlopen(cjk, timeout=5)
            check(False, "the deleted post is still served")
        except urllib.error.HTTPError as e:
            check(e.code == 404, f"the deleted post gives 404, not {e.code}")
        c = Crawler(port)
        c.crawl([(root, "(start)"), (root + "atom.xml", "(start)"),
                 (root + "sitemap.xml", "(start)")])
        check(not c.errors, "crawl after delete:\n  " + "\n  ".join(c.errors))
        print(f"after deleting a post: crawled {len(c.seen)} URLs, all 200")
    finally:
        if nginx:
            nginx.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
