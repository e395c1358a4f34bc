#!/bin/sh
# static_root.sh DIST SHEAF — the release binary is self-contained: `file`
# and `ldd` call it static, it is under 15 MB, and inside an empty root (a
# folder holding only the binary, the example site and /dev/null, entered
# with chroot) it builds the example site byte for byte as SHEAF, the
# normal build, does outside, and `sheaf serve --bind localhost` answers
# there (no NSS, no /etc/hosts in that root).
set -eu
. "$(dirname "$0")/lib.sh"
bin=$(release_bin "$1")
sheaf=$2
[ "$(id -u)" = 0 ] || skip "chroot and mknod need root"
file -b "$bin" | grep -q 'statically linked' || fail "file: $(file -b "$bin")"
ldd "$bin" >/dev/null 2>&1 && fail "ldd lists libraries: $(ldd "$bin")"
size=$(stat -c %s "$bin")
[ "$size" -lt 15000000 ] || fail "the binary is $size bytes, over 15 MB"
"$bin" --version | grep -q "^sheaf $version (commit .*, static)$" || fail "--version: $("$bin" --version)"
echo "ok static, $size bytes: $("$bin" --version | head -1)"

tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=
jail=$tmp/root
mkdir -p "$jail/dev"
mknod -m 666 "$jail/dev/null" c 1 3
cp "$bin" "$jail/sheaf"
copy_example_site "$jail/site"
copy_example_site "$tmp/site"
chroot "$jail" /sheaf build -q -s /site -o /out --base-url https://example.org/notes/ ||
    fail "the static binary did not build the example site in an empty root"
"$sheaf" build -q -s "$tmp/site" -o "$tmp/out" --base-url https://example.org/notes/ ||
    fail "the normal build failed"
diff -r "$jail/out" "$tmp/out" >"$tmp/diff" || { head -40 "$tmp/diff"; fail "the outputs differ"; }
echo "ok the example site ($(find "$tmp/out" -type f | wc -l) files) is byte-identical in an empty root"

# serve, in the root (which has no /tmp), on a free port
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
chroot "$jail" /sheaf serve -s /site --bind localhost --port "$port" >"$tmp/serve.log" 2>&1 &
pid=$!
python3 - "$port" <<'PY' || { cat "$tmp/serve.log"; fail "sheaf serve did not answer in the empty root"; }
import sys, time, urllib.request
url = "http://127.0.0.1:%s/" % sys.argv[1]
for _ in range(100):
    try:
        body = urllib.request.urlopen(url, timeout=2).read()
        if b"Distributed Training Research" in body:
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit(1)
PY
kill "$pid"
wait "$pid" 2>/dev/null || true
pid=
left=$(find "$jail" -maxdepth 2 -name '.sheaf-serve-*')
[ -z "$left" ] || fail "serve left its build folder behind: $left"
echo "ok sheaf serve --bind localhost answers in the empty root (no /tmp: it builds in the site folder), and cleans up"
