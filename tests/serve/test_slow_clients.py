#!/usr/bin/python3
"""`sheaf serve` keeps answering while many clients hold connections open:
1,100 connections from this machine — idle ones, ones that send half a
request and then one byte now and then (slowloris), and open live-reload
event streams — must not stop a normal request from being answered at
once, nor a rebuild's event from reaching the streams. Idle connections are
closed after the idle timeout. Then the per-address limit: from an address
other than 127.0.0.1 / ::1 (here 127.0.0.2), connections beyond the limit
are refused while 127.0.0.1 is still served.

usage: test_slow_clients.py path/to/sheaf
"""
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

failures = []
passed = 0
SLOW = 1100          # connections held open at once
IDLE_TIMEOUT = 10    # the server's idle timeout, seconds (docs/serve.md)
PER_IP = 64          # the per-address limit for other machines


def check(what, cond, detail=""):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(f"{what}{': ' + detail if detail else ''}")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def get(port, path="/", timeout=5):
    """One GET with a fresh connection; (status, seconds) or (error, seconds)."""
    t0 = time.time()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
        m = re.match(rb"HTTP/1\.[01] (\d+)", data)
        return (int(m.group(1)) if m else repr(data[:40])), time.time() - t0
    except OSError as e:
        return repr(e), time.time() - t0


def closed(s):
    """Has the server closed this connection (EOF or reset)?"""
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        s.setblocking(True)


def main():
    sheaf = os.path.abspath(sys.argv[1])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 4096)
    if want < SLOW + 200:
        print(f"skipped: needs {SLOW + 200} open files, the limit here is {hard}")
        return 77
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    tmp = tempfile.mkdtemp(prefix="sheaf-slow-test-")
    site = os.path.join(tmp, "site")
    write(os.path.join(site, "site.yaml"), "title: Slow\nbase_url: https://example.org/\n")
    post = os.path.join(site, "content/posts/2024-01-01-one.md")
    write(post, "---\ntitle: One\ndate: 2024-01-01\n---\nFirst words.\n")
    env = dict(os.environ, TMPDIR=tmp, NO_COLOR="1")
    srv = subprocess.Popen([sheaf, "serve", "-s", site, "--port", "0"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=env)
    lines = []
    threading.Thread(target=lambda: [lines.append(x.rstrip("\n")) for x in srv.stdout],
                     daemon=True).start()
    socks = []
    try:
        port = None
        end = time.time() + 60
        while port is None and time.time() < end and srv.poll() is None:
            for line in list(lines):
                m = re.match(r"^Serving .* at http://127\.0\.0\.1:(\d+)/", line)
                if m:
                    port = int(m.group(1))
            time.sleep(0.05)
        if not port:
            failures.append("the server did not start:\n" + "\n".join(lines))
            return 1
        st, _ = get(port)
        check("a request before the load", st == 200, str(st))

        # 1,100 connections held open: a third idle, a third half a
        # request, a third event streams.
        streams = []
        for i in range(SLOW):
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=10)
            except OSError as e:
                failures.append(f"connection {i} refused: {e!r}")
                break
            kind = i % 3
            if kind == 1:
                s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
            elif kind == 2:
                s.sendall(b"GET /__sheaf/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
                streams.append(s)
            socks.append(s)
        check(f"{SLOW} connections open", len(socks) == SLOW, str(len(socks)))
        dropped = 0
        for s in socks[1::3]:
            try:
                s.sendall(b"x")  # the slow ones trickle
            except OSError:
                dropped += 1
        check("no held connection was dropped", dropped == 0, f"{dropped} reset")
        st, secs = get(port)
        check("a normal request is answered while they are open", st == 200, str(st))
        check("and at once", secs < 3, f"{secs:.2f} s")
        st, secs = get(port, "/posts/one/")
        check("a page too", st == 200 and secs < 3, f"{st} in {secs:.2f} s")

        # An edit still reaches every open event stream.
        write(post, "---\ntitle: One\ndate: 2024-01-01\n---\nSecond words.\n")
        got = 0
        deadline = time.time() + 20
        for s in streams:
            s.settimeout(max(0.1, deadline - time.time()))
            data = b""
            try:
                while b"event: reload" not in data:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                pass
            got += b"event: reload" in data
        check("every open event stream got the reload", got == len(streams),
              f"{got} of {len(streams)}")

        # Idle and slow connections are closed after the idle timeout;
        # event streams stay.
        time.sleep(IDLE_TIMEOUT + 4)
        idle_closed = sum(closed(s) for s in socks[0::3])
        slow_closed = sum(closed(s) for s in socks[1::3])
        streams_open = sum(not closed(s) for s in streams)
        n = len(socks[0::3])
        check("idle connections closed after the timeout", idle_closed == n, f"{idle_closed} of {n}")
        check("half requests closed after the timeout", slow_closed == len(socks[1::3]),
              f"{slow_closed} of {len(socks[1::3])}")
        check("event streams stay open", streams_open == len(streams),
              f"{streams_open} of {len(streams)}")
        for s in socks:
            s.close()
        socks = []

        # The per-address limit, for a client that is not this machine's
        # browser: 127.0.0.2 stands in for another machine.
        other = []
        refused = 0
        for i in range(PER_IP + 20):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind(("127.0.0.2", 0))
                s.connect(("127.0.0.1", port))
            except OSError:
                refused += 1
                s.close()
                continue
            other.append(s)
        socks = other
        time.sleep(0.5)
        over = sum(closed(s) for s in other) + refused
        check(f"another address gets {PER_IP} connections, the rest are closed",
              over == 20, f"{over} closed of {PER_IP + 20}")
        st, secs = get(port)
        check("127.0.0.1 is still served", st == 200 and secs < 3, f"{st} in {secs:.2f} s")
    finally:
        for s in socks:
            s.close()
        srv.terminate()
        try:
            srv.wait(15)
        except subprocess.TimeoutExpired:
            srv.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    code = main()
    for f in failures:
        print("FAIL " + f)
    print(f"{passed} passed, {len(failures)} failed")
    sys.exit(code)
