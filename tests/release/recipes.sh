#!/bin/sh
# recipes.sh DIST — the CI recipes of docs/publishing.md install the release
# binary without compiling anything, as a user's CI would run them:
#  1. the GitLab recipe runs exactly the lines of docs/recipes/install-release.sh,
#     the GitHub Action (action.yml) runs that script, and the Pages
#     workflow uses the action;
#  2. that script, pointed at DIST served as a releases folder on loopback,
#     installs the binary when the pinned SHA-256 matches (or, unpinned,
#     the release's own .sha256), refuses a wrong one and installs nothing,
#     and the installed binary builds the example site with the action's
#     build line.
set -eu
. "$(dirname "$0")/lib.sh"
bin=$(release_bin "$1")
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=

# 1. one set of install lines
sed -n '/^SHEAF_BIN_DIR=/,/--version$/p' "$root/docs/recipes/install-release.sh" >"$tmp/want"
[ "$(wc -l <"$tmp/want")" -gt 5 ] || fail "install-release.sh: its install lines were not found"
python3 - "$root/docs/recipes/gitlab-ci.yml" >"$tmp/got" <<'PY'
import sys, yaml
lines = yaml.safe_load(open(sys.argv[1]))["pages"]["script"]
start = next(i for i, l in enumerate(lines) if l.startswith("SHEAF_BIN_DIR="))
end = next(i for i, l in enumerate(lines) if l.endswith("--version"))
print("\n".join(lines[start:end + 1]))
PY
diff -u "$tmp/want" "$tmp/got" || fail "gitlab-ci.yml: its install lines differ from install-release.sh"
grep -q 'sh "$GITHUB_ACTION_PATH/docs/recipes/install-release.sh"' "$root/action.yml" ||
    fail "action.yml does not run docs/recipes/install-release.sh"
grep -q 'uses: OWNER/sheaf@v' "$root/.github/workflows/pages.yml" || fail "pages.yml does not use the action"
if grep -n 'cmake\|apt-get\|git clone\|deps.sh' "$root/action.yml" "$root/.github/workflows/pages.yml" \
        "$root/docs/recipes/gitlab-ci.yml"; then
    fail "a CI recipe still compiles sheaf"
fi
echo "ok the CI recipes install the release binary with install-release.sh's lines"

# 2. against a releases folder served on loopback
mkdir -p "$tmp/www/v$version"
cp "$bin" "$bin.sha256" "$tmp/www/v$version/" 2>/dev/null ||
    { cp "$bin" "$tmp/www/v$version/"; (cd "$tmp/www/v$version" && sha256sum "$(basename "$bin")" >"$(basename "$bin").sha256"); }
sum=$(cut -d' ' -f1 "$tmp/www/v$version/$(basename "$bin").sha256")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$tmp/www" "$port" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break; sleep 0.1; done
run() { # SHA256 BIN_DIR
    SHEAF_VERSION=$version SHEAF_SHA256=$1 SHEAF_RELEASES=http://127.0.0.1:$port SHEAF_BIN_DIR=$2 \
        sh "$root/docs/recipes/install-release.sh"
}
run 0000000000000000000000000000000000000000000000000000000000000000 "$tmp/bad" >"$tmp/log" 2>&1 &&
    fail "a wrong SHA-256 was accepted"
grep -q 'FAILED' "$tmp/log" || { cat "$tmp/log"; fail "a wrong SHA-256: no checksum failure reported"; }
[ ! -e "$tmp/bad/sheaf" ] || fail "a wrong SHA-256 installed the binary"
echo "ok a wrong SHA-256 is refused and nothing is installed"
run "" "$tmp/unpinned" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "unpinned install"; }
run "$sum" "$tmp/bin" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "pinned install"; }
grep -q "^sheaf $version " "$tmp/log" || { cat "$tmp/log"; fail "the installed binary's --version"; }
echo "ok install-release.sh installs the pinned binary (and an unpinned one by the release's .sha256)"
copy_example_site "$tmp/site"
# The action's build step, with its inputs as the workflow passes them.
(cd "$tmp" && PATH="$tmp/bin:$PATH" SITE=site ARGS='--base-url "https://example.org/my notes/" -q' \
    sh -c "$(sed -n 's/^ *run: \(eval .*\)$/\1/p' "$root/action.yml")") ||
    fail "the action's build line failed"
grep -q 'https://example.org/my%20notes/\|https://example.org/my notes/' "$tmp/site/public/sitemap.xml" ||
    fail "the action's args did not reach sheaf build"
echo "ok the installed binary builds the example site with the action's build line"
