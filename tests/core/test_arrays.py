import sys

import numpy as np
import pytest

from bwlab.core.arrays import Operand, as_operand, c_strides, is_dense


def op(shape, strides, ptr=1 << 20, itemsize=4):
    return Operand(None, "cupy", ptr, shape, strides, itemsize, None, 0, "x")


def test_dense_and_strides():
    assert c_strides((2, 3, 4)) == (12, 4, 1)
    assert is_dense((2, 3, 4), (12, 4, 1)) and is_dense((1, 5), (99, 1)) and is_dense((0, 5), (7, 7))
    assert not is_dense((3, 4), (1, 3)) and not is_dense((3, 4), (-4, 1))


def test_span_and_overlap_follow_negative_strides():
    a = op((4, 5), (5, 1))
    assert a.span() == (a.ptr, a.ptr + 20 * 4)
    rev = op((4, 5), (-5, 1), ptr=a.ptr + 15 * 4)  # x[::-1]: starts at the last row
    assert rev.span() == (a.ptr, a.ptr + 20 * 4) and rev.overlaps(a)
    far = op((4, 5), (5, 1), ptr=a.ptr + 20 * 4)
    assert not far.overlaps(a) and not op((0, 5), (5, 1)).overlaps(a)


def test_cpu_and_foreign_inputs_are_type_errors():
    with pytest.raises(TypeError, match="NumPy array on the CPU"):
        as_operand(np.ones((3, 3)))
    with pytest.raises(TypeError, match="GPU array"):
        as_operand([[1, 2], [3, 4]])


def test_torch_compiled_compiles_every_case_past_the_recompile_limit():
    """One lambda compiled for ten shapes: each case gets a graph of its own (without the reset,
    dynamo stops at its recompile limit and runs the later shapes eagerly)."""
    torch = pytest.importorskip("torch")
    import torch._dynamo.utils as dynamo_utils

    from bwlab.core.arrays import torch_compiled

    def graphs(compile_each):
        torch._dynamo.reset()
        dynamo_utils.counters.clear()
        fn = torch.compile(lambda x: x * 2 + 1, dynamic=False, backend="eager")
        for n in range(1, 11):
            f = torch_compiled(lambda x: x * 2 + 1, backend="eager") if compile_each else fn
            assert bool((f(torch.ones(n)) == 3).all())
        return dynamo_utils.counters["stats"]["unique_graphs"]

    assert graphs(compile_each=False) < 10  # the limit this guards against
    assert graphs(compile_each=True) == 10


def test_release_cached_memory_empties_the_pools_of_imported_libraries_only(monkeypatch):
    import types

    from bwlab.core import arrays
    from bwlab.core.arrays import release_cached_memory

    calls = []
    pool = types.SimpleNamespace(free_all_blocks=lambda: calls.append("cupy"))
    cuda = types.SimpleNamespace(is_initialized=lambda: True, empty_cache=lambda: calls.append("torch"))
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(get_default_memory_pool=lambda: pool))
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(cuda=cuda))
    monkeypatch.setattr(arrays, "cuda_available", lambda: (True, ""))
    release_cached_memory()
    assert sorted(calls) == ["cupy", "torch"]
    calls.clear()
    # CuPy imported on a machine where it sees no GPU (the GPU extra installed on a laptop): its
    # pool holds nothing, and asking it would raise the driver's error
    monkeypatch.setattr(arrays, "cuda_available", lambda: (False, "no CUDA driver or device"))
    pool.free_all_blocks = lambda: (_ for _ in ()).throw(RuntimeError("cudaErrorInsufficientDriver"))
    release_cached_memory()
    assert calls == ["torch"]
    calls.clear()
    monkeypatch.delitem(sys.modules, "cupy")
    cuda.is_initialized = lambda: False  # torch without CUDA started holds nothing
    release_cached_memory()
    assert calls == []


def test_torch_stream_wraps_the_default_stream_faithfully(monkeypatch):
    """torch.cuda.ExternalStream(0) gives a fresh pool stream, not the default stream: torch_stream
    uses get_stream_from_external where torch has it, else default_stream for 0 (no GPU needed: a
    stand-in torch module records the calls)."""
    import sys
    import types

    from bwlab.core.arrays import torch_stream

    calls = []
    cuda = types.SimpleNamespace(default_stream=lambda d: calls.append(("default", d)) or "S0",
                                 ExternalStream=lambda h, device: calls.append(("external", h, device)) or "SX")
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(cuda=cuda))
    assert torch_stream(0, 1) == "S0" and torch_stream(1234, 1) == "SX"
    assert calls == [("default", 1), ("external", 1234, 1)]
    cuda.get_stream_from_external = lambda h, d: ("wrapped", h, d)
    assert torch_stream(0, 1) == ("wrapped", 0, 1) and torch_stream(1234, 1) == ("wrapped", 1234, 1)
