#!/bin/sh
# test.sh — install what is missing, then build and run the whole test suite
# twice: a normal build, and one under AddressSanitizer + UndefinedBehavior-
# Sanitizer (tests labelled no-asan — browser and timing-heavy end-to-end
# runs — are left to the first pass). ctest runs everything; its summary line
# ends each pass. Then a short fuzz run: every libFuzzer target that has a
# seed corpus (tests/fuzz/corpus/NAME/ for fuzz_NAME) runs FUZZ_SECONDS
# (default 30) under ASan + UBSan on a copy of it; FUZZ_SECONDS=0 skips it.
# The exit status is non-zero when any of them failed.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh test
jobs=$(nproc)
status=0

echo "== build (RelWithDebInfo) and test"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build -j "$jobs" --output-on-failure || status=1

echo "== build with ASan + UBSan (and the portable text scans) and test"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSHEAF_SANITIZE=ON -DSHEAF_NO_SIMD=ON >/dev/null
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan -j "$jobs" --output-on-failure -LE no-asan || status=1

fuzz_seconds=${FUZZ_SECONDS:-30}
if [ "$fuzz_seconds" -gt 0 ] &&
   ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return d && n; }' |
       clang -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then
    echo "== fuzz targets skipped: clang with libFuzzer is not installed (scripts/deps.sh test)"
elif [ "$fuzz_seconds" -gt 0 ]; then
    echo "== fuzz targets with a corpus, ${fuzz_seconds} s each (ASan + UBSan)"
    CC=clang CXX=clang++ cmake -S . -B build-fuzz -DSHEAF_FUZZ=ON -DSHEAF_SANITIZE=ON -DBUILD_TESTING=OFF >/dev/null
    for corpus in tests/fuzz/corpus/*/; do
        name=$(basename "$corpus")
        [ -f "tests/fuzz/fuzz_$name.c" ] || continue
        cmake --build build-fuzz -j "$jobs" --target "fuzz_$name" >/dev/null || { status=1; continue; }
        work=$(mktemp -d)
        cp -r "$corpus". "$work/"
        if ./build-fuzz/tests/fuzz/"fuzz_$name" -max_total_time="$fuzz_seconds" \
               -artifact_prefix="$work/" "$work" >"$work.log" 2>&1; then
            echo "fuzz_$name: $(grep -o 'Done [0-9]* runs' "$work.log" || echo ok), no crash"
        else
            echo "fuzz_$name: FAILED"; tail -40 "$work.log"; status=1
        fi
        rm -rf "$work" "$work.log"
    done
fi

exit $status
