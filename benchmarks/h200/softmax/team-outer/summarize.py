"""Mean % of a copy over the rounds of probe.txt, per case and variant, and the difference from the
dispatch ("base"): `python3 summarize.py probe.txt`."""
import collections
import re
import sys

LINE = re.compile(r"^r(\d+)\s+(\[.*?\] d\d)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(-?\d+)\s+\S+\s+\S+\s+(\S+)")


def main(path):
    runs, info, order = collections.defaultdict(list), {}, []
    for line in open(path):
        m = LINE.match(line)
        if not m:
            continue
        key = m.group(2, 3, 4, 5)
        if key not in info:
            order.append(key)
        runs[key].append(float(m.group(10)))
        info[key] = (m.group(6), m.group(7), m.group(8), info.get(key, (0, 0, 0, "0"))[3] if m.group(9) == "-1"
                     else m.group(9))
    mean = {k: sum(v) / len(v) for k, v in runs.items()}
    for k in order:
        base = mean[k[:3] + ("base",)]
        kern, T, G, bad = info[k]
        v = runs[k]
        print(f"{k[0]:22} {k[1]:9} {k[2]:4} {k[3]:9} {kern:11} T{T:>3} G{G:>3} bad {bad:>2}  "
              f"{mean[k]:5.1f} ({min(v):.1f}-{max(v):.1f})  {mean[k] - base:+5.1f}")


if __name__ == "__main__":
    main(sys.argv[1])
