"""Each case's rounds per tree from ab.py's output (% of a copy) and each tree's mean against the
first tree's: `python3 summary.py FILE...`."""
import collections
import re
import sys

LINE = re.compile(r"(\w+)\s+(\[[^\]]+\])\s+(\w+)\s+(\w+)\s+(\w+)\s+(-?\d+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)")


def main(files):
    rounds = collections.defaultdict(lambda: collections.defaultdict(list))
    trees = []
    for f in files:
        for line in open(f):
            m = LINE.match(line)
            if m is None:
                continue
            tree, shape, dtype, op, kernel, bad, _, _, pct = m.groups()
            if int(bad) > 0:
                print("BAD", line.rstrip())
            if tree not in trees:
                trees.append(tree)
            rounds[(kernel, shape, dtype, op)][tree].append(float(pct))
    for (kernel, shape, dtype, op), r in rounds.items():
        base = sum(r[trees[0]]) / len(r[trees[0]])
        line = f"{kernel} {shape} {dtype} {op} "
        for t in trees:
            mean = sum(r[t]) / len(r[t])
            line += f" {t} {' '.join(f'{x:.1f}' for x in r[t])}" + (f" ({mean - base:+.1f})" if t != trees[0] else "")
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
