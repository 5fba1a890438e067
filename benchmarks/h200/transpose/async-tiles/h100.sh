# From the repository root on an NVIDIA H100 (nvidia-h100-x1), the final tree: the skinny tile and
# API GPU tests (the second with the dispatch label fixed after final.sh).
export BWLAB_CACHE=/tmp/bwc PYTHONPATH=src
python3 benchmarks/h200/transpose/async-tiles/precompile.py > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 python3 -m pytest -m gpu tests/transpose/test_gpu_skinnytile.py tests/transpose/test_gpu_api.py -n 4 -q -p no:cacheprovider > $OUT/tests-h100.txt 2>&1
tail -1 $OUT/tests-h100.txt
