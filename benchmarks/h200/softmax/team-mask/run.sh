# sh benchmarks/h200/softmax/team-mask/run.sh ROUNDS TREE... (from the repository root on the device, the
# trees made by tree.sh): each tree's colsTeam kernels built; colsTeam's forced GPU tests on the last
# tree; then this folder's ab.py alternately, ROUNDS rounds (the first checked), the order reversed
# every other round.
export BWLAB_CACHE=${BWLAB_CACHE:-/tmp/bwc}
n=$1; shift
for t in "$@"; do
  PYTHONPATH=ab-$t/src python3 -c "
from bwlab.core import build
from bwlab.workloads.softmax import plans
s = plans.SRC['colscluster']
build.compile_each(s, [e for e in plans.expressions()[s] if e.startswith('colsTeam')], 'sm_90', jobs=8)" &
done; wait
for t in "$@"; do last=$t; done
PYTHONPATH=ab-$last/src timeout 150 python3 -m pytest -q -p no:cacheprovider -n 12 -W ignore -m gpu \
  tests/softmax/test_gpu_kernels.py -k cols_team_forced 2>&1 | tail -2
cd benchmarks/h200/softmax/team-mask
fwd="$*"; rev=$(for t in "$@"; do echo $t; done | tac | tr '\n' ' ')
for i in $(seq 1 $n); do
  order=$fwd; [ $((i % 2)) = 0 ] && order=$rev
  for t in $order; do
    C=nocheck; [ $i = 1 ] && C=check
    PYTHONPATH=../../../../ab-$t/src python3 ab.py $t $C
  done
done
