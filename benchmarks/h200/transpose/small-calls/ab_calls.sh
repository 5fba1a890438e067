# From the repository root on the device: ab_calls.py on the tree before (build/ab-old/src, carried)
# and this one, alternately, ROUNDS rounds (4); the medians of the rounds last.
R=${1:-4}
for r in $(seq 1 $R); do
  for t in old new; do
    src=src; [ $t = old ] && src=build/ab-old/src
    PYTHONPATH=$src python3 benchmarks/h200/transpose/small-calls/ab_calls.py $t $r
  done
done > $OUT/ab_calls.txt 2>&1
python3 - $OUT/ab_calls.txt <<'PY'
import collections, statistics, sys
v = collections.defaultdict(list)
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) > 5 and f[0].startswith("r") and f[-2] == "us":
        v[(" ".join(f[2:-3]), f[1])].append(float(f[-3]))
for (case, tree), xs in sorted(v.items()):
    print(f"{case:32} {tree:4} {statistics.median(xs):6.2f} us ({min(xs):.2f}-{max(xs):.2f})")
PY
