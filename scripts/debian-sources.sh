#!/bin/sh
# debian-sources.sh TYPE — this machine's apt entries for its own Debian
# release, as one-line sources.list entries of TYPE (deb or deb-src), read
# from /etc/apt/sources.list, *.list and the deb822 *.sources files. Other
# vendors' entries (another suite, a third-party repository) are left out.
# scripts/third_party.sh fetches source packages through them and the
# release tests make a fresh Debian root from them, so both reach the
# archive this machine already uses, whichever mirror that is.
set -eu
type=${1:?usage: debian-sources.sh deb|deb-src}
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || { echo "debian-sources.sh: /etc/os-release names no Debian codename" >&2; exit 1; }
out=$(
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v c="$codename" -v t="$type" '$1 == "deb" {
        i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
        if ($(i+1) ~ ("^" c "($|-)")) { $1 = t; print } }' "$f"
done
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v c="$codename" -v t="$type" '
        function flush(  n, s, k) {
            if (uris != "" && enabled != "no")
                for (k = split(suites, s, " "); k > 0; k--)
                    if (s[k] ~ ("^" c "($|-)"))
                        printf "%s%s %s %s %s\n", t, (key != "" ? " [signed-by=" key "]" : ""), uris, s[k], comps
            uris = suites = comps = key = enabled = "" }
        /^[ \t]*$/ { flush(); next }
        /^#/ { next }
        /^URIs:/ { uris = $2 }
        /^Suites:/ { $1 = ""; suites = substr($0, 2) }
        /^Components:/ { $1 = ""; comps = substr($0, 2) }
        /^Signed-By:/ { key = $2 }
        /^Enabled:/ { enabled = $2 }
        END { flush() }' "$f"
done)
[ -n "$out" ] || { echo "debian-sources.sh: no apt entry for Debian $codename in /etc/apt" >&2; exit 1; }
printf '%s\n' "$out"
