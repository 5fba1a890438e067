# From the repository root on an H100 (nvidia-h100-x1): the changed kernels' GPU tests.
export BWLAB_CACHE=/tmp/bwc
PYTHONPATH=src python3 benchmarks/h200/transpose/inner-tiles/precompile.py all > /dev/null 2>&1 &
PYTHONPATH=src python3 benchmarks/h200/transpose/tall-chunks/precompile.py all > /dev/null 2>&1; wait
nvidia-smi --query-gpu=name --format=csv,noheader
PYTHONPATH=src timeout 230 python3 -m pytest -p no:cacheprovider -q -m gpu tests/transpose/test_gpu_skinny.py tests/transpose/test_gpu_skinnytile.py -n 4 > $OUT/tests-h100.txt 2>&1; tail -n 3 $OUT/tests-h100.txt
