"""bwlab's calls as the first CUDA work of a new host thread, which has no current CUDA
context until something binds one (torch's autograd thread is such a thread when a bwlab op
runs first in a backward pass)."""
import threading

import pytest

import bwlab

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
    "softmax": (lambda x, out: bwlab.softmax(x, 0, out=out), lambda x: x.double().softmax(0).float(), (47, 21),
                "float32"),
}


@pytest.mark.parametrize("name", CALLS)
def test_first_cuda_work_of_a_new_thread(name):
    torch = pytest.importorskip("torch")
    call, ref, shape, dtype = CALLS[name]
    x = torch.randn(shape, device="cuda", dtype=getattr(torch, dtype))
    want = ref(x).contiguous()
    for _ in range(2):  # a new plan, then the cached one, each in a thread of its own
        out = torch.full_like(want, float("nan"))
        _in_new_thread(lambda: call(x, out))
        torch.cuda.synchronize()
        if name == "softmax":
            torch.testing.assert_close(out, want, rtol=1e-5, atol=1e-7)  # float32 against float64 rounded
        else:
            assert torch.equal(out, want)


def test_backward_whose_first_cuda_work_is_bwlabs():
    torch = pytest.importorskip("torch")
    x = torch.randn(4, 7, 3, device="cuda", dtype=torch.float64, requires_grad=True)
    y = bwlab.permute(x, (1, 2, 0))
    g = torch.randn_like(y)
    y.backward(g)  # the autograd thread runs bwlab's inverse permutation as its first CUDA work
    assert torch.equal(x.grad, g.permute(2, 0, 1).contiguous())
