# bench/common.sh — the set-up the corpus benchmarks share, sourced after
# setting `bench` (a name for the folders) and `default_posts`:
#   here, root     this folder and the repository
#   N              the first argument, else default_posts
#   RUNS, SHEAF    from the environment (SHEAF made absolute)
#   WORK, OUT      fresh folders for the corpora and for the outputs (a tmpfs)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
N=${1:-$default_posts}
RUNS=${RUNS:-5}
SHEAF=${SHEAF:-$root/build/sheaf}
case $SHEAF in /*) ;; *) SHEAF=$(pwd)/$SHEAF ;; esac
WORK=${WORK:-${TMPDIR:-/tmp}/sheaf-bench-$bench}
OUT=${OUT:-/dev/shm/sheaf-bench-$bench}
rm -rf "$WORK" "$OUT"
mkdir -p "$WORK" "$OUT"

# Before timing: the corpus just written goes to the disk now, so that its
# writeback does not land on the first command timed (cite.sh's plain build
# measured ≈ 10 % slower, and noisier, without it).
flush_corpus() { sync; }
