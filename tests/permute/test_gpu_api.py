"""bwlab.permute on the GPU: every permutation of rank 1 to 5 at awkward shapes, random rank 6
to 8 cases, strided views, every kernel family forced, > 2^31 elements, torch autograd and
torch.compile, refusals; bit-exact against numpy.transpose, output poisoned first."""
import itertools

import numpy as np
import pytest

import bwlab
from bwlab.core import verify
from bwlab.workloads.permute import calls

pytestmark = pytest.mark.gpu

DTYPES = ("uint8", "float16", "float32", "float64", "complex128")  # 1, 2, 4, 8, 16 bytes
# Per rank: primes and ones (the element paths), whole 16-byte vectors but not whole tiles (the
# vector paths), and a short axis (packing).
SHAPES = {
    1: [(1,), (7,), (1000,)],
    2: [(1, 9), (13, 7), (48, 80), (1000, 2)],
    3: [(3, 5, 7), (48, 16, 80), (1, 33, 2), (64, 2, 4)],
    4: [(3, 5, 2, 7), (16, 48, 16, 32), (5, 1, 3, 4), (8, 16, 4, 16)],
    5: [(2, 3, 5, 3, 2), (16, 2, 16, 3, 16), (4, 8, 2, 16, 8)],
}


def check(host, perm, x=None, out=None):
    import cupy

    x = cupy.asarray(host) if x is None else x
    want = np.ascontiguousarray(np.transpose(host, perm))
    if out is None:
        out = cupy.empty(want.shape, host.dtype)
    verify.poison(out)
    got = bwlab.permute(x, perm, out=out)
    assert got is out
    c = verify.compare(out.get(), want)
    assert c.ok, f"{host.shape} {host.dtype} {perm}: {bwlab.explain_permute(x, perm)}: {c}"
    fresh = bwlab.permute(x, perm)
    assert verify.compare(fresh.get(), want).ok
    assert verify.compare(x.get(), host).ok, "input modified"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rank", sorted(SHAPES))
def test_every_permutation(rank, dtype):
    import cupy

    for shape in SHAPES[rank]:
        host = verify.random_host(shape, dtype)
        x = cupy.asarray(host)  # uploaded once for all its permutations
        perms = list(itertools.permutations(range(rank)))
        if rank == 5:  # 120 permutations: each dtype takes a fifth, so every one is run
            perms = perms[DTYPES.index(dtype)::len(DTYPES)]
        for perm in perms:
            check(host, perm, x=x)


@pytest.mark.parametrize("seed", range(12))
def test_random_rank_6_to_8(seed):
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(6, 9))
    shape = [int(v) for v in rng.choice([1, 2, 3, 4, 5, 8, 16], rank)]
    for k in range(rank):  # at most 200k elements: trim from the last axis back
        if np.prod(shape) <= 200_000:
            break
        shape[-1 - k] = 1
    shape = tuple(shape)
    perm = tuple(int(v) for v in rng.permutation(rank))
    check(verify.random_host(shape, DTYPES[seed % len(DTYPES)]), perm)


VIEWS = {
    "slice": lambda a: a[:, 1:-1],
    "reversed": lambda a: a[::-1],
    "reversed inner": lambda a: a[..., ::-1],
    "every other": lambda a: a[::2, :, ::2],
    "transposed": lambda a: a.transpose(2, 0, 1),
    "offset by one element": lambda a: a.reshape(-1)[1:1 + a[1:].size].reshape(a[1:].shape),
}


@pytest.mark.parametrize("dtype", ("uint8", "float32", "complex128"))
@pytest.mark.parametrize("view", VIEWS)
def test_strided_views(view, dtype):
    import cupy

    base = cupy.asarray(verify.random_host((20, 16, 36), dtype))
    x = VIEWS[view](base)
    host = x.get()
    for perm in itertools.permutations(range(3)):
        check(host, perm, x=x)


