"""bwlab: how close does a kernel get to the GPU's memory roof, and why not closer?

The public API: transpose(), permute(), and softmax() with softmax_backward() (and
explain_transpose(), explain_permute(), explain_softmax(), which say what they would run),
device_info() and __version__;
bwlab.workloads.NAMES lists the workloads.
"""
from __future__ import annotations

__version__ = "0.2.0"

import sys as _sys  # noqa: E402

from .workloads.transpose.api import explain as explain_transpose  # noqa: E402
from .workloads.transpose.api import transpose  # noqa: E402
from .workloads.softmax.api import explain as explain_softmax  # noqa: E402
from .workloads.softmax.api import softmax, softmax_backward  # noqa: E402
from .workloads.permute.api import explain as explain_permute  # noqa: E402
from .workloads.permute.api import permute  # noqa: E402

if "torch" in _sys.modules:  # register the torch operators now, before any torch.compile traces a call
    from .workloads.transpose import torch_op as _torch_op  # noqa: E402,F401
    from .workloads.softmax import torch_op as _softmax_op  # noqa: E402,F401
    from .workloads.permute import torch_op as _permute_op  # noqa: E402,F401


def device_info(index: int = 0):
    """The GPU's attributes and theoretical peaks (a DeviceSpec); needs a CUDA device (RuntimeError
    naming what is missing without one)."""
    from .core.device import cuda_available, query

    ok, why = cuda_available()
    if not ok:
        raise RuntimeError(f"bwlab.device_info() needs an NVIDIA GPU and none is usable here: {why}")
    return query(index)


__all__ = ["__version__", "device_info", "explain_permute", "explain_softmax", "explain_transpose", "permute",
           "softmax", "softmax_backward", "transpose"]
