"""One tall transpose under Nsight Compute: `python3 ncu_one.py dflt|bulk E S` (see ncu.sh)."""
import importlib.util
import sys

import cupy

import bwlab

spec = importlib.util.spec_from_file_location("bulk_probe", "probe.py")  # not ../async-tiles' probe
bulk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bulk)
array, force, geometry, long_side = bulk.array, bulk.force, bulk.geometry, bulk.long_side

mode, e, s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
x = array(long_side(s, e), s, e)[0]
force(None if mode == "dflt" else geometry(e, s, True, True)[0])
out = cupy.empty((s, x.shape[0]), x.dtype)
for _ in range(2):
    bwlab.transpose(x, out=out)
cupy.cuda.Device().synchronize()
