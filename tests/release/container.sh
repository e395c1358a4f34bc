#!/bin/sh
# container.sh DIST — the container image of Containerfile: podman builds
# it from the release files; it holds the static binary and nothing else,
# with /site as working folder and sheaf as entrypoint; run with the example
# site mounted at /site, it builds it. Where podman builds images but
# cannot run containers (a sandbox that refuses its setrlimit calls, say),
# the image's own file system is run with chroot as podman would, and the
# test reports itself skipped with podman's reason.
set -eu
. "$(dirname "$0")/lib.sh"
bin=$(release_bin "$1")
command -v podman >/dev/null || skip "podman is not installed"
podman info >/dev/null 2>&1 || skip "podman does not work here: $(podman info 2>&1 | tail -1)"
tmp=$(mktemp -d)
tag=localhost/sheaf-test-$$
trap 'podman rm -f "$ctr" >/dev/null 2>&1 || true; podman rmi -f "$tag" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
ctr=
mkdir "$tmp/ctx"
cp "$bin" "$tmp/ctx/"
podman build -q -f "$root/Containerfile" --build-arg VERSION="$version" --build-arg ARCH="$(uname -m)" \
    -t "$tag" "$tmp/ctx" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "podman build"; }
cfg=$(podman image inspect "$tag" --format '{{.Config.Entrypoint}} {{.Config.WorkingDir}} {{.Config.Cmd}}')
[ "$cfg" = "[/usr/bin/sheaf] /site [build]" ] || fail "image config: $cfg"
ctr=$(podman create "$tag")
podman export "$ctr" | tar -C "$tmp" -x --one-top-level=rootfs
files=$(cd "$tmp/rootfs" && find . -type f)
[ "$files" = ./usr/bin/sheaf ] || fail "the image holds more than the binary: $files"
cmp -s "$tmp/rootfs/usr/bin/sheaf" "$bin" || fail "the image's binary is not the release binary"
echo "ok podman build: FROM scratch, the binary alone, /site, entrypoint sheaf"

copy_example_site "$tmp/site"
if podman run --rm -v "$tmp/site:/site" "$tag" build -q --base-url https://example.org/ >"$tmp/run.log" 2>&1; then
    [ -f "$tmp/site/public/index.html" ] || fail "podman run: no public/index.html"
    echo "ok podman run … build: the example site is built"
    exit 0
fi
why=$(tail -1 "$tmp/run.log")
case $why in
*OCI*|*crun*|*runc*|*cgroup*|*newuidmap*|*"not permitted"*) ;;
*) cat "$tmp/run.log"; fail "podman run" ;;
esac
# What podman would run: the entrypoint and command at the working folder.
mkdir -p "$tmp/rootfs/site" "$tmp/rootfs/dev"
cp -r "$tmp/site/." "$tmp/rootfs/site/"
mknod -m 666 "$tmp/rootfs/dev/null" c 1 3
chroot "$tmp/rootfs" /usr/bin/sheaf build -q -s /site --base-url https://example.org/ ||
    fail "the image's file system does not build the site"
[ -f "$tmp/rootfs/site/public/index.html" ] || fail "no public/index.html in the image's run"
echo "ok the image's file system, run with chroot, builds the example site"
skip "podman cannot run containers here ($why)"
