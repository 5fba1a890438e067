# sh run.sh TREE... (from the repository root on the device, the trees made by tree.sh): each tree's
# colsTeam and rowTeam kernels built at once, then ab.py alternately, two rounds (the first checked),
# colsTeam's cases, then rowTeam's where ROWS=1.
for t in "$@"; do
  PYTHONPATH=ab-$t/src python3 -c "
from bwlab.core import build
from bwlab.workloads.softmax import plans
for f, k in [('colscluster', 'colsTeam'), ('rowstream', 'rowTeam')]:
    s = plans.SRC[f]
    build.compile_each(s, [e for e in plans.expressions()[s] if e.startswith(k)], 'sm_90', jobs=4)" &
done; wait
cd benchmarks/h200/softmax/team-l2
for K in cols ${ROWS:+rows}; do for i in 1 2; do for t in "$@"; do
  C=nocheck; [ $i = 1 ] && C=check
  PYTHONPATH=../../../../ab-$t/src python3 ab.py $t $C $K
done; done; done
