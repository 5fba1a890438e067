"""Every softmax kernel and every dispatch path against the float64 reference, on fresh
random data with the output poisoned first, at awkward shapes (lengths of 1, primes,
misaligned rows and strips, rows longer than a cluster, over 2^31 elements)."""
import numpy as np
import pytest
from helpers import SMALL_LONG_ROW_SAMPLING
from helpers import softmax_params as _params

from bwlab.core import verify
from bwlab.core.workload import Case
from bwlab.workloads import get
from bwlab.workloads.softmax import catalog, plans, reference
from bwlab.workloads.softmax.reference import ITEMSIZE

pytestmark = pytest.mark.gpu
W = get("softmax")
DT = reference.DTYPES

# (shape, dim): each reaches a different kernel or template (see the family asserted below)
API_CASES = [
    ((1,), -1), ((7,), 0), ((1, 1), 1), ((3, 5), -1), ((129, 1000), -1), ((5, 2056), -1), ((2, 4096), -1),
    ((3, 70001), -1), ((3, 200000), -1), ((2, 300000), -1), ((2, 4194304 + 8), -1),
    ((3, 40004), -1), ((3, 49160), -1), ((3, 40001), -1), ((2, 262144), -1), ((3, 131072), -1),  # long rows
    ((7, 13), 0), ((3, 7, 24), 1), ((2, 1000, 1032), 1), ((4, 33, 17), 1), ((8, 16, 1024), 1),
    ((2, 60000, 8), 1), ((1, 9000, 64), 1), ((3, 2, 5, 7), 2), ((5, 1, 3), 1), ((2, 3, 4, 5, 6), 0),
    ((4, 3, 8), 1), ((2, 8, 40), 1), ((3, 13, 2056), 1),  # short columns in registers: 4, 8 and 16 rows
    ((300, 8), -1), ((1000, 16), -1), ((517, 32), -1), ((129, 3), -1), ((67, 256), -1),  # short rows: rowWarp's
    # lane groups of 1-8 lanes taking 2 rows each (of 8-16 lanes, one row at 256), the last block's rows partly
    # past the end
    ((3, 2000), -1), ((5, 301), -1),  # rowBlock of one warp, 8 and 16 packs a lane
    ((2, 4000, 72), 1),  # float32 softmax gradients: colsSpread, a cluster of 8, strips partly past M
    ((5, 3000), -1),  # 16-bit softmax: a warp of 16 packs a lane, 375 packs (lanes partly empty)
    # colsChunks: an axis too long for a cluster's strips (16-byte packs, columns partly past the last
    # block's), and strips not in packs with the last chunk of one row
    ((2, 40000, 1032), 1), ((3, 517, 1001), 1), ((2, 257, 41), 1),
    ((70000, 17, 3), 1),  # colsChunks with more slices than a grid's y (its kernels loop over them)
]


def check_case(case: Case, seed=1, x=None):
    x = W.make_input(case, seed) if x is None else x
    exp = W.reference(case, x)
    out = W.new_output(case, x)
    verify.poison(out)
    fn, result = W.peer("bwlab").make(x, out, case)
    fn()
    c = W.check(result(), exp)
    assert c.ok, f"{case.label}: {c} via {W.explain(x, case)}"
    return exp


