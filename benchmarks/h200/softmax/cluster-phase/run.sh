# From the repository root on the device: trees ab-c0 (cd1101a's src), ab-c2 and ab-c4 (phase.patch
# with CLUSTER_PHASE_NS 2000 and 4000), their colsCluster kernels for ab.py's cases built at once,
# then ab.py alternately, two rounds (the first checked).
T="c0 c2 c4"
for t in $T; do
  rm -rf ab-$t && mkdir ab-$t && git archive cd1101a src | tar -x -C ab-$t
  [ $t = c0 ] || { patch -s -p1 -d ab-$t < benchmarks/h200/softmax/cluster-phase/phase.patch
    sed -i "s/^#define CLUSTER_PHASE_NS 0/#define CLUSTER_PHASE_NS ${t#c}000/" ab-$t/src/bwlab/workloads/softmax/kernels/colscluster.cu; }
  PYTHONPATH=ab-$t/src python3 -c "
from bwlab.core import build
from bwlab.workloads.softmax import plans
ex = sorted({plans.choose(plans.Problem(N, L, M, d, 'forward', lg)).expression for N, L, M in [(16, 8192, 1024), (1, 8192, 8192)]
             for d in ('float32', 'bfloat16') for lg in (False, True)})
build.compile_each(plans.SRC['colscluster'], ex, 'sm_90', jobs=4)" &
done; wait
cd benchmarks/h200/softmax/cluster-phase
for i in 1 2; do for t in $T; do
  C=nocheck; [ $i = 1 ] && C=check
  PYTHONPATH=../../../../ab-$t/src python3 ab.py $t $C
done; done