FORCED = [((48, 16, 80), (2, 1, 0)), ((16, 3, 32, 5), (3, 2, 0, 1)), ((64, 16, 16, 16, 16), (4, 3, 2, 1, 0)),
          ((8, 16, 8, 16, 4, 16), (5, 4, 3, 2, 1, 0)), ((32, 32, 32, 32), (3, 1, 2, 0)),
          ((7, 9, 11), (2, 1, 0)), ((2, 2, 2, 2, 2, 2, 3, 16), (7, 6, 5, 4, 3, 2, 1, 0))]


def operands(shape, perm, dtype):
    """A fresh random x on the GPU, a poisoned out for its permutation, and NumPy's result."""
    import cupy

    host = verify.random_host(shape, dtype)
    want = np.ascontiguousarray(np.transpose(host, perm))
    out = cupy.empty(want.shape, host.dtype)
    verify.poison(out)
    return cupy.asarray(host), out, want


@pytest.mark.parametrize("kind", ("gather", "scalar", "tiles"))
@pytest.mark.parametrize("dtype", DTYPES)
def test_each_family_forced(kind, dtype):
    """Every kernel family on layouts it takes (the ladder's rungs), awkward extents included."""
    import cupy

    for shape, perm in FORCED:
        x, out, want = operands(shape, perm, dtype)
        try:
            p = calls.plan(x, perm, out, forced=kind)
        except ValueError:
            assert kind == "tiles"  # extents not whole vectors
            continue
        p.run(x.data.ptr, out.data.ptr, cupy.cuda.get_current_stream().ptr)
        assert verify.compare(out.get(), want).ok, f"{kind} {shape} {perm}"


TILE_CASES = [((64, 16, 16, 16, 16), (4, 3, 2, 1, 0)), ((32, 32, 32, 32), (3, 2, 1, 0)),
              ((16, 48, 16, 32), (3, 1, 2, 0)), ((8, 16, 8, 16, 4, 16), (5, 4, 3, 2, 1, 0)),
              ((96, 5, 320), (2, 1, 0)), ((3, 80, 7, 144), (1, 3, 2, 0))]


@pytest.mark.parametrize("folded", (False, True), ids=("tileBatched", "tileFolded"))
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_vector_tile(dtype, folded, monkeypatch):
    """Each tile configuration the planner may pick, forced as the only candidate, on layouts
    that leave tiles partly full."""
    import cupy

    from bwlab.workloads.permute import plans

    e = np.dtype(dtype).itemsize
    for cfg in plans.vec_tiles(e, folded):
        monkeypatch.setitem(plans.FOLDED_TILES if folded else plans.VEC_TILES, e, (cfg,))
        seen = 0
        for shape, perm in TILE_CASES:
            x, out, want = operands(shape, perm, dtype)
            p = calls.plan(x, perm, out)
            if p.choice.expression != plans.vec_expression(e, cfg, folded):
                continue
            seen += 1
            p.run(x.data.ptr, out.data.ptr, cupy.cuda.get_current_stream().ptr)
            assert verify.compare(out.get(), want).ok, (cfg, shape, perm)
        assert seen, f"no case ran {plans.vec_expression(e, cfg, folded)}"


def test_over_2_31_elements():
    """Tiles, row gathers and the element gather with offsets past 2^31 (uint8, 2 GiB each)."""
    import cupy

    from bwlab.workloads.permute.reference import random_input

    x = random_input((1024, 2049, 1024), "uint8")
    for perm in ((2, 1, 0), (1, 0, 2)):
        out = bwlab.permute(x, perm)
        want = cupy.ascontiguousarray(x.transpose(perm))
        assert bool((out == want).all()), f"{perm}: {bwlab.explain_permute(x, perm)}"
        del out, want
    out = cupy.empty((1024, 2049, 1024), cupy.uint8)
    verify.poison(out)
    p = calls.plan(x, (2, 1, 0), out, forced="gather")
    p.run(x.data.ptr, out.data.ptr, cupy.cuda.get_current_stream().ptr)
    assert bool((out == x.transpose(2, 1, 0)).all())


