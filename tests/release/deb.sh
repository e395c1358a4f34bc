#!/bin/sh
# deb.sh DIST — the Debian package as a user gets it: lintian finds no
# error in it, and in a fresh minimal Debian root (mmdebstrap, from the
# archive this machine's apt uses) `apt-get install ./sheaf_*.deb` pulls in
# what it depends on, after which in_debian.sh runs sheaf new site, sheaf
# build, man sheaf and the bash completion there.
set -eu
. "$(dirname "$0")/lib.sh"
deb=$(release_deb "$1")
command -v lintian >/dev/null || skip "lintian is not installed (scripts/deps.sh test)"
command -v mmdebstrap >/dev/null || skip "mmdebstrap is not installed (scripts/deps.sh test)"
[ "$(id -u)" = 0 ] || skip "mmdebstrap's root mode needs root"
lintian --fail-on error "$deb" >/tmp/lintian.$$ 2>&1 || { cat /tmp/lintian.$$; rm -f /tmp/lintian.$$; fail "lintian: errors"; }
grep -v '^running with root' /tmp/lintian.$$ || true
rm -f /tmp/lintian.$$
echo "ok lintian: no error"

codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$root/scripts/debian-sources.sh" deb >"$tmp/sources.list"
name=$(basename "$deb")
mmdebstrap --quiet --variant=minbase --include=man-db,bash-completion \
    --customize-hook="copy-in $deb /tmp" \
    --customize-hook="copy-in $root/tests/release/in_debian.sh /tmp" \
    --customize-hook="chroot \"\$1\" sh /tmp/in_debian.sh /tmp/$name" \
    "$codename" "$tmp/root" - <"$tmp/sources.list" >"$tmp/log" 2>&1 ||
    { tail -40 "$tmp/log"; fail "installing the package in a fresh Debian root"; }
grep '^ok' "$tmp/log"
