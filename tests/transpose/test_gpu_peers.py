"""Every peer of the transpose, checked bit-exact through the same path the ladder and the
bench use (bfloat16 and bool included, viewed through DLPack)."""
import pytest

from bwlab.core import verify
from bwlab.core.workload import Case
from bwlab.workloads import get

pytestmark = pytest.mark.gpu
W = get("transpose")


@pytest.mark.parametrize("peer", [p for p in W.peers() if p.name != "numpy (CPU)"], ids=lambda p: p.name)
@pytest.mark.parametrize("shape, dtype", [((1, 1), "float32"), ((33, 31), "float64"), ((1025, 777), "float32"),
                                          ((2048, 4096), "bfloat16"), ((3, 129, 130), "bool"),
                                          ((257, 129), "complex128")])
def test_peer_bit_exact(peer, shape, dtype):
    why = peer.unavailable(dtype)
    if why:
        pytest.skip(why)
    case = Case(shape, dtype)
    x = W.make_input(case, 3)
    copies = peer.role in ("copy", "ceiling")
    out = W.new_output(case, x, copies)
    verify.poison(out)
    try:
        run, result = peer.make(x, out, case)
    except NotImplementedError as exc:
        pytest.skip(str(exc))
    run()
    want = W.copy_of(x) if copies else W.reference(case, x)
    check = W.check(result(), want)
    assert check.ok, f"{peer.name} {case.label}: {check}"


def test_cpu_reference_is_numpy():
    case = Case((37, 41), "int16")
    x = W.make_input(case, 1)
    run, result = W.peer("numpy (CPU)").make(x.get(), None, case)
    run()
    assert verify.compare(result(), W.reference(case, x).get()).ok
