"""Argument checks that need no GPU: blocks and grid limits."""
import pytest

from bwlab import catalog, launch


def test_templated_kernels_accept_only_compiled_blocks():
    spec = catalog.get("tile32")
    launch.check_block(spec, (32, 16))
    with pytest.raises(ValueError, match="block 64x8 not available"):
        launch.check_block(spec, (64, 8))


def test_runtime_block_kernels_take_any_legal_block():
    spec = catalog.get("naiveRow")
    launch.check_block(spec, (128, 8))
    with pytest.raises(ValueError, match="1..1024 threads"):
        launch.check_block(spec, (64, 32))


def test_too_tall_for_the_grid_is_refused():
    spec = catalog.get("naiveRow")  # grid.y = rows / 16 must stay <= 65535
    assert launch.grid_for(spec, 65535 * 16, 3, (32, 16), 4)[1] == 65535
    with pytest.raises(ValueError, match="over the CUDA limit"):
        launch.grid_for(spec, 65535 * 16 + 1, 3, (32, 16), 4)
