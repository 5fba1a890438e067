"""bwlab.softmax as users call it: CuPy and torch, special values as torch gives them,
strided inputs, streams, refusals that leave `out` untouched, autograd and torch.compile."""
import numpy as np
import pytest

import bwlab

pytestmark = pytest.mark.gpu
torch = pytest.importorskip("torch")
TDT = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
TOL = {"float32": (1e-6, 1e-5), "float16": (1e-3, 1e-3), "bfloat16": (8e-3, 8e-3)}


def same_as_torch(got, want, dtype, exact=None):
    """NaN where torch has NaN; values within tolerance of `exact` (float64) or of torch."""
    g, w = got.float(), want.float()
    diff = torch.isnan(g) != torch.isnan(w)
    if diff.any():
        rows = sorted({int(i) for i in diff.nonzero()[:, 0]})
        raise AssertionError(f"NaN in different places than torch, rows {rows}: bwlab {g[rows[0]][:8].tolist()} "
                             f"torch {w[rows[0]][:8].tolist()}")
    m = ~torch.isnan(w)
    atol, rtol = TOL[dtype]
    ref = exact.to(g.dtype) if exact is not None else w
    torch.testing.assert_close(g[m], ref[m], atol=atol, rtol=rtol)


def special(shape, dtype):
    x = torch.randn(shape, device="cuda") * 3
    x[0] = 1e4
    x[1, ::3] = -1e4
    x[2] = float("-inf")            # a row of -inf only
    x[3, 1] = float("nan")
    x[4, 0] = float("inf")
    x[5, ::2] = float("-inf")       # some -inf entries
    return x.to(TDT[dtype])


@pytest.mark.parametrize("dtype", list(TDT))
@pytest.mark.parametrize("log", [False, True])
# transposed, the strided axis: (8, 13) and (8, 37) in registers, (8, 4096) on narrow strips,
# (256, 2048) on 128-byte strips (16-bit: the max over 16-byte packs first, then the sum), (8, 300000)
# in chunks
@pytest.mark.parametrize("shape", [(8, 13), (8, 37), (8, 4096), (256, 2048), (8, 300000)], ids=str)
def test_special_values_like_torch(dtype, log, shape):
    x = special(shape, dtype)
    f = torch.log_softmax if log else torch.softmax
    same_as_torch(bwlab.softmax(x, -1, log=log), f(x, -1), dtype, f(x.double(), -1))
    xt = x.t().contiguous()  # the same values down a strided axis
    same_as_torch(bwlab.softmax(xt, 0, log=log), f(xt, 0), dtype, f(xt.double(), 0))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("view", ["t", "slice", "every_other", "permute"])
def test_strided_inputs(view, seed):
    """Against the float64 softmax (the tolerance is bwlab's own, not shared with torch's float32 error)."""
    base = torch.randn(64, 96, 40, device="cuda", generator=torch.Generator("cuda").manual_seed(seed))
    x = {"t": lambda a: a[0].t(), "slice": lambda a: a[:, 1:-1, 3:], "every_other": lambda a: a[::2, :, ::2],
         "permute": lambda a: a.permute(2, 0, 1)}[view](base)
    for dim in range(x.dim()):
        got = bwlab.softmax(x, dim)
        assert got.is_contiguous()
        same_as_torch(got, torch.softmax(x, dim), "float32", torch.softmax(x.double(), dim))


@pytest.mark.parametrize("explicit", [False, True])
def test_strided_copy_and_workspace_on_the_launch_stream(explicit, monkeypatch):
    """A strided x's contiguous copy (and, with stream= given, the workspace) is made on the stream
    the kernels run on, also when that is torch's default stream, handle 0
    (torch.cuda.ExternalStream(0) would be a pool stream, unordered with it)."""
    from bwlab.core import launch as core_launch
    from bwlab.workloads.softmax import calls

    made, launched = [], []
    wrap = calls.torch_stream
    monkeypatch.setattr(calls, "torch_stream", lambda h, d: made.append(wrap(h, d)) or made[-1])
    run = core_launch.PackedLaunch.__call__
    monkeypatch.setattr(core_launch.PackedLaunch, "__call__",
                        lambda self, stream, *a: launched.append(stream) or run(self, stream, *a))
    s0 = torch.cuda.default_stream()
    assert s0.cuda_stream == 0
    x = torch.randn(64, 96, 40, device="cuda")[:, 1:-1, 3:]  # dims 0 and 1: colsChunks, with a workspace
    with torch.cuda.stream(s0):
        for dim in range(3):
            got = bwlab.softmax(x, dim, stream=s0 if explicit else None)
            same_as_torch(got, torch.softmax(x, dim), "float32", torch.softmax(x.double(), dim))
    assert launched and set(launched) == {0}, launched
    assert len(made) >= 3 and {s.cuda_stream for s in made} == {0}, [s.cuda_stream for s in made]


