# From this folder on the device: `sh run.sh "VARIANTS" [SET]`: each variant's copy of the package
# (variants.py), then three rounds over the variants in turn (round 1 compiles and checks), outputs
# under $OUT (the kernel cache of each copy: build/bwc-poll-VARIANT at the repository's root).
V=${1:-"base free0"}
S=${2:-poll}
for v in $V; do python3 variants.py $v /tmp/poll-$v; done
for r in 1 2 3; do
  for v in $V; do
    BWLAB_CACHE=$(cd ../../../.. && pwd)/build/bwc-poll-$v PYTHONPATH=/tmp/poll-$v python3 probe.py $v $r $S >> $OUT/$S-$v.txt 2>&1
    tail -1 $OUT/$S-$v.txt
  done
done
for v in $V; do grep -v '^#' $OUT/$S-$v.txt > $OUT/t-$S-$v.txt; python3 ../team-width/summary.py $OUT/t-$S-$v.txt; done
