# From the repository root on the device: the probe (probe.py's docstring), its kernels compiled
# beforehand with NVRTC 13.0 (as on the H200) into build/bwc-outer and carried there.
cd benchmarks/h200/softmax/team-outer
BWLAB_CACHE=$(cd ../../../.. && pwd)/build/bwc-outer PYTHONPATH=../../../../src timeout 500 python3 probe.py ${1:-2} > $OUT/probe.txt 2>&1
tail -4 $OUT/probe.txt
