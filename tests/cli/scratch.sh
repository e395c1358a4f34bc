#!/bin/sh
# scratch.sh SHEAF — where $TMPDIR does not exist (as in a FROM scratch
# container), `sheaf deploy` builds in a hidden folder of the site instead
# (cli/scratch.c), publishes, and leaves no such folder behind.
set -eu
sheaf=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$sheaf" new site "$tmp/site" >/dev/null
printf 'base_url: https://example.org/\ndeploy:\n  target: ../www\n' >>"$tmp/site/site.yaml"
TMPDIR=$tmp/no-such-folder "$sheaf" deploy -q -s "$tmp/site" 2>"$tmp/err" || { cat "$tmp/err"; fail "deploy without a temp folder"; }
[ -f "$tmp/www/index.html" ] || fail "nothing was deployed"
left=$(find "$tmp/site" -maxdepth 1 -name '.sheaf-deploy-*')
[ -z "$left" ] || fail "left behind: $left"
chmod 500 "$tmp/site"
if [ "$(id -u)" != 0 ]; then
    TMPDIR=$tmp/no-such-folder "$sheaf" deploy -q -s "$tmp/site" 2>"$tmp/err" && fail "deploy with nowhere to build"
    grep -q "^sheaf: error: cannot create a build folder in $tmp/no-such-folder (No such file or directory) nor in the site folder" "$tmp/err" ||
        { cat "$tmp/err"; fail "the message"; }
fi
chmod 700 "$tmp/site"
echo "ok deploy builds in the site folder where \$TMPDIR is missing, and cleans up"
