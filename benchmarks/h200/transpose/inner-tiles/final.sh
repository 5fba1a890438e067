# From the repository root, the final tree: every workload's kernels compiled, the GPU tests of every
# workload but softmax, then the skinny suite re-run.
export BWLAB_CACHE=/tmp/bwc
t0=$(date +%s)
PYTHONPATH=src python3 -m bwlab kernels > /dev/null 2>&1; echo "kernels at $(( $(date +%s) - t0 )) s"
PYTHONPATH=src timeout 170 python3 -m pytest -p no:cacheprovider -q -m gpu tests/transpose tests/permute -n 4 > $OUT/tests-transpose.txt 2>&1; tail -1 $OUT/tests-transpose.txt; echo "at $(( $(date +%s) - t0 )) s"
PYTHONPATH=src timeout 120 python3 -m pytest -p no:cacheprovider -q -m gpu tests/core tests/cli tests/claims tests/matmul tests/streams tests/distributed tests/lab tests/report -n 4 > $OUT/tests-others.txt 2>&1; tail -1 $OUT/tests-others.txt; echo "at $(( $(date +%s) - t0 )) s"
cd benchmarks/h200/transpose
PYTHONPATH=../../../src timeout 150 python3 -m bwlab bench transpose --suite skinny --reps 30 --out bench-skinny --force > bench-skinny/bench.txt 2>&1
cp bench-skinny/bench.json bench-skinny/bench.png bench-skinny/bench.txt $OUT/; echo "bench at $(( $(date +%s) - t0 )) s"
grep -E "short side" bench-skinny/bench.txt | tail -2
