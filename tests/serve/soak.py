#!/usr/bin/python3
"""`sheaf serve` under load while a post is being edited: wrk keeps the
server busy for SECONDS while a 200 KB post is saved every 100 ms (its body
only, so each save takes the fast rebuild path). Passes when wrk saw no
error (no socket error or timeout, no status other than 2xx/3xx), every save
was rebuilt, the served post shows the last save, and the server's memory
stayed flat: the largest RSS of the second half of the run is at most the
largest of the first half plus a margin (10% + 8 MB).

    soak.py SHEAF [--seconds 20] [--posts 60] [--corpus DIR] [--big-kb 200]
                  [--connections 32] [--json FILE]

The test suite runs 20 seconds on a small generated site; the 2-minute run
on a 2,000-post corpus (bench/gen_corpus.py) is a benchmark:

    python3 tests/serve/soak.py build/sheaf --seconds 120 --corpus /tmp/c2000
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:  # as editors save
        f.write(text)
    os.replace(tmp, path)


def small_site(root, posts):
    write(os.path.join(root, "site.yaml"), "title: Soak\nbase_url: https://example.org/\n")
    for i in range(posts):
        day = f"2024-{1 + i // 28:02d}-{1 + i % 28:02d}"
        write(os.path.join(root, f"content/posts/{day}-post-{i}.md"),
              f"---\ntitle: Post {i}\ndate: {day}\ntags: [t{i % 5}]\n---\n"
              + f"Paragraph {i} of a small post.\n\n" * 20)


def big_body(kb, n):
    para = ("Soak test words that make a long post, repeated to fill the page "
            "with plain paragraphs and nothing else. ")
    out, size = [], 0
    while size < kb * 1024:
        out.append(para * 4)
        size += len(para) * 4 + 2
    out.append(f"Save number {n}.")
    return "\n\n".join(out) + "\n"


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sheaf")
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--posts", type=int, default=60)
    ap.add_argument("--corpus")
    ap.add_argument("--big-kb", type=int, default=200)
    ap.add_argument("--connections", type=int, default=32)
    ap.add_argument("--json")
    a = ap.parse_args()
    if not shutil.which("wrk"):
        print("skipped: this test needs wrk (apt-get install wrk)")
        return 77
    tmp = tempfile.mkdtemp(prefix="sheaf-soak-")
    failures = []
    srv = None
    try:
        site = os.path.join(tmp, "site")
        if a.corpus:
            shutil.copytree(a.corpus, site)
        else:
            small_site(site, a.posts)
        big = os.path.join(site, "content/posts/2023-06-01-soak-big.md")
        head = "---\ntitle: The big post\ndate: 2023-06-01\ntags: [soak]\n---\n"
        write(big, head + big_body(a.big_kb, 0))
        env = dict(os.environ, TMPDIR=tmp, NO_COLOR="1")
        env.pop("SHEAF_CHECK_INCREMENTAL", None)  # a full build per save is not the point
        srv = subprocess.Popen([a.sheaf, "serve", "-s", site, "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=env)
        lines = []

        def pump():
            for line in srv.stdout:
                lines.append(line.rstrip("\n"))

        threading.Thread(target=pump, daemon=True).start()
        url = None
        deadline = time.time() + 300
        while url is None and time.time() < deadline and srv.poll() is None:
            for line in list(lines):
                m = re.match(r"^Serving .* at (\S+) ", line)
                if m:
                    url = m.group(1)
            time.sleep(0.05)
        if not url:
            print("FAIL the server did not start:\n" + "\n".join(lines))
            return 1
        lua = os.path.join(tmp, "paths.lua")
        with open(lua, "w") as f:
            f.write('local paths = {"/", "/posts/soak-big/", "/tags/", "/tags/soak/", "/atom.xml"}\n'
                    "local i = 0\n"
                    "request = function()\n"
                    "  i = i % #paths + 1\n"
                    '  return wrk.format("GET", paths[i])\n'
                    "end\n")
        for p in ("/", "/posts/soak-big/"):
            st = urllib.request.urlopen(url + p[1:]).status
            if st != 200:
                failures.append(f"{p}: status {st} before the load")
        samples = []  # (t, rss kB)
        stop = threading.Event()
        saves = [0]

        def sampler():
            t0 = time.time()
            while not stop.is_set():
                r = rss_kb(srv.pid)
                if r:
                    samples.append((time.time() - t0, r))
                time.sleep(0.25)

        def saver():
            n = 0
            while not stop.is_set():
                n += 1
                write(big, head + big_body(a.big_kb, n))
                saves[0] = n
                time.sleep(0.1)

        threads = [threading.Thread(target=sampler), threading.Thread(target=saver)]
        for t in threads:
            t.start()
        n0 = len(lines)
        w = subprocess.run(["wrk", "-t2", f"-c{a.connections}", f"-d{a.seconds}s", "--timeout", "5s",
                            "-s", lua, url], capture_output=True, text=True)
        stop.set()
        for t in threads:
            t.join()
        out = w.stdout
        print(out.rstrip())
        m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
        sock_errors = sum(int(x) for x in m.groups()) if m else 0
        m = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        bad_status = int(m.group(1)) if m else 0
        m = re.search(r"(\d+) requests in", out)
        requests = int(m.group(1)) if m else 0
        m = re.search(r"Requests/sec:\s+([\d.]+)", out)
        rps = float(m.group(1)) if m else 0.0
        if w.returncode != 0 or requests == 0:
            failures.append(f"wrk failed (status {w.returncode}): {w.stderr.strip()}")
        if sock_errors or bad_status:
            failures.append(f"wrk saw {sock_errors} socket errors and {bad_status} bad statuses")
        # every save rebuilt, the last one served
        last = saves[0]
        deadline = time.time() + 30
        body = ""
        while time.time() < deadline:
            body = urllib.request.urlopen(url + "posts/soak-big/").read().decode()
            if f"Save number {last}." in body:
                break
            time.sleep(0.2)
        if f"Save number {last}." not in body:
            failures.append(f"the served post does not show save {last}")
        rebuilt = [x for x in lines[n0:] if x.startswith("Rebuilt in ")]
        failed = [x for x in lines[n0:] if "failed" in x or "error" in x]
        if failed:
            failures.append("the server reported problems:\n" + "\n".join(failed[:10]))
        if not rebuilt:
            failures.append("no rebuild during the run")
        fast = [float(re.match(r"Rebuilt in (\d+)", x).group(1)) for x in rebuilt]
        half = [r for t, r in samples if t < a.seconds / 2]
        rest = [r for t, r in samples if t >= a.seconds / 2]
        first_max = max(half) if half else 0
        second_max = max(rest) if rest else 0
        start_rss = samples[0][1] if samples else 0
        limit = first_max * 1.10 + 8 * 1024
        if not half or not rest:
            failures.append("too few RSS samples")
        elif second_max > limit:
            failures.append(f"RSS grew: largest {first_max / 1024:.0f} MB in the first half, "
                            f"{second_max / 1024:.0f} MB in the second (limit {limit / 1024:.0f} MB)")
        summary = {
            "seconds": a.seconds, "saves": last, "rebuilds": len(rebuilt),
            "requests": requests, "requests_per_s": rps,
            "socket_errors": sock_errors, "bad_status": bad_status,
            "rss_start_mb": round(start_rss / 1024, 1),
            "rss_max_first_half_mb": round(first_max / 1024, 1),
            "rss_max_second_half_mb": round(second_max / 1024, 1),
            "rss_end_mb": round(samples[-1][1] / 1024, 1) if samples else 0,
            "rebuild_ms_max": max(fast) if fast else 0,
        }
        print(json.dumps(summary))
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"summary": summary, "rss": samples}, f)
    finally:
        if srv and srv.poll() is None:
            srv.terminate()
            try:
                srv.wait(15)
            except subprocess.TimeoutExpired:
                srv.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL " + f)
    print("soak: " + ("failed" if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
