#!/bin/sh
# completion.sh SHEAF SHELL — `sheaf completion SHELL` is a script that
# SHELL reads without an error and that completes commands, words, flags
# and folder values: each shell is asked what it offers for typed lines
# (zsh, which completes only inside its line editor, through
# zsh_complete.zsh: a zsh in a pseudo-terminal that is sent the line and a
# Tab).
set -eu
sheaf=$1
shell=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$sheaf" completion "$shell" > "$tmp/script"
mkdir "$tmp/site" "$tmp/site/srcdir"
case $shell in
bash)
    bash -n "$tmp/script" || fail "bash -n"
    got() {
        # got WORD... — what completes the last word
        bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _sheaf; echo "${COMPREPLY[*]}"' \
            _ "$tmp/script" "$@"
    }
    [ "$(got sheaf bu)" = build ] || fail "sheaf bu: $(got sheaf bu)"
    [ "$(got sheaf build --si)" = --site ] || fail "sheaf build --si"
    [ "$(got sheaf serve --)" = "--site --port --bind --drafts --future --open --no-cache --stats --help" ] ||
        fail "sheaf serve --: $(got sheaf serve --)"
    [ "$(got sheaf new '')" = "site post" ] || fail "sheaf new: $(got sheaf new '')"
    [ "$(got sheaf completion '')" = "bash zsh fish" ] || fail "sheaf completion"
    (cd "$tmp/site" && [ "$(got sheaf build -o sr)" = srcdir ]) || fail "sheaf build -o sr"
    ;;
zsh)
    zsh -n "$tmp/script" || fail "zsh -n"
    here=$(cd "$(dirname "$0")" && pwd)
    got() {
        # got LINE — what completes LINE's last word, sorted, on one line
        timeout 30 zsh -f "$here/zsh_complete.zsh" "$tmp/script" "$tmp/hits" "$1" || fail "zsh: '$1'"
        sort -u "$tmp/hits" | tr '\n' ' ' | sed 's/ $//'
    }
    [ "$(got 'sheaf bu')" = build ] || fail "sheaf bu: $(got 'sheaf bu')"
    [ "$(got 'sheaf build --si')" = --site ] || fail "sheaf build --si: $(got 'sheaf build --si')"
    [ "$(got 'sheaf serve --')" = "--bind --drafts --future --help --no-cache --open --port --site --stats" ] ||
        fail "sheaf serve --: $(got 'sheaf serve --')"
    [ "$(got 'sheaf new ')" = "post site" ] || fail "sheaf new: $(got 'sheaf new ')"
    [ "$(got 'sheaf completion ')" = "bash fish zsh" ] || fail "sheaf completion: $(got 'sheaf completion ')"
    (cd "$tmp/site" && [ "$(got 'sheaf build -o sr')" = srcdir ]) ||
        fail "sheaf build -o sr: $(cd "$tmp/site" && got 'sheaf build -o sr')"
    ;;
fish)
    fish -n "$tmp/script" || fail "fish -n"
    got() { fish -c "source '$tmp/script'; complete -C'$1'" | cut -f1 | tr '\n' ' ' | sed 's/ $//'; }
    [ "$(got 'sheaf bu')" = build ] || fail "sheaf bu: $(got 'sheaf bu')"
    [ "$(got 'sheaf build --si')" = --site ] || fail "sheaf build --si: $(got 'sheaf build --si')"
    [ "$(got 'sheaf new ')" = "post site" ] || fail "sheaf new: $(got 'sheaf new ')"
    (cd "$tmp/site" && [ "$(got 'sheaf build -o sr')" = srcdir/ ]) ||
        fail "sheaf build -o sr: $(cd "$tmp/site" && got 'sheaf build -o sr')"
    ;;
*) fail "no such shell: $shell" ;;
esac
echo "ok: sheaf completion $shell"
