"""bwlab: how much of the memory bandwidth can a kernel reach, and why not more?"""
from __future__ import annotations

__version__ = "0.1.0"

# Imported eagerly: the function must shadow its module's name on the package (the module
# stays importable as `bwlab.transpose` through sys.modules, e.g. `from bwlab.transpose import launch`).
from .transpose import transpose  # noqa: E402


def device_info(index: int = 0):
    """The GPU's attributes and theoretical peaks (a DeviceSpec); needs a CUDA device."""
    from .device import query

    return query(index)


def kernels():
    """The kernel catalog (KernelSpec tuple)."""
    from .catalog import KERNELS

    return KERNELS


__all__ = ["__version__", "device_info", "kernels", "transpose"]
