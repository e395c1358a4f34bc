#!/bin/sh
# test.sh — install what is missing, then build and run the whole test suite
# twice: a normal build, and one under AddressSanitizer + UndefinedBehavior-
# Sanitizer. ctest runs everything; its summary line ends each run.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh test
jobs=$(nproc)

echo "== build (RelWithDebInfo) and test"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build -j "$jobs" --output-on-failure

echo "== build with ASan + UBSan and test"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSHEAF_SANITIZE=ON >/dev/null
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan -j "$jobs" --output-on-failure -LE no-asan
