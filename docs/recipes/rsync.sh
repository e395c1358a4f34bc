#!/bin/sh
# Publish a sheaf site to any web server over rsync (ssh), from the site's
# folder. sheaf deploy does the same with deploy.target in site.yaml; this
# is the plain form, for a Makefile or a CI job:
#   BASE_URL=https://example.org/notes/ DEST=deploy@example.org:/var/www/notes \
#     sh rsync.sh
# DEST may also be a local folder. Files the build no longer makes are
# removed on the server; --checksum keeps unchanged files (and their times)
# as they are.
set -eu
: "${BASE_URL:?set BASE_URL to where the site is served, e.g. https://example.org/notes/}"
: "${DEST:?set DEST to host:path (or a local folder)}"
sheaf build --base-url "$BASE_URL"
rsync -a --checksum --delete --exclude .sheaf-manifest public/ "$DEST/"
