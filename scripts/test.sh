#!/bin/sh
# test.sh — install what is missing, then build and run the whole test suite
# twice: a normal build, and one under AddressSanitizer + UndefinedBehavior-
# Sanitizer (tests labelled no-asan — browser and timing-heavy end-to-end
# runs — are left to the first pass). ctest runs everything; its summary line
# ends each pass. The exit status is non-zero when either pass failed.
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

exit $status
