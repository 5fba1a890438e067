# From the repository root, the tree before unpacked in ab-old/ (git archive HEAD src | tar -x -C ab-old):
# compile both trees' skinnyWords (and this tree's skinnyWordsLoop), then old, new, old, new: the
# dispatch of each tree, and on this tree skinnyWordsLoop forced at each tile and grid.
export BWLAB_CACHE=/tmp/bwc
D=benchmarks/h200/transpose/loop-tiles
(PYTHONPATH=ab-old/src python3 $D/probe.py compile & PYTHONPATH=src python3 $D/probe.py compile loop; wait) > $OUT/compile.txt 2>&1
tail -2 $OUT/compile.txt
cd $D
for t in old new old new; do if [ $t = old ]; then P=../../../../ab-old/src; W=; else P=../../../../src; W=loop; fi
  PYTHONPATH=$P timeout 150 python3 probe.py $t $W; done > $OUT/ab.txt 2>&1
grep -c False $OUT/ab.txt; python3 summarize.py $OUT/ab.txt
grep "^check" $OUT/ab.txt | sort | uniq -c | head -30
