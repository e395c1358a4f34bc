#!/bin/sh
# completion.sh SHEAF SHELL — `sheaf completion SHELL` is a script that
# SHELL reads without an error and that completes commands, words, flags
# and folder values. bash and fish are asked for completions of typed
# lines; zsh (which completes only inside its line editor) is checked for
# its syntax and that the script registers _sheaf for sheaf.
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
    out=$(cd "$tmp" && zsh -f -c 'autoload -Uz compinit && compinit -u -d ./zcompdump && . ./script && print -r -- $_comps[sheaf]')
    [ "$out" = _sheaf ] || fail "zsh: _comps[sheaf] is '$out'"
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
