import contextlib
import sys

import pytest

# Tests past 2^31 elements hold several GiB each (input, output, reference). Run side by side by
# pytest-xdist workers, they ran a 139 GiB GPU out of memory; so they take a lock one at a time.
BIG_NAME = "2_31_elements"


def pytest_collection_modifyitems(config, items):
    from bwlab.core.device import cuda_available

    for item in items:
        if BIG_NAME in item.name:
            item.add_marker(pytest.mark.bigmem)
    ok, why = cuda_available()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"needs a CUDA device: {why}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@contextlib.contextmanager
def _exclusive():
    """An exclusive lock shared by every process on this machine: flock on this file (no file made)."""
    try:
        import fcntl
    except ImportError:  # no flock: tests run as they come
        yield
        return
    with open(__file__, "rb") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _release_memory():
    """Hand cached GPU memory back to the driver, so that the next big test finds it free."""
    import gc

    gc.collect()
    if "cupy" in sys.modules:
        sys.modules["cupy"].get_default_memory_pool().free_all_blocks()
    if "torch" in sys.modules and sys.modules["torch"].cuda.is_initialized():
        sys.modules["torch"].cuda.empty_cache()


@pytest.fixture(autouse=True)
def _one_big_test_at_a_time(request):
    if request.node.get_closest_marker("bigmem") is None:
        yield
        return
    with _exclusive():
        _release_memory()
        try:
            yield
        finally:
            _release_memory()
