"""The medians per case and tree of ab.txt: python3 summary.py ab.txt > summary.txt"""
import collections
import statistics
import sys

d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 9:
        d[(" ".join(f[1:-5]), f[0])].append(float(f[-1]))
print("% of a copy, median (range) of 3 rounds; old = HEAD (b490f09), new = term-round.patch")
for k in dict.fromkeys(k for k, _ in d):
    o, n = d[(k, "old")], d[(k, "new")]
    print(f"{k:42} old {statistics.median(o):5.1f} ({min(o):.1f}-{max(o):.1f})  new {statistics.median(n):5.1f} "
          f"({min(n):.1f}-{max(n):.1f})  {statistics.median(n) - statistics.median(o):+.1f}")
