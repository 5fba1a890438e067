# sh benchmarks/h200/softmax/term-round/run.sh ROUNDS (from the repository root on the device): ab-old/src
# is HEAD's src (git archive, made here where absent), new the working tree's; each tree's kernels for ab.py's cases built, then
# ab.py alternately, ROUNDS rounds (the first checked), the trees' order reversed every other round.
export BWLAB_CACHE=${BWLAB_CACHE:-/tmp/bwc}
n=$1
[ -d ab-old ] || { mkdir ab-old && git archive HEAD src | tar -x -C ab-old; }
cd benchmarks/h200/softmax/term-round
for i in $(seq 1 $n); do
  order="new old"; [ $((i % 2)) = 0 ] && order="old new"
  for t in $order; do
    C=nocheck; [ $i = 1 ] && C=check
    P=../../../../src; [ $t = old ] && P=../../../../ab-old/src
    PYTHONPATH=$P python3 ab.py $t $C
  done
done
