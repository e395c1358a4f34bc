#!/bin/sh
# test.sh — install what is missing, build, and run the tests.
#
#   scripts/test.sh          the quick run: one build (RelWithDebInfo) and every
#                            test not labelled `slow` (a few minutes)
#   scripts/test.sh --full   what CI runs (.ci/run): every test including the
#                            `slow` ones, then the whole suite again under
#                            AddressSanitizer + UndefinedBehaviorSanitizer
#                            (tests labelled no-asan — browser and timing-heavy
#                            end-to-end runs — are left to the first pass), then
#                            a short fuzz run: every libFuzzer target that has
#                            a seed corpus (tests/fuzz/corpus/NAME/ for
#                            fuzz_NAME) runs FUZZ_SECONDS (default 15), as many at
#                            a time as there are cores, under
#                            ASan + UBSan on a copy of it; FUZZ_SECONDS=0
#                            skips it.
#
# Which tests are `slow`, and every variable the tests read: tests/README.md.
# ctest runs the tests; its summary line ends each pass. The exit status is
# non-zero when any of them failed.
set -eu
cd "$(dirname "$0")/.."
full=false
case "${1:-}" in
    "") ;;
    --full) full=true ;;
    *) echo "usage: scripts/test.sh [--full]" >&2; exit 2 ;;
esac
sh scripts/deps.sh test
jobs=$(nproc)
status=0

if ! $full; then
    echo "== build (RelWithDebInfo) and test, without the tests labelled slow (--full runs them)"
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build build -j "$jobs"
    ctest --test-dir build -j "$jobs" --output-on-failure -LE slow || status=1
    exit $status
fi

echo "== build (RelWithDebInfo) and test, slow tests included"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build -j "$jobs" --output-on-failure || status=1

echo "== build with ASan + UBSan (and the portable text scans) and test"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSHEAF_SANITIZE=ON -DSHEAF_NO_SIMD=ON >/dev/null
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan -j "$jobs" --output-on-failure -LE no-asan || status=1

fuzz_seconds=${FUZZ_SECONDS:-15}
if [ "$fuzz_seconds" -gt 0 ] &&
   ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return d && n; }' |
       clang -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then
    echo "== fuzz targets skipped: clang with libFuzzer is not installed (scripts/deps.sh test)"
elif [ "$fuzz_seconds" -gt 0 ]; then
    echo "== fuzz targets with a corpus, ${fuzz_seconds} s each, $jobs at a time (ASan + UBSan)"
    CC=clang CXX=clang++ cmake -S . -B build-fuzz -DSHEAF_FUZZ=ON -DSHEAF_SANITIZE=ON -DBUILD_TESTING=OFF >/dev/null
    names=""
    for corpus in tests/fuzz/corpus/*/; do
        name=$(basename "$corpus")
        [ -f "tests/fuzz/fuzz_$name.c" ] && names="$names $name"
    done
    # every target at once (a make per target would race on what they share)
    cmake --build build-fuzz -j "$jobs" >/dev/null || status=1
    results=$(mktemp -d)
    # fuzz NAME: one target on a copy of its corpus; its line (and, when it
    # failed, the end of its log) goes to $results/NAME
    fuzz() {
        work=$(mktemp -d)
        cp -r "tests/fuzz/corpus/$1/". "$work/"
        # -max_total_time is checked between inputs: a run stuck in one
        # input (a hang is a finding too) is stopped 60 s later, and fails.
        if [ -x "./build-fuzz/tests/fuzz/fuzz_$1" ] &&
           timeout -k 10 $((fuzz_seconds + 60)) ./build-fuzz/tests/fuzz/"fuzz_$1" \
               -max_total_time="$fuzz_seconds" -artifact_prefix="$work/" "$work" >"$work.log" 2>&1; then
            echo "fuzz_$1: $(grep -o 'Done [0-9]* runs' "$work.log" || echo ok), no crash" >"$results/$1"
        else
            { echo "fuzz_$1: FAILED"; tail -40 "$work.log" 2>/dev/null; } >"$results/$1"
        fi
        rm -rf "$work" "$work.log"
    }
    # as many at a time as there are cores, each batch awaited in turn
    set -- $names
    while [ $# -gt 0 ]; do
        n=0
        while [ $# -gt 0 ] && [ $n -lt "$jobs" ]; do
            fuzz "$1" &
            shift
            n=$((n + 1))
        done
        wait
    done
    for name in $names; do
        if [ -f "$results/$name" ]; then
            cat "$results/$name"
            grep -q "^fuzz_$name: FAILED" "$results/$name" && status=1
        else
            echo "fuzz_$name: FAILED (it did not run)"; status=1
        fi
    done
    rm -rf "$results"
fi

exit $status
