"""../exp-fold/probe.py (the public softmax and log-softmax, checked then timed beside a copy of the
same bytes, for an A/B of two trees in one run) on these cases: one of each kernel family, the
long rows on rowStream and rowTeam among them, and the short rows of [4194304, 32]:
`PYTHONPATH=<tree>/src python3 probe.py LABEL [nocheck]`."""
import importlib.util
import sys
from pathlib import Path

spec = importlib.util.spec_from_file_location("exp_fold_probe", Path(__file__).resolve().parent.parent / "exp-fold"
                                              / "probe.py")
ab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ab)
ab.CASES = [((1024, 131072), -1), ((4096, 262144), -1), ((16, 8192, 1024), 1), ((8192, 8192), 0),
            ((4, 32768, 1024), 1), ((8192, 16, 1024), 1), ((32768, 4096), -1), ((64, 4194304), -1),
            ((4194304, 32), -1)]

if __name__ == "__main__":
    ab.main(sys.argv[1], "nocheck" not in sys.argv)
