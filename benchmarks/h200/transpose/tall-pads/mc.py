"""Every tallWords entry of the dispatch's table (plans.TALL_WORDS) forced at 5 long sides, each
output checked bit-exact (tests/transpose/forced.py), for compute-sanitizer's memcheck. From the
repository root with PYTHONPATH=src."""
import sys

sys.path.insert(0, "tests/transpose")
from forced import check_forced  # noqa: E402

from bwlab.workloads.transpose import plans  # noqa: E402

for e, s in sorted(plans.TALL_WORDS):
    c = plans.Choice("tall-words", e, plans.TALLWORDS, plans.tallwords_expression(e, s), plans.TW_THREADS)
    for n in (1, 5, 33, 1025, 2049):
        check_forced(c, n, s, "u1" if e == 1 else "u2", seed=n)
print("memcheck script done:", len(plans.TALL_WORDS) * 5, "forced checks")
