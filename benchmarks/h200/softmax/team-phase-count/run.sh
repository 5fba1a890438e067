# From this folder on the device: `sh run.sh "VARIANTS" [SET]`: each variant's copy of the package
# (variants.py), then R rounds (2) over the variants in turn (round 1 compiles and checks), outputs
# under $OUT (the kernel cache of each copy: build/bwc-phase-VARIANT at the repository's root).
V=${1:-"base p6s3 p6s15"}
S=${2:-all}
R=${3:-2}
for v in $V; do python3 variants.py $v /tmp/phase-$v; done
for r in $(seq 1 $R); do
  for v in $V; do
    BWLAB_CACHE=$(cd ../../../.. && pwd)/build/bwc-phase-$v PYTHONPATH=/tmp/phase-$v python3 probe.py $v $r $S >> $OUT/$S-$v.txt 2>&1
    tail -1 $OUT/$S-$v.txt
  done
done
for v in $V; do grep -v '^#' $OUT/$S-$v.txt > $OUT/t-$S-$v.txt; python3 ../team-width/summary.py $OUT/t-$S-$v.txt; done
