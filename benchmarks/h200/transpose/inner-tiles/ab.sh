# From the repository root: the A/B alone (run.sh without the tests and Nsight Compute).
export BWLAB_CACHE=/tmp/bwc
D=benchmarks/h200/transpose/inner-tiles
PYTHONPATH=ab-old/src python3 $D/precompile.py & PYTHONPATH=src python3 $D/precompile.py; wait
cd $D
for t in old new old new; do if [ $t = old ]; then P=../../../../ab-old/src; else P=../../../../src; fi
  PYTHONPATH=$P timeout 100 python3 probe.py $t; done > $OUT/ab.txt 2>&1
sort -k2,2 -k1,1 -s $OUT/ab.txt | awk '{print $1, $2, $3, $5, $6}' | paste - - - -
