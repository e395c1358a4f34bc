#!/bin/bash
# A script
set -euo pipefail

NAME="${1:-world}"
readonly DIR=$(dirname "$0")
declare -a arr=(one two three)

greet() {
    local who=$1
    echo "Hello, $who! ${#arr[@]} items in ${DIR}"
    return 0
}

if [[ -f "$DIR/config" && $# -gt 0 ]]; then
    source "$DIR/config"
elif [ -z "$NAME" ]; then
    exit 1
fi

for f in *.txt; do
    case "$f" in
        a*) echo 'starts with a' ;;
        *) printf '%s\n' "$f" | grep -v '^#' > /dev/null 2>&1 ;;
    esac
done

while read -r line; do
    count=$((count + 1))
done < input.txt

cat <<HEREDOC
text $NAME
HEREDOC
greet "$NAME" && echo ok || echo fail
