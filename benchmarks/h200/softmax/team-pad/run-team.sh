# The first A/B (ab-team.txt), on a tree padding colsTeam's finished states only: from the
# repository root on the device, colsTeam's kernels built for both trees (old: ab-old/src, `git
# archive` of the commit before, beside src/), the A/B alternately, two rounds (the first checked),
# then colsTeam's and rowTeam's GPU tests on the new tree.
for P in ab-old/src src; do
  PYTHONPATH=$P python3 -c "
from bwlab.core import build
from bwlab.workloads.softmax import plans
s = plans.SRC['colscluster']
build.compile_each(s, [e for e in plans.expressions()[s] if e.startswith('colsTeam')], 'sm_90', jobs=12)" &
done; wait
cd benchmarks/h200/softmax/team-pad
for i in 1 2; do for t in old new; do
  if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  C=nocheck; [ $i = 1 ] && C=check
  PYTHONPATH=$P python3 ab.py $t $C
done; done
cd ../../../..
PYTHONPATH=src python3 -m pytest -m gpu -q -p no:cacheprovider -n 4 -rf -W ignore tests/softmax -k "team or Team" 2>&1 | tail -3
