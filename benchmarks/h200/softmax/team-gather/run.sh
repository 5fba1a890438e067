# sh benchmarks/h200/softmax/team-gather/run.sh TREE... (from the repository root on the device, the
# trees made by tree.sh): each tree's colsTeam kernels built at once, then ../team-l2/ab.py alternately,
# two rounds (the first checked).
export BWLAB_CACHE=${BWLAB_CACHE:-/tmp/bwc}
for t in "$@"; do
  PYTHONPATH=ab-$t/src python3 -c "
from bwlab.core import build
from bwlab.workloads.softmax import plans
s = plans.SRC['colscluster']
build.compile_each(s, [e for e in plans.expressions()[s] if e.startswith('colsTeam')], 'sm_90', jobs=4)" &
done; wait
cd benchmarks/h200/softmax/team-l2
for i in 1 2; do for t in "$@"; do
  C=nocheck; [ $i = 1 ] && C=check
  PYTHONPATH=../../../../ab-$t/src python3 ab.py $t $C
done; done
