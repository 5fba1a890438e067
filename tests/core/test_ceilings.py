from hypothesis import given
from hypothesis import strategies as st

from bwlab.core import ceilings


@given(st.integers(0, 10**8), st.sampled_from([256, 512, 1024]))
def test_copy_grid_covers_every_vector(nbytes, bx):
    for spec in ceilings.COPY_KERNELS:
        unroll = 4 if spec.name.endswith("Unroll4") else 1
        g = ceilings.copy_grid(spec, nbytes, (bx, 1))
        assert g >= 1 and g * bx * unroll >= nbytes // 16
        assert g == 1 or (g - 1) * bx * unroll < nbytes // 16


def test_copy_kernels_are_ceilings():
    assert [k.role for k in ceilings.COPY_KERNELS] == ["ceiling", "ceiling"]
    assert all(k.source.exists() for k in ceilings.COPY_KERNELS)
