"""bwlab.transpose inside torch programs: gradients, torch.compile without graph breaks,
CUDA graph capture (torch and CuPy)."""
import pytest

import bwlab
from bwlab.core import verify

pytestmark = pytest.mark.gpu


def test_gradient_matches_torchs_own():
    import torch

    x = torch.randn(3, 37, 29, device="cuda", dtype=torch.float64, requires_grad=True)
    y = bwlab.transpose(x)
    assert y.grad_fn is not None and y.requires_grad
    w = torch.randn(3, 29, 37, device="cuda", dtype=torch.float64)
    (y * w).sum().backward()
    ref = x.detach().clone().requires_grad_(True)
    (ref.transpose(-1, -2) * w).sum().backward()
    assert torch.equal(x.grad, ref.grad)
    assert torch.autograd.gradcheck(lambda t: bwlab.transpose(t), (torch.randn(5, 7, device="cuda",
                                                                               dtype=torch.float64,
                                                                               requires_grad=True),))


def test_a_training_step():
    import torch

    torch.manual_seed(0)
    lin = torch.nn.Linear(48, 32, device="cuda")
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    x = torch.randn(16, 32, 48, device="cuda")
    ref = torch.nn.Linear(48, 32, device="cuda")
    ref.load_state_dict(lin.state_dict())
    ropt = torch.optim.SGD(ref.parameters(), lr=0.1)
    for model, o, tr in ((lin, opt, bwlab.transpose), (ref, ropt, lambda t: t.transpose(-1, -2))):
        loss = tr(model(x)).square().mean()
        o.zero_grad()
        loss.backward()
        o.step()
    assert torch.allclose(lin.weight, ref.weight, atol=1e-6) and torch.allclose(lin.bias, ref.bias, atol=1e-6)


def test_out_with_a_gradient_is_refused_not_silently_detached():
    import torch

    x = torch.randn(8, 8, device="cuda", requires_grad=True)
    with pytest.raises(ValueError, match="cannot carry a gradient"):
        bwlab.transpose(x, torch.empty(8, 8, device="cuda"))
    with torch.no_grad():
        out = torch.empty(8, 8, device="cuda")
        assert bwlab.transpose(x, out) is out and torch.equal(out, x.t())


def test_torch_compile_fullgraph_has_no_graph_break():
    import torch

    def f(t):
        return bwlab.transpose(t * 2.0) + 1.0

    x = torch.randn(4, 130, 67, device="cuda")
    compiled = torch.compile(f, fullgraph=True)
    assert torch.equal(compiled(x), f(x))
    assert torch.equal(compiled(x), (x * 2.0).transpose(-1, -2) + 1.0)


def test_torch_cuda_graph_capture():
    import torch

    x = torch.randn(257, 131, device="cuda")
    out = torch.empty(131, 257, device="cuda")
    bwlab.transpose(x, out)  # plan made and module loaded before capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        bwlab.transpose(x, out)
        y = bwlab.transpose(x)
    x.copy_(torch.randn_like(x))
    out.view(torch.uint8).fill_(verify.POISON_BYTE)
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, x.t()) and torch.equal(y, x.t())


def test_cupy_cuda_graph_capture():
    import cupy

    x = cupy.random.default_rng(1).standard_normal((300, 77), dtype=cupy.float32)
    out = cupy.empty((77, 300), cupy.float32)
    bwlab.transpose(x, out)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        bwlab.transpose(x, out)
        graph = s.end_capture()
    x[...] = cupy.random.default_rng(2).standard_normal((300, 77), dtype=cupy.float32)
    verify.poison(out)
    cupy.cuda.Device().synchronize()  # s does not wait for the legacy stream by itself
    graph.launch(s)
    s.synchronize()
    assert bool((out == x.T).all())
