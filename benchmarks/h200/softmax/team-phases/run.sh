# sh benchmarks/h200/softmax/team-phases/run.sh (from the repository root on the device): the profiled
# tree (this tree's src with COLSTEAM_PROFILE 1) in ab-prof/, then prof.py on it.
export BWLAB_CACHE=${BWLAB_CACHE:-/tmp/bwc}
rm -rf ab-prof && mkdir ab-prof && cp -r src ab-prof/
sed -i 's/^#define COLSTEAM_PROFILE 0/#define COLSTEAM_PROFILE 1/' ab-prof/src/bwlab/workloads/softmax/kernels/colscluster.cu
cd benchmarks/h200/softmax/team-phases && PYTHONPATH=../../../../ab-prof/src python3 prof.py "$@"
PYTHONPATH=../../../../src python3 prof.py time   # the same calls on the tree without the profile
