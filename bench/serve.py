#!/usr/bin/python3
"""How fast `sheaf serve` turns an edit into a reload.

    bench/serve.py SHEAF CORPUS_DIR [EDITS]      (EDITS: default 20)
    GAP=2 bench/serve.py …                       seconds between edits (default 0.15)

Starts `sheaf serve` on a free loopback port over a corpus from
bench/gen_corpus.py, listens on its Server-Sent Events endpoint like a
browser tab does, then edits one post EDITS times each way:

  body     a paragraph appended to the post (only its page re-renders)
  title    its title changed (the index, tag, archive and feed pages too)
  formula  a paragraph with a new formula each time (rendered by KaTeX, as
           it is in no cache; the first one also starts the engine)
  code     a new Python code block each time (highlighted)

Each edit is written the way an editor saves (a new file written, closed and
renamed over the old one). For each it measures the time from the rename to
the `reload` event arriving, and reads the server's own "Rebuilt in N ms".
Prints the median and the worst of both, checks the served page shows the
last edit, and puts the post back as it was.
"""
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request


class Events(threading.Thread):
    """Timestamps of the SSE events of one connection."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(b"GET /__sheaf/events HTTP/1.0\r\nHost: localhost\r\n\r\n")
        self.cond = threading.Condition()
        self.events = []  # (name, time)
        self.start()

    def run(self):
        data, name = b"", None
        while True:
            chunk = self.sock.recv(65536)
            if not chunk:
                return
            now = time.perf_counter()
            data += chunk
            while b"\n" in data:
                line, _, data = data.partition(b"\n")
                line = line.rstrip(b"\r")
                if line.startswith(b"event:"):
                    name = line[6:].strip().decode()
                elif line == b"" and name:
                    with self.cond:
                        self.events.append((name, now))
                        self.cond.notify_all()
                    name = None

    def next(self, timeout=60):
        end = time.perf_counter() + timeout
        with self.cond:
            while not self.events:
                left = end - time.perf_counter()
                if left <= 0:
                    return None
                self.cond.wait(left)
            return self.events.pop(0)


def save(path, text):
    """As an editor saves: a new file, written and closed, renamed over."""
    tmp = os.path.join(os.path.dirname(path), ".bench-save.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    t = time.perf_counter()
    os.rename(tmp, path)
    return t


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sheaf, corpus = sys.argv[1], sys.argv[2]
    edits = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    gap = float(os.environ.get("GAP", "0.15"))  # a writer saving fast, by default
    posts = sorted(os.listdir(os.path.join(corpus, "content", "posts")))
    post = os.path.join(corpus, "content", "posts", posts[len(posts) // 2])
    original = open(post, encoding="utf-8").read()
    if not re.search(r"(?m)^title: ", original) or "draft: true" in original:
        sys.exit(f"serve.py: {post} has no title line or is a draft; pick another corpus")

    t0 = time.perf_counter()
    srv = subprocess.Popen([sheaf, "serve", "-s", corpus, "--port", "0", "--stats"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []

    def reader():
        for line in srv.stdout:
            lines.append((time.perf_counter(), line.rstrip("\n")))

    threading.Thread(target=reader, daemon=True).start()
    url = None
    while url is None:
        if srv.poll() is not None:
            sys.exit("serve.py: sheaf serve exited:\n" + "\n".join(l for _, l in lines))
        for _, l in lines:
            m = re.match(r"^Serving .* at (\S+) ", l)
            if m:
                url = m.group(1)
        time.sleep(0.01)
    print(f"{len(posts)} posts: initial build and server up in {time.perf_counter() - t0:.2f} s")
    port = int(re.search(r":(\d+)/", url).group(1))
    ev = Events(port)
    time.sleep(0.3)  # the event stream is open

    results = {}
    try:
        for kind in ("body", "title", "formula", "code"):
            lat, built = [], []
            for i in range(1, edits + 1):
                if kind == "body":
                    text = original + f"\n\nBenchmark edit number {i}.\n"
                elif kind == "formula":
                    text = original + (f"\n\nWith $\\sum_{{k=1}}^{{{i}}} \\eta_k^2 < "
                                       f"\\frac{{{i}}}{{\\sqrt{{T}}}}$ it converges.\n")
                elif kind == "code":
                    text = original + (f"\n\n```python\ndef step_{i}(x, lr=0.{i}):\n"
                                       f"    return [v - lr * g for v, g in x]  # {i}\n```\n")
                else:
                    text = re.sub(r"(?m)^title: .*$", f'title: "Benchmark title {i}"', original, 1)
                seen = len(lines)
                t = save(post, text)
                e = ev.next()
                if e is None or e[0] != "reload":
                    sys.exit(f"serve.py: expected a reload event, got {e}; server said:\n"
                             + "\n".join(l for _, l in lines[seen:]))
                lat.append((e[1] - t) * 1000)
                deadline = time.perf_counter() + 5
                while time.perf_counter() < deadline:
                    said = [l for _, l in lines[seen:] if l.startswith("Rebuilt in ")]
                    if said:
                        built.append(float(re.match(r"Rebuilt in (\d+(?:\.\d+)?) ms", said[0]).group(1)))
                        break
                    time.sleep(0.005)
                time.sleep(gap)
            results[kind] = (lat, built)
        phases = [l for _, l in lines if l.startswith("  config ")]
        if phases:
            print("the last rebuild's phases:", phases[-1].strip())
        slug = re.sub(r"^\d{4}-\d{2}-\d{2}-", "", os.path.basename(post))[:-3]
        page = urllib.request.urlopen(f"{url}posts/{slug}/").read().decode("utf-8")
        if "Benchmark title" not in page:
            sys.exit(f"serve.py: the served page posts/{slug}/ does not show the last edit")
    finally:
        with open(post, "w", encoding="utf-8") as f:
            f.write(original)
        time.sleep(0.3)
        srv.terminate()
        srv.wait(10)

    print(f"{edits} edits each, edit saved → reload event received (server's own rebuild time):")
    for kind, (lat, built) in results.items():
        print(f"  {kind:7}  median {statistics.median(lat):6.1f} ms, worst {max(lat):6.1f} ms"
              f"   (rebuilt in: median {statistics.median(built):.0f} ms, worst {max(built):.0f} ms)")


if __name__ == "__main__":
    main()
