"""The p2p transport's own code (_cuda_p2p) run on the CPU: each rank in a thread, its kernels
and copies replaced by host copies at the same raw addresses, the GPU barrier by a thread
barrier. It checks the steps as the GPU runs them (pointers, pitches, which buffer, in which
order) without a GPU; the GPU tests check the kernels themselves."""
import contextlib
import ctypes
import sys
import threading
import types

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs torch")

from bwlab.distributed import Exchange, shard_of  # noqa: E402


class _Stream:
    cuda_stream = 0

    def wait_stream(self, other):
        pass

    def wait_event(self, event):
        pass

    def record_event(self):
        return None


def _pitched(src, ldi, dst, ldo, rows, cols, itemsize, device, stream, blocks=None):
    for i in range(rows):
        for j in range(cols):
            ctypes.memmove(dst + (j * ldo + i) * itemsize, src + (i * ldi + j) * itemsize, itemsize)


def _memcpy2d(dst, dpitch, src, spitch, width, height, kind, stream):
    for h in range(height):
        ctypes.memmove(dst + h * dpitch, src + h * spitch, width)


@pytest.mark.parametrize("R, C, world, chunks", [(33, 31, 3, 2), (7, 5, 2, 1), (1, 9, 4, 3), (10, 3, 3, 5),
                                                  (0, 4, 2, 1), (5, 0, 2, 1), (16, 12, 2, 4)])
@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.complex128])
def test_cuda_p2p_steps_on_the_host(monkeypatch, R, C, world, chunks, dtype):
    t = sys.modules["bwlab.distributed.transpose"]
    pitched = sys.modules.get("bwlab.workloads.transpose.pitched")
    if pitched is None:
        import bwlab.workloads.transpose.pitched as pitched
    full = torch.arange(R * C, dtype=torch.int64).view(R, C).to(dtype) if dtype != torch.complex128 else \
        torch.complex(torch.arange(R * C, dtype=torch.float64), -torch.arange(R * C, dtype=torch.float64)).view(R, C)
    E = full.element_size()
    ex = [Exchange(R, C, world, p, chunks) for p in range(world)]
    size = max(max(e.recv_elements for e in ex) * E, 16)
    bufs = [np.full(size, 0xAB, dtype=np.uint8) for _ in range(world)]
    meet = threading.Barrier(world)
    boxes = [types.SimpleNamespace(write=_Stream(), copy=_Stream(), link_blocks=1,
                                   handle=types.SimpleNamespace(barrier=lambda channel: meet.wait(timeout=30)),
                                   ptrs=[b.ctypes.data for b in bufs]) for _ in range(world)]
    fake_cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(
        memcpy2DAsync=_memcpy2d, memcpyDeviceToDevice=3)))
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    monkeypatch.setattr(pitched, "transpose_pitched", _pitched)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: _Stream())
    monkeypatch.setattr(torch.cuda, "stream", lambda s: contextlib.nullcontext())
    rank_of = {}
    monkeypatch.setattr(t, "_receive", lambda g, device, nbytes: boxes[rank_of[threading.get_ident()]])
    outs, errors = [None] * world, []

    def rank(p):
        rank_of[threading.get_ident()] = p
        try:
            outs[p] = t._cuda_p2p(shard_of(full, world, p), ex[p], None)
        except Exception as exc:   # reported below with its rank
            errors.append((p, exc))
            meet.abort()

    threads = [threading.Thread(target=rank, args=(p,)) for p in range(world)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    for p in range(world):
        assert torch.equal(outs[p], shard_of(full.t().contiguous(), world, p)), p
