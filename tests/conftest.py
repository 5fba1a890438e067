import pytest


def pytest_collection_modifyitems(config, items):
    from bwlab.core.device import cuda_available

    ok, why = cuda_available()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"needs a CUDA device: {why}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
