"""The dispatch of the public API on tall skinny shapes of 1, 2, 4 and 8 bytes (skinnyWords and
skinnyTile; 4- and 8-byte elements as unsigned integers), for an A/B of two trees:
skinny-balance/probe.py's dispatch mode on more shapes (each output, poisoned first, compared with
CuPy's transpose, then timed beside a device copy).
`PYTHONPATH=<tree>/src python3 probe.py LABEL` from this folder."""
import importlib.util
import sys
from pathlib import Path

import cupy

spec = importlib.util.spec_from_file_location("balance", Path(__file__).parent.parent / "skinny-balance" / "probe.py")
balance = importlib.util.module_from_spec(spec)
spec.loader.exec_module(balance)

balance.DT.update({4: cupy.uint32, 8: cupy.uint64})  # integers: NaN bits compare equal
balance.SHAPES = [(53687093, 5, 1), (38347923, 7, 1), (29826163, 9, 1), (22369623, 12, 1), (20648883, 13, 1),
                  (15790321, 17, 1), (8659209, 31, 1), (8388609, 32, 1), (8134409, 33, 1), (5592407, 48, 1),
                  (4260881, 63, 1), (4194305, 64, 1), (11184811, 12, 2), (5592407, 24, 2), (4194305, 32, 2),
                  (7456541, 9, 4), (3947581, 17, 4), (2033603, 33, 4), (1065221, 63, 4), (1048577, 64, 4),
                  (1677721, 20, 8)]

if __name__ == "__main__":
    balance.dispatch(sys.argv[1])