def test_strided_copy_waits_for_the_callers_work():
    """The copy of a strided x runs after the caller's pending writes to it on the default stream:
    x is filled behind a 50 ms sleep on stream 0, then transposed softmax'ed at once; a copy on any
    other stream would read the old zeros (every probability 1/L)."""
    base = torch.zeros(64, 96, 40, device="cuda")
    new = torch.randn(64, 96, 40, device="cuda")
    torch.cuda.synchronize()
    torch.cuda._sleep(100_000_000)  # about 50 ms of GPU time on stream 0
    base.copy_(new)
    x = base.permute(2, 0, 1)
    got = [bwlab.softmax(x, d) for d in range(3)]
    for d in range(3):
        want = torch.softmax(new.permute(2, 0, 1).double(), d)
        same_as_torch(got[d], torch.softmax(new.permute(2, 0, 1), d), "float32", want)


def test_cupy_negative_strides_and_kind():
    cupy = pytest.importorskip("cupy")
    a = cupy.random.standard_normal((50, 70), dtype=cupy.float32)[::-1, ::-2]
    got = bwlab.softmax(a, 0)
    assert isinstance(got, cupy.ndarray)
    h = cupy.asnumpy(a).astype(np.float64)
    e = np.exp(h - h.max(0))
    np.testing.assert_allclose(cupy.asnumpy(got), e / e.sum(0), rtol=1e-5, atol=1e-6)


def test_zero_size_and_out():
    x = torch.randn(0, 5, device="cuda")
    assert bwlab.softmax(x, 1).shape == (0, 5)
    x = torch.randn(4, 300, device="cuda")
    out = torch.empty_like(x)
    assert bwlab.softmax(x, 1, out=out) is out
    same_as_torch(out, torch.softmax(x, 1), "float32")


@pytest.mark.parametrize("bad", ["overlap", "dtype", "shape", "int", "dim", "grad_shape"])
def test_refusals_leave_out_untouched(bad):
    x = torch.randn(16, 64, device="cuda")
    out = torch.full_like(x, 7.0)
    with pytest.raises((TypeError, ValueError)):
        if bad == "overlap":
            bwlab.softmax(x, 1, out=x)
        elif bad == "dtype":
            bwlab.softmax(x, 1, out=out.double())
        elif bad == "shape":
            bwlab.softmax(x, 1, out=out[:, :10])
        elif bad == "int":
            bwlab.softmax(x.int(), 1)
        elif bad == "dim":
            bwlab.softmax(x, 2, out=out)
        else:
            bwlab.softmax_backward(x, x[:, :3], 1, out=out)
    assert bool((out == 7.0).all())


