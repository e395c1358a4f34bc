#!/bin/sh
# Installs sheaf's release binary, checked against its SHA-256, for a CI job
# that publishes a site: the GitHub Action (action.yml) runs this script and
# the GitLab Pages recipe (gitlab-ci.yml) runs exactly its lines, so no
# deploy compiles sheaf. Needs wget (GNU's or busybox's), sha256sum and
# install: any Linux image has them.
#   SHEAF_VERSION=0.1.0 SHEAF_SHA256=<the .sha256 file's checksum> \
#   SHEAF_RELEASES=https://github.com/OWNER/sheaf/releases/download \
#   SHEAF_BIN_DIR=/usr/local/bin sh install-release.sh
# Without SHEAF_SHA256 the checksum is taken from the release's own
# .sha256 file: that catches a damaged download, not a replaced release;
# pin it to be sure the binary is the one you checked.
set -eu
: "${SHEAF_VERSION:?set SHEAF_VERSION to the release to install, e.g. 0.1.0}"
: "${SHEAF_RELEASES:?set SHEAF_RELEASES to the URL the releases are downloaded from}"
SHEAF_BIN_DIR=${SHEAF_BIN_DIR:-/usr/local/bin}
SHEAF_SHA256=${SHEAF_SHA256:-}
bin="sheaf-$SHEAF_VERSION-linux-x86_64"
wget -q -O "/tmp/$bin" "$SHEAF_RELEASES/v$SHEAF_VERSION/$bin"
[ -n "$SHEAF_SHA256" ] || SHEAF_SHA256=$(wget -q -O - "$SHEAF_RELEASES/v$SHEAF_VERSION/$bin.sha256" | cut -d" " -f1)
echo "$SHEAF_SHA256  /tmp/$bin" | sha256sum -c -
mkdir -p "$SHEAF_BIN_DIR"
install -m 755 "/tmp/$bin" "$SHEAF_BIN_DIR/sheaf"
"$SHEAF_BIN_DIR/sheaf" --version
