"""One transpose kernel forced on a fresh random matrix (the dispatcher bypassed), checked
bit-exact against NumPy with the output poisoned first and the input left as it was."""
import numpy as np

from bwlab.core import verify


def check_forced(choice, rows: int, cols: int, dtype: str, seed: int) -> None:
    import cupy

    from bwlab.workloads.transpose.calls import launch

    host = verify.random_host((rows, cols), dtype, seed=seed)
    x = cupy.asarray(host)
    out = cupy.empty((cols, rows), dtype)
    verify.poison(out)
    launch(choice, x.data.ptr, out.data.ptr, 1, rows, cols, x.nbytes, x.device.id,
           cupy.cuda.get_current_stream().ptr)
    check = verify.compare(out.get(), np.ascontiguousarray(host.T))
    assert check.ok, (choice.expression, rows, cols, str(check))
    assert verify.compare(x.get(), host).ok, f"{choice.expression} modified its input"
