#!/bin/sh
# in_debian.sh DEB — run by deb.sh inside a fresh minimal Debian root: the
# package installs with apt, and a new user's first steps work.
set -eu
fail() { echo "FAIL: $*" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
cd "$(dirname "$1")"
apt-get install -y -q "./$(basename "$1")" >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt-get install"; }
echo "ok apt-get install ./$(basename "$1")"
sheaf --version | grep -q '^sheaf ' || fail "sheaf --version"
sheaf new site /tmp/notes >/dev/null || fail "sheaf new site"
(cd /tmp/notes && sheaf build -q) || fail "sheaf build"
[ -f /tmp/notes/public/index.html ] || fail "no public/index.html"
echo "ok sheaf new site, sheaf build"
MANPAGER=cat MANWIDTH=80 man sheaf 2>/dev/null | grep -q 'sheaf - a static blog and site generator' ||
    fail "man sheaf"
echo "ok man sheaf"
got=$(bash -c '. /usr/share/bash-completion/bash_completion; _completion_loader sheaf;
    COMP_WORDS=(sheaf bu); COMP_CWORD=1; _sheaf; echo "${COMPREPLY[*]}"')
[ "$got" = build ] || fail "bash completion of 'sheaf bu': '$got'"
echo "ok bash completes sheaf bu → build"
for f in /usr/share/zsh/vendor-completions/_sheaf /usr/share/fish/vendor_completions.d/sheaf.fish; do
    [ -s "$f" ] || fail "$f is missing"
done
echo "ok zsh and fish completions in place"
