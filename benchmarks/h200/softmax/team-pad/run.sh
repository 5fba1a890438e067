# From the repository root on the device: colsTeam's and colsCluster's kernels built for both trees
# (old: ab-old/src, `git archive` of the commit before, beside src/), then the A/B alternately, two
# rounds (the first checked), colsTeam's cases then colsCluster's; then the GPU tests of both kernels
# on the new tree.
for P in ab-old/src src; do
  PYTHONPATH=$P python3 -c "
from bwlab.core import build
from bwlab.workloads.softmax import plans
s = plans.SRC['colscluster']
build.compile_each(s, [e for e in plans.expressions()[s] if e.startswith(('colsTeam', 'colsCluster'))], 'sm_90', jobs=16)" &
done; wait
cd benchmarks/h200/softmax/team-pad
for K in team cluster; do for i in 1 2; do for t in old new; do
  if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  C=nocheck; [ $i = 1 ] && C=check
  PYTHONPATH=$P python3 ab.py $t $C $K
done; done; done
cd ../../../..
PYTHONPATH=src python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore tests/softmax -k "team or cluster or strided or stored or terms" 2>&1 | tail -3
