# From the repository root, the final tree: every kernel compiled, the transpose and permute GPU
# tests, then the skinny suite re-run (the bench writes bench-skinny/ itself; copied to $OUT).
export BWLAB_CACHE=/tmp/bwc PYTHONPATH=src
python3 -m bwlab kernels > $OUT/kernels.txt 2>&1
timeout 250 python3 -m pytest -m gpu tests/transpose tests/permute -n 4 -q -p no:cacheprovider > $OUT/tests-final.txt 2>&1
tail -1 $OUT/tests-final.txt
cd benchmarks/h200/transpose
PYTHONPATH=../../../src timeout 250 python3 -m bwlab bench transpose --suite skinny --reps 30 --out bench-skinny --force > $OUT/bench-stdout.txt 2> $OUT/bench-stderr.txt
mkdir -p $OUT/bench-skinny && cp bench-skinny/bench.* $OUT/bench-skinny/
sed -n '/^goals missed/,/^goals:/p' bench-skinny/bench.txt | cut -c1-110
