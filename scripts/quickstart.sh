#!/bin/sh
# quickstart.sh — install what is missing, build sheaf, and build the example
# site (this repository) into public/.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh build
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null  # as scripts/test.sh: one build folder
cmake --build build -j "$(nproc)"
./build/sheaf build
echo "The example site is in $(pwd)/public/ — preview it with: ./build/sheaf serve"
