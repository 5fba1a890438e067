# sh benchmarks/h200/softmax/row-fold-lag/run.sh ROUNDS TREE... (from the repository root on the device):
# each TREE is ab-TREE/src (made by tree.sh), `cur` the working tree's src; ab.py alternately, ROUNDS
# rounds (the first checked), the trees' order reversed every other round.
export BWLAB_CACHE=${BWLAB_CACHE:-/tmp/bwc}
n=$1; shift
cd benchmarks/h200/softmax/row-fold-lag
fwd="$*"; rev=$(for t in "$@"; do echo $t; done | tac | tr '\n' ' ')
for i in $(seq 1 $n); do
  order=$fwd; [ $((i % 2)) = 0 ] && order=$rev
  for t in $order; do
    C=nocheck; [ $i = 1 ] && C=check
    P=../../../../ab-$t/src; [ $t = cur ] && P=../../../../src
    PYTHONPATH=$P python3 ab.py $t $C
  done
done
