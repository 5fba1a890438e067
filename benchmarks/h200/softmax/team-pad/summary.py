"""Each case's rounds from ab.py's output (old and new, % of a copy) and the mean difference:
`python3 summary.py FILE...`."""
import collections
import re
import sys

LINE = re.compile(r"(old|new)\s+(\[[^\]]+\])\s+(\w+)\s+(\w+)\s+(\w+)\s+(-?\d+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)")


def main(files):
    rounds = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in files:
        for line in open(f):
            m = LINE.match(line)
            if m is None:
                continue
            tree, shape, dtype, op, kernel, bad, _, _, pct = m.groups()
            if int(bad) > 0:
                print("BAD", line.rstrip())
            rounds[(kernel, shape, dtype, op)][tree].append(float(pct))
    for (kernel, shape, dtype, op), r in rounds.items():
        old, new = r["old"], r["new"]
        diff = sum(new) / len(new) - sum(old) / len(old)
        print(f"{kernel:11} {shape:18} {dtype:9} {op}  old {' '.join(f'{x:5.1f}' for x in old)}  "
              f"new {' '.join(f'{x:5.1f}' for x in new)}  diff {diff:+5.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
