# From this folder on the device: each variant's copy of the package (variants.py), then two rounds
# over the variants in turn (round 1 compiles and checks), outputs under $OUT.
for v in u4 u8 u16 early-u4 early-u8; do python3 variants.py $v /tmp/lean-$v; done
for r in 1 2; do
  for v in u4 u8 u16 early-u4 early-u8; do
    BWLAB_CACHE=/tmp/bwc-$v PYTHONPATH=/tmp/lean-$v python3 probe.py $v $r >> $OUT/$v.txt 2>&1
    tail -1 $OUT/$v.txt
  done
done
for v in u4 u8 u16 early-u4 early-u8; do grep -v '^#' $OUT/$v.txt > $OUT/t-$v.txt; python3 ../team-width/summary.py $OUT/t-$v.txt; done
