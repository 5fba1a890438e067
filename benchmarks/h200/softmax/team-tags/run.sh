# From this folder on the device: ../team-poller/probe.py's sets ("poll", "pf") on two trees, three rounds
# over the trees in turn (round 1 compiles and checks), outputs under $OUT. base: the tree before the
# change (build/tags-base/src, `git archive` of it, carried); tags: this tree.
ROOT=$(cd ../../../.. && pwd)
cd ../team-poller
for S in poll pf; do
  for r in 1 2 3; do
    for v in base tags; do
      src=$ROOT/src; [ $v = base ] && src=$ROOT/build/tags-base/src
      BWLAB_CACHE=$ROOT/build/bwc-tags-$v PYTHONPATH=$src python3 probe.py $v $r $S >> $OUT/$S-$v.txt 2>&1
      tail -1 $OUT/$S-$v.txt
    done
  done
done
for S in poll pf; do for v in base tags; do
  grep -v '^#' $OUT/$S-$v.txt > $OUT/t-$S-$v.txt; python3 ../team-width/summary.py $OUT/t-$S-$v.txt
done; done