@pytest.mark.parametrize("kind", ["torch", "cupy"])
@pytest.mark.parametrize("shape,dim", [((4, 3000, 128), 1), ((64, 513), -1), ((3, 70000, 2), 1)], ids=str)
def test_repeated_calls_take_the_fast_path_and_stay_checked(kind, shape, dim, monkeypatch):
    """After its first call, a signature's calls skip the checks (the fast path: counted here) with
    fresh data each time: a new result and out=, the backward pass with its workspace (the last
    shape runs three launches) on an explicit stream. On the fast path, out overlapping x (whole
    or 16 bytes apart) or grad is still refused with x and out untouched; out just past x is not."""
    from bwlab.workloads.softmax import calls

    cupy = pytest.importorskip("cupy")
    monkeypatch.setattr(calls, "_seen", {})
    checked = []
    real = calls._run_checked
    monkeypatch.setattr(calls, "_run_checked", lambda *a: checked.append(a[0]) or real(*a))

    def mk(t):
        return t if kind == "torch" else cupy.from_dlpack(t)

    def back(a):
        return a if kind == "torch" else torch.from_dlpack(a)

    for i in range(3):
        x = torch.randn(shape, device="cuda") * (i + 1)
        g = torch.randn(shape, device="cuda")
        y = back(bwlab.softmax(mk(x), dim))
        same_as_torch(y, torch.softmax(x, dim), "float32", torch.softmax(x.double(), dim))
        out = torch.full_like(x, float("nan"))
        bwlab.softmax(mk(x), dim, log=True, out=mk(out))
        same_as_torch(out, torch.log_softmax(x, dim), "float32", torch.log_softmax(x.double(), dim))
        dx = torch.full_like(x, float("nan"))
        s = torch.cuda.Stream() if kind == "torch" else cupy.cuda.Stream(non_blocking=True)
        torch.cuda.synchronize()
        bwlab.softmax_backward(mk(y), mk(g), dim, out=mk(dx), stream=s)
        s.synchronize()
        yd = y.double()
        want = yd * (g.double() - (yd * g.double()).sum(dim, keepdim=True))
        torch.testing.assert_close(dx.double(), want, atol=1e-5, rtol=1e-4)
        assert len(checked) == 3, f"call {i + 1}: {len(checked)} calls through the checks, want 3 (the first)"
    n = x.numel()
    buf = torch.randn(2 * n + 4, device="cuda")
    xs, before = buf[:n].view(shape), buf.clone()
    for o in (xs, buf[4:n + 4].view(shape)):  # all of x, and x 16 bytes on
        with pytest.raises(ValueError, match="overlaps"):
            bwlab.softmax(mk(xs), dim, log=True, out=mk(o))
    assert torch.equal(buf, before)
    kept = torch.full_like(x, 7.0)
    with pytest.raises(ValueError, match="overlaps"):
        bwlab.softmax_backward(mk(y), mk(kept), dim, out=mk(kept))
    assert bool((kept == 7.0).all())
    assert len(checked) == 6  # each refusal left the fast path for the checks' message
    after = buf[n:2 * n].view(shape)  # right after x: no overlap, still the fast path
    bwlab.softmax(mk(xs), dim, log=True, out=mk(after))
    same_as_torch(after, torch.log_softmax(before[:n].view(shape), dim), "float32")
    assert len(checked) == 6


def test_caller_stream():
    cupy = pytest.importorskip("cupy")
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        a = cupy.random.standard_normal((512, 4096), dtype=cupy.float32)
        got = bwlab.softmax(a, -1)
    s.synchronize()
    np.testing.assert_allclose(cupy.asnumpy(got).sum(1), 1.0, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
def test_autograd_matches_torch(dtype, log, dim):
    x = (torch.randn(33, 1000, device="cuda") * 2).to(TDT[dtype]).requires_grad_()
    g = torch.randn(33, 1000, device="cuda").to(TDT[dtype])
    y = bwlab.softmax(x, dim, log=log)
    assert y.grad_fn is not None
    y.backward(g)
    x2 = x.detach().clone().requires_grad_()
    ref = torch.log_softmax(x2, dim) if log else torch.softmax(x2, dim)
    ref.backward(g)
    tol = (1e-5, 1e-5) if dtype == "float32" else (2e-2, 2e-2)
    torch.testing.assert_close(x.grad.float(), x2.grad.float(), atol=tol[0], rtol=tol[1])


def test_torch_compile_fullgraph_and_training_step():
    model = torch.nn.Linear(256, 256).cuda()

    def step(x):
        return bwlab.softmax(model(x), -1, log=True).sum()

    compiled = torch.compile(step, fullgraph=True)
    x = torch.randn(64, 256, device="cuda")
    loss = compiled(x)
    loss.backward()
    want = torch.log_softmax(model(x), -1).sum()
    torch.testing.assert_close(loss, want, atol=1e-3, rtol=1e-5)
    assert model.weight.grad is not None
