"""The distributed transpose on NCCL, one process per GPU: bit for bit against bwlab.transpose
of the gathered matrix on one GPU, at awkward shapes, every element size, several chunkings."""
import pytest

from ranks import launch

torch = pytest.importorskip("torch", reason="needs torch with NCCL")


def _gpus() -> int:
    import cupy

    return cupy.cuda.runtime.getDeviceCount()


@pytest.mark.gpu
@pytest.mark.parametrize("world", [1, 2, 4, 8])
def test_matches_one_gpu_transpose_of_the_gathered_matrix(world):
    if world > 1 and _gpus() < world:
        pytest.skip(f"needs {world} GPUs, {_gpus()} visible")
    outs = launch("nccl-cases", world, timeout=400)
    assert all("bit-exact against one GPU" in o for o in outs)
