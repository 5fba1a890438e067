"""What users would call instead of bwlab's best matmul kernel, timed by the same harness in
the same run. Each make(x, out, case) takes the packed input buffer, an (M, N) float32
output and the case, and returns (run, result). Everything runs on the current stream.

cuBLAS SGEMM (full float32) through torch (TF32 off) and CuPy; cuBLAS with TF32 on is a
different precision (10-bit mantissa inputs on the tensor cores) and is labelled as one:
its result is checked with TF32's unit roundoff, and the goals never compare with it.
"""
from __future__ import annotations

from ...core.workload import Case, Peer
from .catalog import BEST, KERNELS, OP, kernel_for, variants
from .reference import Precision, split


def operands(x, case: Case):
    m, n, k = case.shape
    return split(x, m, n, k)


def api_kernel(case: Case):
    """The kernel bwlab runs for this case: the best rung, or smaller tiles when C is too small
    to give every SM a 128 x 128 tile."""
    from ...core.device import query

    m, n, _ = case.shape
    name = kernel_for(m, n, query().sm_count)
    return next(s for s in list(KERNELS) + list(variants()) if s.name == name)


def _api(x, out, case: Case):
    from .launch import prepare

    p = prepare(api_kernel(case), x, out, case.shape)
    return p.launch, (lambda: out)


def _cupy(x, out, case: Case):
    import cupy

    a, b = operands(x, case)
    return (lambda: cupy.matmul(a, b, out=out)), (lambda: out)


def _torch(tf32: bool):
    def make(x, out, case: Case):
        import torch

        a, b = operands(x, case)
        ta, tb, tc = torch.from_dlpack(a), torch.from_dlpack(b), torch.from_dlpack(out)

        def run():
            torch.backends.cuda.matmul.allow_tf32 = tf32  # set on every call: peers share the flag
            torch.matmul(ta, tb, out=tc)

        run()
        return run, ((lambda: Precision(out, "tf32")) if tf32 else (lambda: out))

    return make


API = Peer("bwlab", OP, f"bwlab's best kernel ({BEST}; 64 x 64 tiles when C has fewer 128 x 128 tiles than "
           "the GPU has SMs)", _api, ("cupy",))
PEERS: tuple[Peer, ...] = (
    API,
    Peer("torch", OP, "torch.matmul(a, b, out=c), TF32 off: cuBLAS SGEMM", _torch(False), ("torch",)),
    Peer("cupy", OP, "cupy.matmul(a, b, out=c): cuBLAS SGEMM", _cupy, ("cupy",)),
    Peer("torch-tf32", OP, "torch.matmul with allow_tf32 = True: cuBLAS on tensor cores, TF32 inputs "
         "(another precision)", _torch(True), ("torch",), precision="tf32"),
)
CUBLAS = ("torch", "cupy")  # the SGEMM peers the goals compare with, in order of preference
