#!/bin/sh
# Screenshots of the default theme, rendered with a mock site by
# render_mock.py, at phone and desktop widths, light and dark.
#   tests/theme/screenshot.sh [SHOT_DIR]     (default: /tmp/sheaf-theme-shots)
# Needs python3 (with jinja2) and chromium. Look at the PNGs afterwards.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shots=${1:-/tmp/sheaf-theme-shots}
site=$(mktemp -d)
profile=$(mktemp -d)
port=$((20000 + $$ % 20000))
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    rm -rf "$site" "$profile"
}
trap cleanup EXIT INT TERM

/usr/bin/python3 "$here/render_mock.py" "$site" --base-url "http://127.0.0.1:$port/notes/"
/usr/bin/python3 -m http.server "$port" --bind 127.0.0.1 -d "$site" >/dev/null 2>&1 &
server=$!
# wait for the server
i=0
until /usr/bin/python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/notes/')" 2>/dev/null; do
    i=$((i + 1)); [ $i -gt 50 ] && { echo "screenshot.sh: server did not start" >&2; exit 1; }
    sleep 0.1
done

mkdir -p "$shots"
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
shoot() { # name path width height [dark]
    extra=
    [ "${5:-}" = dark ] && extra="--blink-settings=preferredColorScheme=0"
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$profile" --window-size="$3,$4" $extra \
        --screenshot="$shots/$1.png" "http://127.0.0.1:$port/notes/$2" >/dev/null 2>&1
    echo "$shots/$1.png"
}
for w in 375x800 1280x900; do
    W=${w%x*} H=${w#*x}
    shoot "post-$w" "posts/distributed-training-research/" "$W" "$H"
    shoot "note-$w" "posts/in-network-aggregation/" "$W" "$H"
    shoot "code-$w" "posts/gradient-compression-notes/" "$W" "$H"
    shoot "cjk-$w" "posts/%E5%88%86%E5%B8%83%E5%BC%8F%E8%AE%AD%E7%BB%83%E7%AC%94%E8%AE%B0/" "$W" "$H"
    shoot "index-$w" "" "$W" "$H"
    shoot "index2-$w" "page/3/" "$W" "$H"
    shoot "archive-$w" "archive/" "$W" "$H"
    shoot "tags-$w" "tags/" "$W" "$H"
    shoot "tag-$w" "tags/distributed-training/" "$W" "$H"
    shoot "about-$w" "about/" "$W" "$H"
    shoot "404-$w" "404.html" "$W" "$H"
    shoot "post-dark-$w" "posts/distributed-training-research/" "$W" "$H" dark
    shoot "code-dark-$w" "posts/gradient-compression-notes/" "$W" "$H" dark
done
# Whole pages, cut into window-high slices (a #fragment in the URL gives a
# blank headless screenshot, so the ends of long pages are seen this way).
tall() { # name path width height
    shoot "$1-full" "$2" "$3" 8000 >/dev/null
    /usr/bin/python3 "$here/pngslice.py" "$shots/$1-full.png" "$4" "$shots/$1"
    rm -f "$shots/$1-full.png"
}
tall post-full-375 "posts/distributed-training-research/" 375 800
tall post-full-1280 "posts/distributed-training-research/" 1280 900
tall note-full-375 "posts/in-network-aggregation/" 375 800
tall code-full-375 "posts/gradient-compression-notes/" 375 800
