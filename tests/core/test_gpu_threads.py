"""bwlab's calls as the first CUDA work of a new host thread, which has no current CUDA
context until something binds one (torch's autograd thread is such a thread when a bwlab op
runs first in a backward pass)."""
import subprocess
import sys
import textwrap
import threading

import pytest

import bwlab
from bwlab.core import launch

pytestmark = pytest.mark.gpu


def _in_new_thread(fn):
    box = {}

    def body():
        try:
            box["value"] = fn()
        except BaseException as e:  # re-raised in the test's thread
            box["error"] = e

    t = threading.Thread(target=body)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


# name -> (call with out=, torch's result, input shape, dtype); shapes unique to this file, so
# that the first call in a new thread also makes its plan there
CALLS = {
    "transpose": (lambda x, out: bwlab.transpose(x, out=out), lambda x: x.transpose(-1, -2), (3, 41, 23), "float64"),
    "permute": (lambda x, out: bwlab.permute(x, (2, 0, 1), out=out), lambda x: x.permute(2, 0, 1), (5, 43, 19),
                "float64"),
    "softmax": (lambda x, out: bwlab.softmax(x, 0, out=out), lambda x: x.double().softmax(0).float(), (47, 24),
                "float32"),
}
# (the softmax's shape takes a kernel with no workspace: torch allocating one would bind the context
# before bwlab's launch does, and the test would check nothing)


@pytest.mark.parametrize("name", CALLS)
def test_first_cuda_work_of_a_new_thread(name, monkeypatch):
    torch = pytest.importorskip("torch")
    call, ref, shape, dtype = CALLS[name]
    x = torch.randn(shape, device="cuda", dtype=getattr(torch, dtype))
    want = ref(x).contiguous()
    bound, bind = [], launch._bind_context

    def recording_bind():
        bound.append(threading.get_ident())
        bind()

    monkeypatch.setattr(launch, "_bind_context", recording_bind)
    for _ in range(2):  # a new plan, then the cached one, each in a thread of its own
        out = torch.full_like(want, float("nan"))
        bound.clear()  # a finished thread's identity may be reused by the next
        worker = _in_new_thread(lambda: (call(x, out), threading.get_ident())[1])
        assert worker in bound  # the thread had no context: bwlab bound one (else this tests nothing)
        torch.cuda.synchronize()
        if name == "softmax":
            torch.testing.assert_close(out, want, rtol=1e-5, atol=1e-7)  # float32 against float64 rounded
        else:
            assert torch.equal(out, want)


# In a process of its own, so that torch's autograd thread for the GPU is new and the inverse
# permutation of the backward pass is its first CUDA work.
BACKWARD = textwrap.dedent("""
    import threading
    import torch
    import bwlab
    from bwlab.core import launch
    bound, bind = [], launch._bind_context
    launch._bind_context = lambda: (bound.append(threading.get_ident()), bind())
    x = torch.randn(4, 7, 3, device="cuda", dtype=torch.float64, requires_grad=True)
    y = bwlab.permute(x, (1, 2, 0))
    g = torch.randn_like(y)
    y.backward(g)
    assert torch.equal(x.grad, g.permute(2, 0, 1).contiguous()), "wrong gradient"
    assert set(bound) - {threading.get_ident()}, "the autograd thread already had a CUDA context"
    print("ok")
""")


def test_backward_whose_first_cuda_work_is_bwlabs():
    pytest.importorskip("torch")
    res = subprocess.run([sys.executable, "-c", BACKWARD], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-3000:]
