# (the commands of alone.txt; from the repository root, with the kernels precompiled under NVRTC 13.0 and carried as build/*.tar.xz)
# each large 2-D case that `--suite main` missed, benched alone in a fresh process (every peer)
mkdir -p /tmp/bwc && tar xJf build/rest130.tar.xz -C /tmp/bwc && tar xJf build/pm130c.tar.xz -C /tmp/bwc && tar xJf build/elems130.tar.xz -C /tmp/bwc
export BWLAB_CACHE=/tmp/bwc PYTHONPATH=src
for case in 16384x16384:complex128 16383x16389:float64 16383x16389:complex128 8192x32768:complex128 32768x8192:complex128 64x4194304:uint8; do
  s=${case%%:*}; d=${case##*:}
  echo "## python3 -m bwlab bench transpose --shapes $s --dtypes $d --reps 30 --out /tmp/alone-$s-$d"
  python3 -m bwlab bench transpose --shapes $s --dtypes $d --reps 30 --out /tmp/alone-$s-$d > /dev/null 2>&1
  sed -n '/against what users would call/,/^GB\/s/p' /tmp/alone-$s-$d/bench.txt | grep -v "^GB/s"
done
