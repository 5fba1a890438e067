import pytest

from bigmem import BIG_NAME, one_at_a_time


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


@pytest.fixture(autouse=True)
def _one_big_test_at_a_time(request):
    if request.node.get_closest_marker("bigmem") is None:
        yield
        return
    with one_at_a_time():
        yield
