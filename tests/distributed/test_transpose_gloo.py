"""bwlab.distributed.transpose on CPU tensors over gloo, 1 to 4 processes: bit for bit against
the transpose of the whole matrix at awkward shapes, every dtype size, several chunkings,
strided views and a subgroup; wrong shards refused on every rank without hanging."""
import pytest

from ranks import launch

torch = pytest.importorskip("torch", reason="needs torch (CI installs torch==2.13.0, a CPU build)")


@pytest.mark.parametrize("world", [2, 3, 4])
def test_transpose_matches_the_whole_matrix(world):
    outs = launch("gloo-cases", world)
    assert all("bit-exact" in o for o in outs)


def test_wrong_shards_raise_on_every_rank():
    outs = launch("gloo-errors", 2)
    assert all("refusals as expected" in o for o in outs)


def test_one_rank_and_no_group():
    import torch.distributed as dist

    import bwlab.distributed as bd

    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="init_process_group"):
        bd.transpose(torch.zeros(2, 3))
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        x = torch.arange(12.0).view(3, 4)
        y = bd.transpose(x)
        assert torch.equal(y, x.t()) and y.is_contiguous() and y.data_ptr() != x.data_ptr()
        for chunks in (1, 2, 5):   # the chunked exchange with nothing to send
            assert torch.equal(bd.transpose(x, chunks=chunks), x.t())
        one = torch.ones(1, 5)
        assert bd.transpose(one).data_ptr() != one.data_ptr()   # a new tensor even when x.t() is contiguous
        with pytest.raises(TypeError, match="CUDA tensors need NCCL|CPU tensors"):
            bd.transpose(torch.zeros(2, 2, device="meta"))
        with pytest.raises(ValueError, match="transport must be one of auto, p2p, nccl"):
            bd.transpose(x, transport="nvlink")
        with pytest.raises(ValueError, match="transport 'p2p' moves CUDA tensors"):
            bd.transpose(x, transport="p2p")
        assert torch.equal(bd.transpose(x, transport="nccl"), x.t())
        assert bd.resolve_transport("auto") == "nccl"   # one rank, and gloo
        with pytest.raises(ValueError, match="needs a process group on NCCL"):
            bd.resolve_transport("p2p")
    finally:
        dist.destroy_process_group()


def test_transport_choice(monkeypatch):
    """auto takes p2p where every GPU reaches every other's, else nccl; p2p asked for where it
    cannot run is refused (the NCCL group and the peer-access table are stand-ins here)."""
    import sys

    import torch.distributed as dist

    t = sys.modules["bwlab.distributed.transpose"]
    monkeypatch.setattr(dist, "get_backend", lambda g: "nccl")
    monkeypatch.setattr(dist, "get_world_size", lambda g: 2)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(t, "_p2p", {})
    monkeypatch.setattr(t, "_groups", {})
    reach, far = object(), object()
    monkeypatch.setattr(t, "_p2p_possible", lambda g, d: g is reach)
    assert t.resolve_transport("auto", reach) == t.resolve_transport("p2p", reach) == "p2p"
    assert t.resolve_transport("auto", far) == t.resolve_transport("nccl", far) == "nccl"
    with pytest.raises(ValueError, match="transport 'p2p' needs every rank's GPU on one machine"):
        t.resolve_transport("p2p", far)
    assert set(t._groups.values()) == {reach, far}   # kept alive: no later group takes their ids
    # result rows past the copy engines' largest pitch: auto takes nccl, p2p asked for is refused
    assert t._transport_for("auto", reach, 1000, 4) == "p2p"
    assert t._transport_for("auto", reach, 2**28, 8) == "nccl"
    with pytest.raises(ValueError, match="rows of the result of at most"):
        t._transport_for("p2p", reach, 2**28, 8)
