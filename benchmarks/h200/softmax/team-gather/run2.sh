# sh benchmarks/h200/softmax/team-gather/run2.sh ROUNDS TREE... (from the repository root on the device,
# the trees made by tree.sh): each tree's colsTeam kernels built, then this folder's ab.py alternately,
# ROUNDS rounds (the first checked), the trees' order reversed every other round.
export BWLAB_CACHE=${BWLAB_CACHE:-/tmp/bwc}
n=$1; shift
for t in "$@"; do
  PYTHONPATH=ab-$t/src python3 -c "
from bwlab.core import build
from bwlab.workloads.softmax import plans
s = plans.SRC['colscluster']
build.compile_each(s, [e for e in plans.expressions()[s] if e.startswith('colsTeam')], 'sm_90', jobs=8)" &
done; wait
cd benchmarks/h200/softmax/team-gather
fwd="$*"; rev=$(for t in "$@"; do echo $t; done | tac | tr '\n' ' ')
for i in $(seq 1 $n); do
  order=$fwd; [ $((i % 2)) = 0 ] && order=$rev
  for t in $order; do
    C=nocheck; [ $i = 1 ] && C=check
    PYTHONPATH=../../../../ab-$t/src python3 ab.py $t $C
  done
done