@pytest.mark.parametrize("shape, dim", API_CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("kind", ["forward", "log", "backward", "logbackward"])
def test_api_against_float64(shape, dim, dtype, kind):
    check_case(Case(shape, dtype, _params(kind, dim)))


# Inputs spread over about 300 (normal, sigma 40), so that many fall 87 to 92 below their row's max:
# their probabilities, 2^-133 to 2^-126, are bfloat16 (and float32) values below the smallest normal
# float32, where an exp that flushes to zero gave 0.
WIDE_SCALE = 40.0


@pytest.mark.parametrize("shape, dim", API_CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("kind", ["forward", "log"])
def test_tiny_probabilities_are_not_flushed(shape, dim, dtype, kind):
    """Inputs of sigma 40, softmax and log-softmax (whose outputs then lie hundreds below 0)."""
    case = Case(shape, dtype, _params(kind, dim))
    exp = check_case(case, x=reference.random_input(shape, dtype, 11, scale=WIDE_SCALE))
    # the test can fail: such values are there
    if kind == "forward" and dtype == "bfloat16" and exp.ref.size >= 100_000:
        assert np.count_nonzero((exp.ref > 2.0 ** -133) & (exp.ref < 2.0 ** -126)) > 10


@pytest.mark.parametrize("spec", catalog.KERNELS, ids=lambda s: s.name)
def test_ladder_rung_keeps_tiny_probabilities(spec):
    last = spec.axis == "last"
    case = Case((64, 4096), "bfloat16") if last else Case((4, 2000, 1024), "bfloat16", (("dim", 1),))
    x = reference.random_input(case.shape, "bfloat16", 13, scale=WIDE_SCALE)
    out = W.new_output(case, x)
    verify.poison(out)
    W.prepare(spec, x, out, case).launch()
    exp = W.reference(case, x)
    assert np.count_nonzero((exp.ref > 2.0 ** -133) & (exp.ref < 2.0 ** -126)) > 10
    c = W.check(out, exp)
    assert c.ok, f"{spec.name} {case.label}: {c}"


def test_dispatch_reaches_every_family():
    seen = set()
    for shape, dim in API_CASES:
        case = Case(shape, "float32", (("dim", dim),))
        p = W_problem(case)
        seen.add(plans.choose(p).kernel)
    for shape, dim in API_CASES:  # the backward passes take rowRelay, rowSplit and colsCluster's 16
        seen.add(plans.choose(W_problem(Case(shape, "float32", (("dim", dim), ("op", "backward"))))).kernel)
    # teams want many rows (an H200's worth of them: test_row_team_takes_many_rows runs one)
    seen.add(plans.choose(plans.Problem(1024, 131072, 1, "float32"), held=396).kernel)
    seen.add(plans.choose(plans.Problem(16, 8192, 1024, "float32", "backward"), held=264).kernel)  # and strips
    assert {"rowWarp", "rowBlock", "rowCluster", "rowStream", "rowTeam", "rowRelay", "rowSplit", "colsRegs",
            "colsCluster", "colsChunks", "colsSpread", "colsTeam"} <= seen


def W_problem(case):
    from bwlab.workloads.softmax.workload import problem

    return problem(case)


@pytest.mark.parametrize("spec", catalog.KERNELS, ids=lambda s: s.name)
@pytest.mark.parametrize("dtype", DT)
def test_ladder_rung(spec, dtype):
    """Each rung at its precheck cases, then at a mid-size case of its axis."""
    from bwlab.lab.ladder import precheck

    last = spec.axis == "last"
    base = Case((64, 4096), dtype, (("dim", -1),)) if last else Case((4, 2000, 1024), dtype, (("dim", 1),))
    cases = [base] + ([Case((4, 200, 1024), dtype, (("dim", 1),))] if spec.axis == "any" else [])
    for case in cases:
        check = precheck(W, spec, case, spec.block, seed=3)
        assert check is not None and check.ok, f"{spec.name} {dtype}: {check}"
        x = W.make_input(case, 5)
        out = W.new_output(case, x)
        verify.poison(out)
        W.prepare(spec, x, out, case).launch()
        c = W.check(out, W.reference(case, x))
        assert c.ok, f"{spec.name} {case.label}: {c}"


@pytest.mark.parametrize("spec", [k for k in catalog.KERNELS if k.blocks], ids=lambda s: s.name)
def test_every_compiled_block(spec):
    case = Case((3, 300, 1032), "float32", (("dim", 1),)) if spec.axis != "last" else Case((9, 1000), "float32")
    for block in spec.blocks:
        x = W.make_input(case, 2)
        out = W.new_output(case, x)
        verify.poison(out)
        W.prepare(spec, x, out, case, block).launch()
        assert W.check(out, W.reference(case, x)).ok, f"{spec.name} block {block}"


# rowWarp, rowBlock, colsChunks, colsCluster, rowRelay (rows of 8 MiB) and rowSplit (rows of 2 GiB) past 2^31
# elements
@pytest.mark.parametrize("shape, dim", [((2**26 + 3, 32), -1), ((65537, 32768), -1), ((16, 32768, 4104), 1),
                                        ((64, 8192, 4104), 1), ((513, 4194304), -1), ((2, 2**30 + 64), -1)],
                         ids=str)
def test_over_2_31_elements(shape, dim):
    assert int(np.prod(shape)) > 2**31
    if dim == 1:
        want = "colsChunks" if shape[1] == 32768 else "colsCluster"
        assert plans.choose(W_problem(Case(shape, "bfloat16", (("dim", dim),)))).kernel == want
    check_case(Case(shape, "bfloat16", (("dim", dim),)))


@pytest.mark.parametrize("shape, dim", [((3, 70001), -1), ((2, 5003, 7), 1)], ids=str)
@pytest.mark.parametrize("kind", ["forward", "log", "backward", "logbackward"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_long_row_reference_matches_the_whole_rows(shape, dim, kind, dtype, monkeypatch):
    """The reference for long rows (statistics in chunks, sampled positions) gives the whole-row
    reference's values at its positions, and catches one wrong element there."""
    case = Case(shape, dtype, _params(kind, dim))
    x = W.make_input(case, 4)
    full = W.reference(case, x)
    for name, value in SMALL_LONG_ROW_SAMPLING.items():
        monkeypatch.setattr(reference, name, value)
    long = W.reference(case, x)
    pos = long.l_idx.get()
    assert long.ref.shape == (full.ref.shape[0], len(pos)) and len(pos) < shape[dim]
    np.testing.assert_allclose(long.ref, full.ref[:, pos], rtol=1e-12, atol=1e-300)
    if long.scale is not None:
        np.testing.assert_array_equal(long.scale, full.scale[:, pos])
    out = W.new_output(case, x)
    verify.poison(out)
    fn, result = W.peer("bwlab").make(x, out, case)
    fn()
    assert W.check(result(), long).ok
    N, L, M = long.dims  # one element at a checked position, wrong: caught
    at = (int(long.n_idx[1].get()), int(pos[len(pos) // 2]), int(long.m_idx[1].get()))
    view = out.reshape(N, L, M)
    view[at] = 0x4780 if out.dtype.itemsize == 2 else 65536.0  # 65536: far outside every tolerance, finite
    assert not W.check(result(), long).ok


def test_gradients_on_teams_over_2_31_elements():
    """colsTeam's 64-bit offsets: a bfloat16 gradient of 2^31 + elements down an axis of 8192."""
    from bwlab.workloads.softmax import calls

    case = Case((64, 8192, 4160), "bfloat16", (("dim", 1), ("op", "backward")))  # whole 128-byte strips
    assert int(np.prod(case.shape)) > 2**31
    assert calls.plan_for(W_problem(case), 0).choice.kernel == "colsTeam"
    check_case(case)


def test_clusters_of_16_fit_this_gpu():
    """The long strided axes' clusters of 16 blocks run here (else the dispatch falls back)."""
    from bwlab.workloads.softmax.launch import clusters_fit

    for op in ("forward", "backward"):
        c = plans.choose(plans.Problem(1, 8192, 8192, "float32", op), teams=False)  # gradients: teams where they can
        assert c.cluster == 16 and clusters_fit(c, 0)


# colsCluster's rows landing in groups, each folded as it arrives (the long strided axes take 4),
# forced at every group count and on clusters of 16 and 4: shares that end part-way through a
# group, strips past the last column, blocks with no rows (16 x 1 > 16 rows at L = 16)
@pytest.mark.parametrize("shape", [(3, 1000, 1000), (2, 777, 520), (5, 4099, 36), (1, 16, 4096), (2, 9, 64)],
                         ids=str)
@pytest.mark.parametrize("stages", [1, 2, 4, 8])
@pytest.mark.parametrize("kind", ["forward", "log", "backward"])
def test_cols_cluster_folds_groups_as_they_land(shape, stages, kind, monkeypatch):
    params = _params(kind)
    tried = 0
    for dtype in ("float32", "bfloat16"):
        case = Case(shape, dtype, params)
        p = W_problem(case)
        for threads, C in ((128, 16), (256, 16), (256, 4)):
            c = plans.cols_cluster(p, threads, plans.SMEM_MAX, (C,), stages=stages)
            if c is None:
                continue
            assert c.expression.split(",")[4] == str(stages)
            _force(monkeypatch, p, c)
            check_case(case, seed=stages)
            tried += 1
    assert tried >= 3  # float32 on three geometries at least (16-bit strips of 36 are not in packs)


# colsCluster over more slices than a grid's y (65535), as the dispatch plans them: blocks take slices n,
# n + 65535, ..., reusing their shared memory, whose finished states lie over the warps' partials;
# strips of 128 bytes (bfloat16 softmax: stored terms), 64 and 32
@pytest.mark.parametrize("shape", [(65600, 33, 64), (70000, 17, 8)], ids=str)
@pytest.mark.parametrize("kind", ["forward", "log", "backward"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_cols_cluster_more_slices_than_grid_y(shape, kind, dtype):
    case = Case(shape, dtype, _params(kind))
    c = plans.choose(W_problem(case))
    assert c.kernel == "colsCluster" and c.grid[1] == plans.GRID_Y < shape[0]
    check_case(case, seed=7)


# rowStream forced at every group count, with 1 to 3 clusters for 7 rows (the dispatch gives each
# cluster 2 rows): clusters taking 3 to 7 rows, the row-parity state buffer reused, rows split
# unevenly between clusters, segments ending part-way through a thread's packs
@pytest.mark.parametrize("stages", [1, 2, 4, 8])
@pytest.mark.parametrize("clusters", [1, 2, 3])
@pytest.mark.parametrize("log", [False, True])
def test_row_stream_forced(stages, clusters, log, monkeypatch):
    params = (("dim", -1),) + ((("log", True),) if log else ())
    for dtype, L in (("float32", 40004), ("bfloat16", 40008)):  # 10001 and 5001 packs
        case = Case((7, L), dtype, params)
        p = W_problem(case)
        c = plans.row_stream(p, S=stages, G=clusters)
        assert c is not None and c.extra == (clusters,) and c.grid[0] == clusters * c.cluster
        _force(monkeypatch, p, c)
        check_case(case, seed=4 * stages + clusters)


# rowTeam (rowStream's kernel meeting through global memory) forced at several geometries, 7 rows:
# teams of 3 (the fewest for 10001 packs) to 9 blocks, 1 to 3 teams taking 3 to 7 rows each (every
# row's count and states its own), segments ending part-way through a thread's packs; rows of 5
# packs on teams of 4, whose last block holds none of them
def _counted(plan):
    """plan with its launches counted (the list it returns grows by one a launch): that the
    plan ran, not only that it was cached."""
    from bwlab.workloads.softmax import calls

    ran = []

    def run(*args):
        plan.run(*args)
        ran.append(1)  # after the launch: a refused one raises before counting
    return calls.Plan(plan.choice, run), ran


def _force(monkeypatch, p, plan):
    """The API runs `plan` (a Plan, or a Choice to build one from) for problem p during this test;
    returns the list its launches grow (_counted)."""
    from bwlab.workloads.softmax import calls
    from bwlab.workloads.softmax.launch import runner

    if isinstance(plan, plans.Choice):
        plan = calls.Plan(plan, runner(plan, p.N, p.L, p.M, 0))
    plan, ran = _counted(plan)
    monkeypatch.setitem(calls._plans, (p, 0), plan)
    return ran


@pytest.mark.parametrize("blocks", [3, 4, 7, 9])
@pytest.mark.parametrize("teams", [1, 2, 3])
@pytest.mark.parametrize("log", [False, True])
def test_row_team_forced(blocks, teams, log, monkeypatch):
    params = (("dim", -1),) + ((("log", True),) if log else ())
    rows = [("float32", 40004), ("bfloat16", 80008)] + ([("float32", 20), ("bfloat16", 40)] if blocks == 4 else [])
    for dtype, L in rows:  # 10001 packs (or 5)
        case = Case((7, L), dtype, params)
        p = W_problem(case)
        c = plans.row_team(p, T=blocks, G=teams, S=4 if blocks != 4 else 2)
        assert c is not None and c.grid[0] == blocks * teams and c.cooperative
        ran = _force(monkeypatch, p, c)
        check_case(case, seed=10 * blocks + teams)
        assert ran  # it ran, not the dispatch's kernel


def _one_far_above(shape, dim, dtype, seed, value=85, x=None):
    """Normal values (sigma 1; or x) with one element of `value` (85, 95 or 98.5) in each row (dim -1) or
    column (dim 1 of a 3-D shape): with 85, the other groups' maxima lie about 82 below their row's, so
    their outputs (about 2^-127 to 2^-118, bfloat16 and float32 values) take stored terms' small factors."""
    import cupy

    x = reference.random_input(shape, dtype, seed, scale=1.0) if x is None else x
    big = {"float32": np.float32(value), "float16": np.float16(value),
           "bfloat16": np.uint16({85: 0x42AA, 95: 0x42BE, 98.5: 0x42C5}[value])}[dtype]
    if dim == -1:
        n = cupy.arange(shape[0])
        x[n, (n * 7919 + 3) % shape[1]] = big
    else:
        n, m = cupy.meshgrid(cupy.arange(shape[0]), cupy.arange(shape[2]), indexing="ij")
        x[n, (n * 31 + m * 7919 + 3) % shape[1], m] = big
    return x


def _storing_kernels(dtype):
    """(label, case, choice) of every kernel that may store softmax's terms, forced to, at geometries
    with several groups of rows (each group stored against its own maxima)."""
    rows = Case((7, 40004 if dtype == "float32" else 80008), dtype, _params("forward", -1))
    cols = Case((3, 1000, 1000), dtype, _params("forward", 1))
    pr, pc = W_problem(rows), W_problem(cols)
    out = [("rowStream", rows, plans.row_stream(pr, S=4, G=2, terms=True)),
           ("rowTeam", rows, plans.row_team(pr, T=3, G=2, terms=True)),
           ("colsTeam", cols, plans.cols_team(pc, G=2, S=2, terms=True))]
    for threads, C, stages in ((256, 16, 1), (128, 16, 4), (256, 4, 1), (256, 4, 2)):
        out.append((f"colsCluster C{C} S{stages}", cols,
                    plans.cols_cluster(pc, threads, plans.SMEM_MAX, (C,), stages=stages, terms=True)))
    return out


@pytest.mark.parametrize("dtype", DT)
def test_stored_terms_small_factors(dtype, monkeypatch):
    """Every kernel storing softmax's terms over x (the fold's 2^B exp(x - m), an output one multiply),
    on inputs whose outputs need the factors below 2^-125 (scaled<true>) and on sigma-40 inputs."""
    for label, case, c in _storing_kernels(dtype):
        assert c is not None and c.expression.endswith(",true >"), label
        p = W_problem(case)
        _force(monkeypatch, p, c)
        exp = check_case(case, x=_one_far_above(case.shape, case.params[0][1], dtype, 21))
        if dtype != "float16":  # the test can fail: such outputs are there (float16's underflow to 0)
            assert np.count_nonzero((exp.ref > 2.0 ** -127) & (exp.ref < 2.0 ** -110)) > 1000, label
        check_case(case, x=reference.random_input(case.shape, dtype, 22, scale=WIDE_SCALE))


# (shape, dim) of log-softmax with one element of 85 or 95 a slice: rowWarp (16-bit), rowBlock, rowSplit
# (bfloat16), rowStream, rowRelay, rowCluster (rows not in packs), colsRegs, colsCluster, colsChunks; rowTeam and
# colsTeam forced below
FAR_MAX_CASES = [((129, 1000), -1), ((5, 3000), -1), ((3, 40004), -1), ((3, 131072), -1), ((2, 300000), -1),
                 ((3, 20001), -1), ((8, 16, 1024), 1), ((3, 4000, 72), 1), ((2, 40000, 1032), 1)]


@pytest.mark.parametrize("value", [85, 95])
@pytest.mark.parametrize("dtype", DT)
def test_log_softmax_at_a_far_max(dtype, value, monkeypatch):
    """Log-softmax at a slice's max is -log(1 + t), t the sum of the other terms: about -t. With one
    element of 85 among N(0, 1) values, t is about 1e-32: -t is a bfloat16 value, which a log of 1 + t
    rounded to float32 (or float64) gives as 0. With 95, t is about 1e-40 to 3e-36, its terms below
    2^-126, where ex2 flushes to zero (bfloat16 sums them 2^64 larger). Within one unit in the last
    place on every kernel family."""
    cases = [(Case(shape, dtype, _params("log", dim)), None) for shape, dim in FAR_MAX_CASES]
    rows, cols = Case((7, 80008), dtype, _params("log", -1)), Case((3, 1000, 1000), dtype, _params("log", 1))
    cases += [(rows, plans.row_team(W_problem(rows), T=3, G=2)), (cols, plans.cols_team(W_problem(cols), G=2, S=2))]
    for case, forced in cases:
        ran = _force(monkeypatch, W_problem(case), forced) if forced is not None else [True]
        dim = case.params[0][1]
        exp = check_case(case, x=_one_far_above(case.shape, dim, dtype, 23, value))
        if dtype == "bfloat16":  # the test can fail: each slice's max has such an output
            # (95: every term below 2^-126)
            tiny = (exp.ref < 0) & (exp.ref > (-1e-20 if value == 85 else -1e-30))
            assert np.count_nonzero(tiny) >= exp.ref.shape[0], case.label
        assert ran, case.label  # the forced kernel ran, not the dispatch's


def test_log_softmax_at_a_max_above_many_flushed_terms(monkeypatch):
    """bfloat16 log-softmax of zeros with one 98.5 a slice: each other term, e^-98.5 (2^-142.1), lies
    below what a sum kept 2^16 larger would hold (2^-142), yet together they make t, a bfloat16 value
    (2^-132.1 at 1000 elements, two units of 2^-133; 2^-123.9 at 300000), which the output at the max
    keeps within a unit in the last place; with those terms flushed it would be 0, two units or more
    off. Every kernel family of the far-max test whose slices hold 1000 elements or more."""
    import cupy

    cases = [(Case(shape, "bfloat16", _params("log", dim)), None) for shape, dim in FAR_MAX_CASES
             if shape[dim] >= 1000]
    rows, cols = Case((7, 80008), "bfloat16", _params("log", -1)), Case((3, 1000, 1000), "bfloat16", _params("log", 1))
    cases += [(rows, plans.row_team(W_problem(rows), T=3, G=2)), (cols, plans.cols_team(W_problem(cols), G=2, S=2))]
    for case, forced in cases:
        ran = _force(monkeypatch, W_problem(case), forced) if forced is not None else [True]
        dim = case.params[0][1]
        x = _one_far_above(case.shape, dim, "bfloat16", 0, 98.5, x=cupy.zeros(case.shape, dtype=cupy.uint16))
        exp = check_case(case, x=x)
        slices = exp.ref.size // case.shape[dim]
        # the input is as intended: each slice's max has such an output (check_case held the kernel's to it)
        assert np.count_nonzero((exp.ref < -2.0 ** -132.5) & (exp.ref > -2.0 ** -120)) == slices, case.label
        assert ran, case.label  # the forced kernel ran, not the dispatch's


@pytest.mark.parametrize("slack", [None, 0, 1 << 20, 64 << 20])
@pytest.mark.parametrize("kind", ["forward", "log", "backward"])
def test_row_relay_forced(slack, kind, monkeypatch):
    """rowRelay's finishing tasks a row and `slack` bytes (None: the dispatch's) after their partial tasks,
    none so that a row's first ones wait on its partial tasks still running: rows of 1, 2, 4 and
    41 chunks, the last chunk of each partial; a lead of fewer rows than the call has, or of all of them;
    and 3000 rows, a grid of several times the blocks a GPU holds at once, so that tickets are handed
    out as blocks finish."""
    for dtype, L, N in (("float32", 8196, 5), ("bfloat16", 8200, 3), ("float32", 335844, 9), ("bfloat16", 49160, 2),
                        ("float32", 8196, 3000)):
        case = Case((N, L), dtype, _params(kind, -1))
        p = W_problem(case)
        c = plans.row_relay(p, slack=slack)
        assert c is not None and c.kernel == "rowRelay"
        ran = _force(monkeypatch, p, c)
        check_case(case, seed=N)
        assert ran


def test_row_team_full_grid_on_a_reused_workspace(monkeypatch):
    """As many teams as the GPU holds, each taking several rows, three calls in a row on fresh
    inputs: each call's workspace comes back from the pool with the last call's counts and
    states in it, so a count not cleared before the launch would let blocks merge stale states."""
    from bwlab.workloads.softmax.launch import team_blocks

    case = Case((600, 40004), "float32", (("dim", -1),))
    p = W_problem(case)
    c = plans.row_team(p, held=team_blocks(p, 0))
    assert c.extra[0] * 2 < p.N  # teams take several rows each
    ran = _force(monkeypatch, p, c)
    for seed in (7, 8, 9):
        check_case(case, seed=seed)
    assert len(ran) == 3


def _team_rows(L, dtype="float32"):
    """A row length's case with just enough rows for the dispatch to take teams here."""
    from bwlab.workloads.softmax.launch import team_blocks

    p = W_problem(Case((1, L), dtype, (("dim", -1),)))
    T = plans.row_team(p).chunks
    return Case((plans.TEAM_ROWS * (team_blocks(p, 0) // T) + 3, L), dtype, (("dim", -1),))


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype, L", [("float32", 81924), ("bfloat16", 163848), ("float32", 40004),
                                      ("bfloat16", 80008)])
def test_row_team_takes_many_rows(log, dtype, L, monkeypatch):
    """The dispatch's teams (rows of 6 and of 3 blocks, the last block's segment shorter), through the API."""
    from bwlab.workloads.softmax import calls

    case = _team_rows(L, dtype)
    case = Case(case.shape, dtype, case.params + ((("log", True),) if log else ()))
    p = W_problem(case)
    plan = calls.plan_for(p, 0)
    assert plan.choice.kernel == "rowTeam"
    ran = _force(monkeypatch, p, plan)
    check_case(case, seed=11)
    assert ran


@pytest.mark.parametrize("split", [(64, 8, 32), (1024, 8, 32), (96, 16, 16)], ids=str)
@pytest.mark.parametrize("shape", [(2, 1000, 1032), (3, 517, 1001), (2, 257, 41), (70000, 17, 3), (1, 3000, 64)],
                         ids=str)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_cols_chunks_first_launch_in_its_own_geometry(split, shape, dtype, monkeypatch):
    """colsChunks' first launch in chunks and blocks of its own (evict-first loads), the write in the
    dispatch's: chunks partly past the axis, strips partly past M, packs of 1 (1001, 41, 3 columns),
    more slices than a grid's y, every pass. Each call's output poisoned, against float64."""
    for kind in ("forward", "log", "backward", "logbackward"):
        case = Case(shape, dtype, _params(kind, 1))
        p = W_problem(case)
        c = plans.cols_chunks(p, split=split)
        assert c.expression.endswith(",true >") and c.extra == (split[0], plans.chunk_rows(p)), c
        ran = _force(monkeypatch, p, c)
        check_case(case, seed=split[0] + shape[1])
        assert ran  # through the forced plan


@pytest.mark.parametrize("kind", ["log", "backward"])
def test_cols_chunks_dependent_launches_in_order_and_in_graphs(kind, monkeypatch):
    """colsChunks' merge and write are programmatic dependent launches (sm_90): their blocks start as the
    launch before drains and wait for it on the GPU. Calls back to back, the second reading what the
    first wrote, and a call captured in a graph and replayed twice, against the reference; the same
    kernels launched plainly give the same bits."""
    import cupy

    import bwlab
    from bwlab.workloads.softmax.launch import dependent_launches, runner

    case = Case((2, 40000, 1032), "float32", _params(kind, 1))
    p = W_problem(case)
    c = plans.cols_chunks(p)
    ran = _force(monkeypatch, p, c)
    if not dependent_launches(0):
        pytest.skip("programmatic dependent launches need compute capability 9.0")
    x = W.make_input(case, 31)
    y, g = x if isinstance(x, tuple) else (x, None)

    def call(a, out):  # the API, which runs the forced plan
        if g is None:
            bwlab.softmax(a, 1, log=True, out=out)
        else:
            bwlab.softmax_backward(y, a, 1, out=out)

    first, second, plain, graphed = (cupy.empty_like(y) for _ in range(4))
    for a in (first, second, plain, graphed):
        verify.poison(a)
    call(g if g is not None else y, first)
    call(first, second)  # reads the write launch's output (backward: as its incoming gradient)
    assert W.check(first, W.reference(case, x)).ok
    assert W.check(second, W.reference(case, first if g is None else (y, first))).ok
    ws = cupy.empty(c.workspace_bytes, dtype=cupy.uint8)
    runner(c, *case.shape, 0, dependent=False)(y.data.ptr, 0 if g is None else g.data.ptr, plain.data.ptr,
                                                ws.data.ptr, cupy.cuda.get_current_stream().ptr)
    assert cupy.array_equal(plain.view(cupy.uint32), first.view(cupy.uint32))
    cupy.cuda.Device().synchronize()
    st = cupy.cuda.Stream(non_blocking=True)
    with st:
        st.begin_capture()
        call(g if g is not None else y, graphed)
        graph = st.end_capture()
    for _ in range(2):
        graph.launch(st)
    st.synchronize()
    assert cupy.array_equal(graphed.view(cupy.uint32), first.view(cupy.uint32)) and len(ran) == 3


def test_row_team_stays_out_of_graphs_and_gives_way_when_refused(monkeypatch):
    """A stream being captured gets the kernel without teams (the graph replays correctly); a
    cooperative launch the GPU refuses (more blocks than it holds) falls back to it for good."""
    import cupy

    import bwlab
    from bwlab.workloads.softmax import calls

    case = _team_rows(131072)
    p = W_problem(case)
    plan = calls.plan_for(p, 0)
    assert plan.choice.kernel == "rowTeam"
    ran = _force(monkeypatch, p, plan)
    x = W.make_input(case, 4)
    out = W.new_output(case, x)
    verify.poison(out)
    cupy.cuda.Device().synchronize()  # the inputs and the poison, made on another stream, are ready
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        bwlab.softmax(x, -1, out=out)
        g = s.end_capture()
    g.launch(s)
    s.synchronize()
    assert W.check(out, W.reference(case, x)).ok
    assert not ran and calls._plans[(p, 0, "no teams")].choice.kernel == "rowStream"

    case = Case((600, 40004), "float32", (("dim", -1),))
    p = W_problem(case)
    big = plans.row_team(p, T=3, G=600)  # 1800 blocks
    _force(monkeypatch, p, big)
    check_case(case, seed=6)
    assert calls._plans[(p, 0)].choice.kernel == "rowStream"


# colsTeam (colsCluster's strips on a team meeting through global memory) forced at several
# geometries, every pass and dtype: the fewest blocks that hold the axis and 2 or 5 more (short axes:
# blocks with no rows), 1 to 3 teams each taking many strips in turn (the states' parity and the
# counts' targets), strips partly past M, a slice of two strips; on blocks of 128, 64- and 256-byte strips,
# and on 30 blocks (more than 3 F + 1 for F threads a column: the merge's loop of four loads in flight),
# and on 70 and 90 (16-bit gradients then load 16 states at once, then one at a time on 70, and four
# then one on 90); log-softmax gradients lean too (the gradient alone on chip), at 2 and 3 blocks an SM
@pytest.mark.parametrize("shape", [(3, 1000, 1000), (2, 4099, 36), (1, 16, 4096), (2, 9, 64), (7, 13, 8)], ids=str)
@pytest.mark.parametrize("kind", ["forward", "log", "backward", "logbackward"])
def test_cols_team_forced(shape, kind, monkeypatch):
    params = _params(kind)
    tried = 0
    for dtype in DT:
        case = Case(shape, dtype, params)
        p = W_problem(case)
        if plans.cols_team(p) is None:  # 16-bit strips of 36 columns: not in 16-byte packs
            assert ITEMSIZE[dtype] == 2 and shape[2] % 8
            continue
        fewest = plans.cols_team(p).chunks
        geometries = [dict(T=fewest + more, G=teams) for more, teams in ((0, 1), (2, 2), (5, 3))]
        if shape == (3, 1000, 1000):  # 30 blocks: the team's states merged four loads at a time
            geometries += [dict(threads=128, G=2), dict(W=64, G=3), dict(W=256, G=2), dict(T=30, G=2),
                           dict(T=70, G=2), dict(T=90, G=1)]
        if shape == (1, 16, 4096):  # 256-byte strips, the slice a whole number of them
            geometries += [dict(W=256, G=3)]
        if kind == "logbackward":  # the gradient alone on chip, y read at the write
            geometries += [dict(lean=True, G=1), dict(lean=True, T=fewest + 2, G=2), dict(lean=True, W=256, G=3),
                           dict(lean=True, budget=64 * 1024, minb=3, G=2)]
            if shape == (3, 1000, 1000):  # 16-bit: 16 states loaded at once
                geometries += [dict(lean=True, T=70, G=1)]
        for g in geometries:
            c = plans.cols_team(p, **{"lean": False, **g})
            assert c is not None and c.grid[0] == c.chunks * c.extra[0] and c.cooperative
            wide = p.op == "backward" and ITEMSIZE[dtype] == 2 and c.chunks > plans.TEAM_WIDE_GATHER
            assert (",false,16" in c.expression) == wide
            assert c.expression.endswith((",false,4,true >", ",false,16,true >")) == g.get("lean", False)
            ran = _force(monkeypatch, p, c)
            check_case(case, seed=c.chunks + 10 * c.extra[0])
            assert ran
            tried += 1
    assert tried >= 3  # float32 at every geometry at least


def _team_strips(L, log=False, dtype="float32"):
    """A gradient's case down an axis of L with just enough 128-byte strips (slices [L, 128 bytes])
    for the dispatch to take teams here."""
    from bwlab.workloads.softmax.launch import team_blocks

    params = (("dim", 1), ("op", "backward")) + ((("log", True),) if log else ())
    M = 128 // ITEMSIZE[dtype]
    p = W_problem(Case((1, L, M), dtype, params))
    G = team_blocks(p, 0) // plans.cols_team(p).chunks
    return Case((plans.TEAM_STRIPS * G + 5, L, M), dtype, params)


def _dispatched_team(monkeypatch, case, seeds, ends=""):
    """The dispatch's colsTeam for `case` (its expression ending with `ends`), through the API, once a
    seed in a row on a reused workspace with fresh inputs, each checked; returns its Choice."""
    from bwlab.workloads.softmax import calls

    p = W_problem(case)
    plan = calls.plan_for(p, 0)
    choice = plan.choice
    assert choice.kernel == "colsTeam" and choice.expression.endswith(ends), choice.expression
    ran = _force(monkeypatch, p, plan)
    for seed in seeds:
        check_case(case, seed=seed)
    assert len(ran) == len(seeds)
    return choice


@pytest.mark.parametrize("log", [False, True])
def test_cols_team_takes_long_gradients(log, monkeypatch):
    """The dispatch's teams (as many as the GPU holds, the last block's share shorter), through the
    API, three calls in a row on a reused workspace with fresh inputs."""
    _dispatched_team(monkeypatch, _team_strips(4099, log), (12, 13, 14))


@pytest.mark.parametrize("dtype, L", [("float32", 16385), ("bfloat16", 8193)])
def test_cols_team_takes_lean_log_gradients(dtype, L, monkeypatch):
    """log-softmax gradients holding the gradient alone on chip (float32 down 16385 rows, 16-bit down
    8193): the dispatch's teams through the API, two calls in a row on fresh inputs."""
    _dispatched_team(monkeypatch, _team_strips(L, log=True, dtype=dtype), (19, 20), ends=",false,4,true >")


def test_cols_team_takes_lean_float32_log_gradients_on_wide_strips_down_8193_rows(monkeypatch):
    """float32 log-softmax gradients whose slices are whole 256-byte strips hold the gradient alone from
    8193 rows, on such strips: the dispatch's teams through the API, two calls in a row on fresh inputs."""
    choice = _dispatched_team(monkeypatch, Case((2, 8193, 4096), "float32", _params("logbackward")), (21, 22),
                              ends=",false,4,true >")
    assert choice.expression.startswith("colsTeam<float,256,")


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("log", [False, True])
def test_cols_team_takes_long_forward_axes(dtype, log, monkeypatch):
    """Softmax and log-softmax down 16385 rows (past what a cluster holds at two blocks an SM) take the
    dispatch's teams of 64 KiB blocks, three an SM, the last block's share one row: two calls in a row
    on fresh inputs through the API."""
    from bwlab.workloads.softmax.launch import team_blocks

    M = 128 // ITEMSIZE[dtype]  # one 128-byte strip a slice
    params = _params("log" if log else "forward")
    one = W_problem(Case((1, 16385, M), dtype, params))
    G = team_blocks(one, 0) // plans.cols_team(one).chunks
    case = Case((plans.TEAM_STRIPS * G + 3, 16385, M), dtype, params)
    terms = ",true" if plans.stored_terms(W_problem(case)) else ""
    _dispatched_team(monkeypatch, case, (15, 16), ends=f",{plans.TEAM_FORWARD_BLOCKS}{terms} >")


@pytest.mark.parametrize("kind", ["forward", "log", "backward", "logbackward"])
def test_cols_team_takes_wide_strips_where_rows_lie_far_apart(kind, monkeypatch):
    """float32 rows 16 KiB apart down 4099 rows take the dispatch's teams on 256-byte strips (the last
    block's share shorter): two calls in a row on fresh inputs through the API."""
    choice = _dispatched_team(monkeypatch, Case((2, 4099, 4096), "float32", _params(kind)), (17, 18))
    assert choice.expression.startswith("colsTeam<float,256,")


@pytest.mark.parametrize("dtype, L", [("float32", 2049), ("bfloat16", 4097)])
@pytest.mark.parametrize("log", [False, True])
def test_cols_team_takes_gradients_down_short_axes_where_rows_lie_far_apart(dtype, L, log, monkeypatch):
    """Gradients whose strided rows lie far apart (float32 16 KiB, 16-bit 8 KiB) take the dispatch's teams
    from 2048 rows (float32, on 256-byte strips) and from 4096 (16-bit), the last block's share shorter: two
    calls in a row on fresh inputs through the API."""
    case = Case((4, L, 4096), dtype, _params("logbackward" if log else "backward"))
    choice = _dispatched_team(monkeypatch, case, (23, 24))
    assert dtype != "float32" or choice.expression.startswith("colsTeam<float,256,")


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_cols_team_takes_16_bit_softmax_down_8193_rows(dtype, monkeypatch):
    """16-bit softmax (stored terms) down 8193 rows, enough strips for every team, takes the dispatch's
    teams; log-softmax there keeps its cluster."""
    from bwlab.workloads.softmax import calls

    case = Case((15, 8193, 1024), dtype, _params("forward"))
    assert calls.plan_for(W_problem(Case(case.shape, dtype, _params("log"))), 0).choice.kernel == "colsCluster"
    _dispatched_team(monkeypatch, case, (19,), ends=",true >")


def test_cols_team_stays_out_of_graphs_and_gives_way_when_refused(monkeypatch):
    """As rowTeam: a captured stream gets the kernel without teams, a refused launch falls back to it."""
    import cupy

    import bwlab
    from bwlab.workloads.softmax import calls

    case = _team_strips(8192)
    p = W_problem(case)
    plan = calls.plan_for(p, 0)
    assert plan.choice.kernel == "colsTeam"
    ran = _force(monkeypatch, p, plan)
    y, g = W.make_input(case, 5)
    out = W.new_output(case, y)
    verify.poison(out)
    cupy.cuda.Device().synchronize()  # the inputs and the poison, made on another stream, are ready
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        bwlab.softmax_backward(y, g, 1, out=out)
        graph = s.end_capture()
    graph.launch(s)
    s.synchronize()
    assert W.check(out, W.reference(case, (y, g))).ok
    assert not ran and calls._plans[(p, 0, "no teams")].choice.kernel == "colsSpread"

    case = Case((40, 1000, 1000), "float32", (("dim", 1), ("op", "backward")))
    p = W_problem(case)
    big = plans.cols_team(p, T=3, G=1000)  # 3000 blocks
    _force(monkeypatch, p, big)
    check_case(case, seed=6)
    assert calls._plans[(p, 0)].choice.kernel == "colsCluster"


# colsSpread (the strip in the registers of a cluster) forced at several geometries, every pass
# and dtype: shares of 1 to 8 packs a thread, blocks with no rows, strips partly past M
@pytest.mark.parametrize("shape", [(3, 1000, 1000), (2, 777, 520), (1, 16, 4096), (2, 9, 64), (2, 4000, 72),
                                   (5, 4099, 36)], ids=str)
@pytest.mark.parametrize("kind", ["forward", "log", "backward", "logbackward"])
def test_cols_spread_forced(shape, kind, monkeypatch):
    params = _params(kind)
    tried = 0
    for dtype in DT:
        case = Case(shape, dtype, params)
        p = W_problem(case)
        for threads, minb, C in ((512, 1, 16), (512, 1, 8), (256, 2, 16), (1024, 1, 8)):
            c = plans.cols_spread(p, threads, minb, C)
            if c is None:
                continue
            _force(monkeypatch, p, c)
            check_case(case, seed=threads + C)
            tried += 1
    assert tried >= 4  # float32 at every geometry at least
