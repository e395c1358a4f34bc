#!/bin/sh
# Checks that no folder of ROOT/src includes a header of a folder later in
# the pipeline, or of a folder on its own level.
#   check_stages.sh ROOT "util diag … serve,deploy cli"
# The second argument is SHEAF_STAGES from CMakeLists.txt, in order; peers
# on one level are written a,b. Prints one error per offending #include (and
# per folder missing from the order) and exits 1 when there is any.
set -u
LC_ALL=C
export LC_ALL
stages=$2
cd "$1" || exit 2

level= # set by find_level: the level of stage $1, or empty
find_level() {
    level=
    n=0
    for s in $stages; do
        case ",$s," in *",$1,"*) level=$n; return ;; esac
        n=$((n + 1))
    done
}

errors=0
for dir in src/*/; do
    dir=${dir%/}
    find_level "${dir#src/}"
    if [ -z "$level" ]; then
        echo "$dir: error: ${dir#src/} is not a stage of the pipeline (add it to SHEAF_STAGES in CMakeLists.txt)"
        errors=1
    fi
done

# Every `#include "stage/…"`, as path:line:#include "stage/header.h".
hits=$(grep -Hno '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]*/[^"]*"' \
    src/*/*.c src/*/*.h 2>/dev/null)
old_ifs=$IFS
IFS='
'
for hit in $hits; do
    IFS=$old_ifs
    file=${hit%%:*}
    rest=${hit#*:}
    line=${rest%%:*}
    header=${rest#*\"}
    header=${header%\"}
    from=${file#src/}
    from=${from%%/*}
    to=${header%%/*}
    [ "$to" = "$from" ] && continue
    find_level "$from"
    from_level=$level
    [ -z "$from_level" ] && continue # reported above
    find_level "$to"
    if [ -z "$level" ]; then
        echo "$file:$line: error: $from includes $header, but $to is not a stage of the pipeline"
    elif [ "$level" -eq "$from_level" ]; then
        echo "$file:$line: error: $from includes $header, but $to is a peer on the same level of the pipeline"
    elif [ "$level" -gt "$from_level" ]; then
        echo "$file:$line: error: $from includes $header, but $to comes after $from in the pipeline"
    else
        continue
    fi
    errors=1
done
exit $errors