def test_refusals_leave_out_untouched():
    import cupy

    x = cupy.arange(24, dtype=cupy.float32).reshape(2, 3, 4)
    out = cupy.full((4, 3, 2), 7, cupy.float32)
    for dims, err in [((0, 1), ValueError), ((0, 0, 1), ValueError), ((0, 1, 5), ValueError)]:
        with pytest.raises(err):
            bwlab.permute(x, dims, out=out)
    with pytest.raises(ValueError, match="shape"):
        bwlab.permute(x, (2, 1, 0), out=cupy.empty((4, 2, 3), cupy.float32))
    with pytest.raises(TypeError, match="dtype"):
        bwlab.permute(x, (2, 1, 0), out=cupy.empty((4, 3, 2), cupy.float64))
    with pytest.raises(ValueError, match="overlaps"):
        bwlab.permute(x, (0, 1, 2), out=x)
    with pytest.raises(TypeError):
        bwlab.permute(np.zeros((2, 3)), (1, 0))
    assert bool((out == 7).all())


def test_explain_names_the_kernel():
    import cupy

    assert bwlab.explain_permute(cupy.empty((64, 128, 128, 64), cupy.float32), (0, 2, 1, 3)).startswith("gatherRows<16")
    assert bwlab.explain_permute(cupy.empty((64, 128, 128, 64), cupy.float32), (3, 2, 1, 0)).startswith("tileBatched")
    assert bwlab.explain_permute(cupy.empty((32,) * 5, cupy.float32), (4, 3, 2, 1, 0)).startswith("tileFolded")
    assert bwlab.explain_permute(cupy.empty((8192, 64), cupy.float32), (1, 0)).startswith("tileAny")


def test_torch_autograd_compile_and_streams():
    torch = pytest.importorskip("torch")
    x = torch.randn(6, 5, 4, 3, device="cuda", dtype=torch.float64, requires_grad=True)
    y = bwlab.permute(x, (2, 0, 3, 1))
    assert torch.equal(y, x.permute(2, 0, 3, 1).contiguous()) and y.grad_fn is not None
    g = torch.randn_like(y)
    y.backward(g)
    assert torch.equal(x.grad, g.permute(1, 3, 0, 2).contiguous())
    assert torch.autograd.gradcheck(lambda a: bwlab.permute(a, (1, 0, 3, 2)), (x.detach()[:2, :2].requires_grad_(),))

    @torch.compile(fullgraph=True)
    def f(a):
        return bwlab.permute(a * 2, (3, 2, 1, 0)) + 1

    a = torch.randn(8, 16, 4, 32, device="cuda")
    assert torch.equal(f(a), (a * 2).permute(3, 2, 1, 0).contiguous() + 1)
    b = torch.randn(33, 17, device="cuda", dtype=torch.bfloat16)[:, 1:]  # bfloat16, a strided view
    assert torch.equal(bwlab.permute(b, (1, 0)), b.t().contiguous())
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        r = bwlab.permute(a, (0, 2, 1, 3))
    s.synchronize()
    assert torch.equal(r, a.permute(0, 2, 1, 3).contiguous())
    with pytest.raises(ValueError, match="gradient"):
        bwlab.permute(x, (0, 1, 2, 3), out=torch.empty_like(x))


@pytest.mark.parametrize("shape, perm, dtype", [
    ((37, 29, 16), (1, 0, 2), "float32"),            # rows of 64 bytes, edge tiles on both sides
    ((5, 33, 17, 16), (2, 0, 1, 3), "float32"),      # a batch axis
    ((129, 65, 64), (1, 0, 2), "uint8"),
    ((3, 40, 17, 32), (0, 2, 1, 3), "float16"),
])
def test_tiles_of_whole_rows(shape, perm, dtype):
    import cupy

    host = verify.random_host(shape, dtype)
    assert bwlab.explain_permute(cupy.asarray(host), perm).startswith("tileRows")
    check(host, perm)
