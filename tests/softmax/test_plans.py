"""The softmax dispatch and the geometry of the long-row kernels, checked without a GPU: which
kernel each measured class takes, that rowStream's segments cover a row exactly, and that
rowRelay's ticket schedule runs every task once, never waits on a later ticket, and keeps its
counters and states inside the workspace."""
import pytest

from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.plans import Problem
from bwlab.workloads.softmax.reference import ITEMSIZE


@pytest.mark.parametrize("dtype, op, L, kernel, cluster", [
    ("float32", "forward", 4096, "rowBlock", 1),
    ("float32", "forward", 40004, "rowTeam", 1),        # 3 blocks: teams from 3
    ("float32", "forward", 131072, "rowTeam", 1),       # 8 blocks a row: a team, not a cluster
    ("float32", "forward", 262144, "rowTeam", 1),       # 16: a cluster of 16 streamed slower
    ("float32", "forward", 262148, "rowRelay", 1),      # 17 blocks: teams unmeasured
    ("float32", "forward", 4194304, "rowRelay", 1),
    ("bfloat16", "forward", 65536, "rowStream", 2),
    ("bfloat16", "forward", 98304, "rowTeam", 1),
    ("bfloat16", "forward", 131072, "rowTeam", 1),
    ("bfloat16", "forward", 262144, "rowTeam", 1),      # 8 blocks: teams, as float32
    ("bfloat16", "forward", 4194304, "rowRelay", 1),
    ("float32", "backward", 131072, "rowRelay", 1),
    ("bfloat16", "backward", 262144, "rowRelay", 1),
    ("float32", "backward", 4194304, "rowSplit", 1),    # 32 MiB of inputs a row: past the relay's measured range
    ("bfloat16", "backward", 4194304, "rowRelay", 1),   # 16 MiB of inputs a row: no slack
    ("float32", "backward", 2097152, "rowRelay", 1),
    ("float32", "forward", 8388608, "rowSplit", 1),     # 32 MiB a row: past the relay's measured range
])
def test_long_rows_take_the_measured_kernel(dtype, op, L, kernel, cluster):
    c = plans.choose(Problem(64, L, 1, dtype, op))
    assert (c.kernel, c.cluster) == (kernel, cluster)


def _team(c):
    return c.chunks, c.extra[0]


@pytest.mark.parametrize("held", [0, 1, 15, 16, 396, 10**6])
@pytest.mark.parametrize("N, L", [(1, 131072), (7, 131072), (4096, 262144), (64, 262144), (3, 200000)])
def test_teams_fit_the_gpu_and_cover_every_row(held, N, L):
    """rowTeam: T blocks hold a row exactly (no block without packs but the last's share), its G
    teams never exceed the blocks the GPU holds at once (one team when unknown) nor the rows, and
    the workspace holds the rows' counts (16-byte aligned) and every block's state."""
    p = Problem(N, L, 1, "float32")
    c = plans.row_team(p, held)
    T = plans.row_team(p).chunks
    if 0 < held < T:  # not one team fits: the row keeps the kernel it takes without teams
        assert c is None and plans.choose(p, held=held).kernel in ("rowStream", "rowRelay")
        return
    assert c.kernel == "rowTeam" and c.cooperative and c.args == "relay"
    T, G = _team(c)
    threads, K = c.block[0], int(c.expression.split(",")[3])
    packs = L // 4
    assert (T - 1) * threads * K < packs <= T * threads * K
    assert c.grid == (G * T, 1, 1) and 1 <= G <= N
    assert G * T <= (held or T) and (G == N or held == 0 or (G + 1) * T > held)
    assert c.zeroed % 16 == 0 and c.zeroed >= 4 * N and c.workspace_bytes == c.zeroed + 8 * N * T


@pytest.mark.parametrize("N, L, held, kernel", [
    (4096, 262144, 396, "rowTeam"), (1024, 131072, 396, "rowTeam"), (2048, 81920, 396, "rowTeam"),
    (392, 131072, 396, "rowTeam"),      # 8 rows for each of 49 teams
    (391, 131072, 396, "rowStream"),    # fewer: the clusters
    (64, 131072, 396, "rowStream"), (32, 262144, 396, "rowRelay"), (8, 262144, 0, "rowTeam")])  # 0: one team
def test_teams_take_enough_rows(N, L, held, kernel):
    assert plans.choose(Problem(N, L, 1, "float32"), held=held).kernel == kernel


@pytest.mark.parametrize("dtype, op, log, vec", [("bfloat16", "forward", False, 8), ("float16", "forward", True, 8),
                                                 ("float32", "backward", False, 4), ("float32", "forward", False, 1)])
def test_teams_only_where_measured(dtype, op, log, vec):
    """Rows of 2 blocks or fewer (clusters), gradients and rows not in packs keep their kernels; so do
    rows of more than 16 blocks (rowRelay)."""
    L = 131072 + (1 if vec == 1 else 0)
    assert plans.team_wanted(Problem(64, L, 1, dtype, op, log)) == (op == "forward" and vec > 1)
    assert not plans.team_wanted(Problem(64, 2 * 4096 * 8, 1, "bfloat16"))
    if op == "forward" and vec == 8:  # 16-bit rows of 3 to 16 blocks take teams
        assert plans.team_wanted(Problem(64, 2 * 4096 * 8 + 8, 1, dtype, op, log))
        assert plans.team_wanted(Problem(64, 2 * L, 1, dtype, op, log))
        assert not plans.team_wanted(Problem(64, 2 * L, 1, dtype, "backward", log))
        assert not plans.team_wanted(Problem(64, 8 * L + 8, 1, dtype, op, log))
    assert not plans.team_wanted(Problem(64, 2 * 4096 * 4, 1, "float32"))
    assert plans.team_wanted(Problem(64, 2 * 4096 * 4 + 4, 1, "float32", log=True))
    assert not plans.team_wanted(Problem(64, 16 * 4096 * 4 + 4, 1, "float32"))
    assert not plans.team_wanted(Problem(64, 131072, 8, "float32"))  # a strided axis
    assert plans.choose(Problem(64, 131072, 1, "float32"), held=396, teams=False).kernel == "rowStream"


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("op", ["forward", "backward"])
@pytest.mark.parametrize("L", [1, 2, 3, 8, 16, 32, 64, 100, 128, 256, 512, 1000, 1024, 2000, 2048, 3000, 4096])
def test_short_rows_fit_their_lanes_without_idle_blocks(dtype, op, L):
    """Every row's packs have a slot (G * K for rowWarp, threads * K for rowBlock), a lane group
    of rowWarp never spans warps, and no row gets more than twice the slots it needs."""
    p = Problem(1000, L, 1, dtype, op)
    c = plans.choose(p)
    packs = L // p.vec
    t = c.block[0]
    if c.kernel == "rowWarp":
        V, G, K, R, T = (int(v) for v in c.expression.split("<")[1].split(",")[1:6])
        assert (V, T) == (p.vec, t) and G <= 32 and T % G == 0 and G * K >= packs and G * K < 2 * packs + K
        assert c.grid[0] * R * (T // G) >= p.N
    else:
        assert c.kernel == "rowBlock"
        K = int(c.expression.split(",")[3])
        assert packs <= t * K < 2 * packs


def test_short_rows_spread_over_more_lanes():
    """[4194304, 32]: 4 lanes of 2 packs a float32 row, 2 rows a lane group (the H200 sweep)."""
    c = plans.choose(Problem(4194304, 32, 1, "float32"))
    assert c.expression.startswith("rowWarp<float,4,4,2,2,32,") and c.grid == (4194304 // 16, 1, 1)
    assert plans.choose(Problem(1, 1024, 1, "float32")).block == (32, 1, 1)  # one warp, no idle half


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("op", ["forward", "backward"])
def test_row_warp_blocks_of_one_warp_past_two_packs(dtype, op):
    """rowWarp on blocks of one warp for rows of 3 to 128 whole packs, 64 threads for rows of 1 or 2
    packs (one warp lost 20 points there on the H200), 128 for rows not in 16-byte packs and for the
    16-bit forward rows of 4096 (a warp of 16 packs a lane, measured on 128)."""
    v = 16 // (4 if dtype == "float32" else 2)
    for packs, want in ((1, 64), (2, 64), (3, 32), (4, 32), (8, 32), (33, 32), (128, 32)):
        c = plans.choose(Problem(1000, packs * v, 1, dtype, op))
        assert c.kernel == "rowWarp" and c.block == (want, 1, 1), (packs, c.expression)
        assert f",{want},{plans.OPS[op, False]} >" in c.expression
    assert plans.choose(Problem(1000, 4 * v + 1, 1, dtype, op)).block == (128, 1, 1)  # not in packs
    assert plans.choose(Problem(1000, 4 * v, 1, dtype, op, aligned=False)).block == (128, 1, 1)
    if dtype != "float32" and op == "forward":
        assert plans.choose(Problem(1000, 4096, 1, dtype, op)).block == (128, 1, 1)


def test_gradient_rows_take_one_pack_a_thread():
    """rowBlock gradients: one pack of y and dy a thread up to 1024 threads (float32) or 512 (16-bit)
    where the block is full but for at most 1/32, not for 16-bit log-softmax (the H200 sweeps);
    longer rows, fuller ones, forward passes and rows not in packs keep the packs before it."""
    def geometry(L, dtype, op="backward", aligned=True, log=False):
        c = plans.choose(Problem(1000, L, 1, dtype, op, log, aligned))
        assert c.kernel == "rowBlock"
        return c.block[0], int(c.expression.split(",")[3])
    assert geometry(4096, "float32") == (1024, 1)
    assert geometry(4096, "float32", log=True) == (1024, 1)
    assert geometry(2048, "float32") == (512, 1)
    assert geometry(1000, "float32") == (256, 1)  # 250 of 256 threads
    assert geometry(8192, "float32") == (512, 4)
    assert geometry(4096, "bfloat16") == (512, 1)
    assert geometry(4096, "bfloat16", log=True) == (256, 2)  # 16-bit log-softmax gradients keep 2 packs
    assert geometry(2048, "float16") == (256, 1)
    assert geometry(8192, "bfloat16") == (512, 2)
    assert geometry(4096, "float32", "forward") == (128, 8)
    # a quarter to half of the block idle: the packs before (129, 514, 257 and 375 packs)
    assert geometry(516, "float32") == (32, 8)
    assert geometry(2056, "float32") == (256, 4)
    assert geometry(2056, "bfloat16") == (256, 2)
    assert geometry(3000, "bfloat16") == (256, 2)
    assert geometry(1001, "float32") == (256, 4)  # not in packs: one element a pack, BLOCK_K's 4
    assert geometry(4096, "float32", aligned=False) == (1024, 4)  # not 16-byte aligned: one element a pack
    assert plans.one_pack_gradient(Problem(1000, 64, 1, "float32", "backward"), 16) is False  # rowWarp's rows


def test_long_16bit_forward_rows_take_a_warp_each():
    """bfloat16 rows of 4096: a warp of 16 packs a lane (the H200 sweep); float32, log-softmax (it
    would spill) and the backward pass keep their block."""
    c = plans.choose(Problem(32768, 4096, 1, "bfloat16"))
    assert c.expression.startswith("rowWarp<bf16,8,32,16,1,128,") and c.grid == (32768 // 4, 1, 1)
    assert plans.choose(Problem(32768, 4096, 1, "float16")).kernel == "rowWarp"
    assert plans.choose(Problem(32768, 4096, 1, "bfloat16", log=True)).kernel == "rowBlock"
    assert plans.choose(Problem(32768, 4096, 1, "bfloat16", "backward")).kernel == "rowBlock"
    assert plans.choose(Problem(32768, 4096, 1, "float32")).kernel == "rowBlock"
    assert plans.choose(Problem(32768, 4104, 1, "bfloat16")).kernel == "rowBlock"


def test_rows_not_in_packs_keep_the_register_kernels():
    assert plans.choose(Problem(3, 40001, 1, "float32")).kernel == "rowCluster"
    assert plans.choose(Problem(3, 40004, 1, "float32", aligned=False)).kernel == "rowCluster"
    assert plans.choose(Problem(3, 300001, 1, "float32")).kernel == "rowSplit"
    assert plans.row_relay(Problem(3, 300001, 1, "float32")) is None


@pytest.mark.parametrize("dtype, op", [("float32", "forward"), ("bfloat16", "forward"), ("bfloat16", "backward")])
def test_long_strided_axes_take_whole_strips_on_16_blocks(dtype, op):
    c = plans.choose(Problem(1, 8192, 8192, dtype, op), teams=False)  # gradients take teams where they can
    assert (c.kernel, c.cluster, plans.strip(c)) == ("colsCluster", 16, 128)
    assert c.block[0] == (128 if (dtype, op) == ("float32", "forward") else 256)
    stages = int(c.expression.split(",")[4])  # groups of rows folded as they land
    assert stages == (1 if (dtype, op) == ("bfloat16", "forward") else plans.WIDE_STAGES)
    assert c.smem <= (plans.SMEM_MAX if op == "backward" else plans.CLUSTER_SMEM)  # forward: 2 blocks an SM
    small = plans.choose(Problem(1, 8192, 8192, dtype, op), big_clusters=False, teams=False)
    if op == "forward":  # portable clusters: 64-byte strips on 8 blocks; gradients (two inputs) only 32: chunks
        assert small.kernel == "colsCluster" and small.cluster <= 8 and small.smem <= plans.SMEM_MAX
        assert plans.strip(small) == plans.CHUNK_STRIP
    else:
        assert small.kernel == "colsChunks"
    assert plans.choose(Problem(4, 2000, 1024, dtype, op)).cluster <= 8  # shorter axes hold 128 bytes on 8


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("op, log", [("forward", False), ("forward", True), ("backward", False)])
@pytest.mark.parametrize("L", [1, 3, 4, 5, 8, 9, 16, 17])
def test_short_strided_axes_hold_their_columns_in_registers(dtype, op, log, L):
    """Columns of up to 16 rows live in one thread's registers, with the geometry measured for each
    dtype and pass: 16-bit columns of 9-16 rows in packs of 4 columns with 5 blocks an SM, 16-bit
    backward ones of 5-16 in packs of 2 with 4 blocks an SM; float32 keeps whole 16-byte packs.
    Longer columns, and float32 backward ones past 8 rows, go to the cluster kernel."""
    c = plans.choose(Problem(64, L, 1024, dtype, op, log))
    fits = L <= (8 if (dtype, op) == ("float32", "backward") else 16)
    assert (c.kernel == "colsRegs") == fits, c.expression
    if not fits:
        return
    vec, threads, minb = int(c.expression.split(",")[1]), c.block[0], int(c.expression.split(",")[4])
    two = ITEMSIZE[dtype] == 2
    if two and op == "backward" and L > 4:
        assert (vec, threads, minb) == (2, 128, 4)
    elif two and op == "forward" and L > 8:
        assert (vec, threads, minb) == (4, 128, 5)
    else:
        assert (vec, threads, minb) == (16 // ITEMSIZE[dtype], 256, 2)
    assert c.grid[0] * threads >= 64 * 1024 // vec  # one thread a pack of columns


def test_float32_gradients_of_long_axes_whose_share_fills_the_registers_skip_shared_memory():
    """colsSpread: 512 threads a block, 8 packs a thread, where a cluster of 8 or 16 gives each
    block 449-512 rows; otherwise colsCluster, as for log-softmax's gradient and 16-bit ones."""
    for L, M, C in ((4096, 1024, 8), (3800, 64, 8), (8192, 8192, 16), (7300, 1024, 16)):
        c = plans.choose(Problem(16, L, M, "float32", "backward"), teams=False)  # else teams where measured
        assert (c.kernel, c.cluster, c.block[0]) == ("colsSpread", C, 512), (L, c.expression)
        assert c.expression.split(",")[2] == "8" and c.grid[0] == plans.cdiv(M, 32) * C
    # portable clusters hold only 32-byte strips of both inputs there: chunks instead
    assert plans.choose(Problem(1, 8192, 8192, "float32", "backward"), big_clusters=False,
                        teams=False).kernel == "colsChunks"
    assert plans.choose(Problem(1, 4096, 8192, "float32", "backward"), big_clusters=False,
                        teams=False).kernel == "colsSpread"
    assert plans.choose(Problem(1, 8192, 8192, "float32", "backward"), big_clusters=False).kernel == "colsTeam"
    for p in (Problem(16, 6144, 1024, "float32", "backward"), Problem(16, 3000, 1024, "float32", "backward"),
              Problem(16, 8192, 1024, "float32", "backward", log=True), Problem(16, 8192, 1024, "bfloat16", "backward"),
              Problem(16, 8192, 1024, "float32", "forward"), Problem(16, 8192, 16, "float32", "backward")):
        assert plans.choose(p, teams=False).kernel == "colsCluster", p


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("op, log", [("forward", False), ("forward", True), ("backward", False), ("backward", True)])
def test_axes_too_long_for_wide_strips_take_chunks(dtype, op, log):
    """Past what a cluster holds in strips of 64 bytes, and wherever rows are not in 16-byte packs,
    the axis is cut into chunks read twice; [8, 16384, 1024] float32 keeps 64-byte strips."""
    for N, L, M, aligned in ((4, 32768, 1024, True), (1, 32768, 4096, True), (16, 8192, 1023, True),
                             (3, 517, 1024, False)):
        p = Problem(N, L, M, dtype, op, log, aligned)
        c = plans.choose(p, teams=False)  # float32 gradients take teams there (test_strided_gradients_...)
        assert c.kernel == "colsChunks", (p, c.expression)
        v = p.vec
        split = op == "backward" and v > 1  # gradients in 16-byte packs read in chunks of their own
        rows, lx = (1024, 8) if split else (256 if ITEMSIZE[dtype] == 2 else 128, 32)
        assert c.extra == (rows, 256 if ITEMSIZE[dtype] == 2 else 128) and c.finish_block == (32, 8, 1)
        assert c.chunks == plans.cdiv(L, rows) and (c.chunks - 1) * rows < L <= c.chunks * rows  # none empty
        assert c.grid == (plans.cdiv(M, lx * v) * c.chunks, N, 1) and c.block == (lx, 256 // lx, 1)
        assert c.finish_grid == (plans.cdiv(M, 32 * v) * plans.cdiv(L, c.extra[1]), N, 1)
        assert c.merge_grid[0] * 32 >= N * M and c.workspace_bytes == 8 * N * M * (c.chunks + 1)
        assert c.finish.startswith("colsFinish<") and c.merge.startswith("colsMerge<8,")
    assert plans.choose(Problem(8, 16384, 1024, "float32"), teams=False).kernel == "colsCluster"  # 64-byte strips
    assert plans.choose(Problem(2, 60000, 4, "float32")).kernel == "colsChunks"       # no strip fits
    many = plans.choose(Problem(70000, 17, 3, "float32"))  # more slices than a grid's y: the kernels loop
    assert many.kernel == "colsChunks" and many.grid[1] == plans.GRID_Y


def test_narrow_strips_stay_on_portable_clusters():
    c = plans.choose(Problem(1, 8192, 16, "float32"))  # 64 bytes wide: 16 blocks give nothing wider
    assert c.kernel == "colsCluster" and plans.strip(c) == 64 and c.cluster <= 8


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("L", [8 * 4096 + 8, 65536, 99992, 131072, 262144])
def test_row_stream_segments_cover_the_row(dtype, L):
    p = Problem(5, L, 1, dtype)
    c = plans.row_stream(p)
    if c is None:
        assert L // p.vec > max(plans.CLUSTERS) * plans.STREAM_THREADS * plans.STREAM_K
        return
    C, T, K, G = c.cluster, c.block[0], plans.STREAM_K, c.extra[0]
    packs = L // p.vec
    seg = -(-packs // C)
    assert seg <= T * K and c.smem == T * K * 16 <= plans.SMEM_MAX
    covered = []
    for rank in range(C):  # the kernel's [first, last) per block
        first, last = rank * seg, min(packs, rank * seg + seg)
        covered += range(first, max(first, last))
    assert covered == list(range(packs))
    assert 1 <= G <= p.N and G == -(-p.N // plans.STREAM_ROWS) and c.grid[0] == G * C  # no cluster without rows


def relay_schedule(c: plans.Choice, N: int):
    chunks, lead = c.chunks, c.extra[0]
    seen = {}
    for t in range(c.grid[0]):  # the kernel's decoding of ticket t
        fin = bool(t & 1)
        g = (t >> 1) - (lead if fin else 0)
        row, ch = divmod(g, chunks) if g >= 0 else (-1, 0)
        if 0 <= row < N:
            assert (row, ch, fin) not in seen
            seen[row, ch, fin] = t
    return seen


@pytest.mark.parametrize("N, L, dtype, op", [(1, 262144, "float32", "forward"), (7, 131072, "bfloat16", "backward"),
                                             (3, 4194304 + 8, "float32", "forward"), (64, 32768, "float32", "backward"),
                                             (5, 1000004, "float32", "forward"), (3, 2097152, "float32", "backward")])
@pytest.mark.parametrize("slack", [None, 0, 1 << 20, 1 << 30])
def test_relay_runs_every_task_once_and_waits_only_on_earlier_tickets(N, L, dtype, op, slack):
    p = Problem(N, L, 1, dtype, op)
    c = plans.row_relay(p, slack=slack)
    seen = relay_schedule(c, N)
    assert len(seen) == 2 * N * c.chunks
    for (row, ch, fin), t in seen.items():
        if fin:  # it waits for all of its row's partial tasks: each must hold a lower ticket
            assert all(seen[row, j, False] < t for j in range(c.chunks))
    assert c.chunks * 256 * 8 >= L // p.vec  # the chunks cover the row
    # a finishing task comes a row and `slack` bytes of chunks after its chunk's partial task
    slack = plans.relay_slack(p) if slack is None else slack
    lead = min(c.chunks + -(-slack // (256 * 8 * 16 * p.inputs)), N * c.chunks)  # no tickets past the last row
    assert c.extra[0] == lead and c.grid[0] == 2 * (N * c.chunks + lead)
    assert all(seen[row, ch, True] - seen[row, ch, False] == 2 * lead + 1 for row, ch, fin in seen if fin)


def test_relay_slack_and_launchable_grids():
    """Rows over 12 MiB of inputs take half the slack (4 MiB measured best at 16 MiB); the rest 8 MiB."""
    half = plans.RELAY_SLACK // 2
    assert plans.relay_slack(Problem(64, 2097152, 1, "float32", "backward")) == half   # 16 MiB of inputs
    assert plans.relay_slack(Problem(64, 4194304, 1, "float32", "forward")) == half    # 16 MiB
    assert plans.relay_slack(Problem(32, 4194304, 1, "bfloat16", "backward")) == half  # 16 MiB
    assert plans.relay_slack(Problem(64, 4194304, 1, "bfloat16", "forward")) == plans.RELAY_SLACK  # 8 MiB
    assert plans.relay_slack(Problem(64, 1048576, 1, "float32", "backward")) == plans.RELAY_SLACK  # 8 MiB
    assert plans.relay_slack(Problem(64, 3 << 20, 1, "float32", "forward")) == plans.RELAY_SLACK   # 12 MiB
    assert plans.relay_slack(Problem(64, (3 << 20) + 4, 1, "float32", "forward")) == half
    assert plans.row_relay(Problem(2**30, 1024, 1, "float32")) is None  # over 2^31 - 1 blocks
    with pytest.raises(ValueError, match="slack"):  # a finishing task would come before its row's partial tasks
        plans.row_relay(Problem(4, 262144, 1, "float32"), slack=-1)


@pytest.mark.parametrize("N", [1, 2, 3, 64, 65537])
def test_relay_workspace_holds_counters_then_states(N):
    c = plans.row_relay(Problem(N, 262144, 1, "float32"))
    counters_end = 128 + 128 * (N - 1) + 4    # the 64-bit ticket, then N 32-bit counts, 128 bytes apart
    states = 128 * (N + 1)                    # the kernel's ws = (State*)(done + 32 * N), done = ctr + 128 B
    assert counters_end <= c.zeroed == states
    assert states % 8 == 0 and states + 8 * N * c.chunks == c.workspace_bytes


def _probe_lengths() -> list[int]:
    near = [(1 << k) + d for k in range(4, 25) for d in (-8, -1, 0, 1, 8)]
    return sorted(set(range(1, 300)) | set(near) | {40004, 49160, 70001, 300001, 4194304 + 8})


@pytest.mark.parametrize("held", [0, 1, 21, 22, 264, 10**6])
@pytest.mark.parametrize("N, L, M, dtype", [(16, 8192, 1024, "float32"), (1, 8192, 8192, "bfloat16"),
                                            (4, 32768, 1024, "float32"), (3, 4099, 40, "float32"),
                                            (2, 10007, 24, "float16")])
@pytest.mark.parametrize("op", ["backward", "forward"])
def test_strided_teams_fit_the_gpu_and_hold_the_axis(held, N, L, M, dtype, op):
    """colsTeam: T blocks hold the axis in at most TEAM_STRIP bytes of strip rows each (softmax and
    log-softmax: TEAM_FORWARD_STRIP; the last block's share shorter), G teams never exceed the blocks
    the GPU holds at once (one team when unknown) nor the strips, and the workspace holds a 128-byte
    line of count per team and two strips' states."""
    p = Problem(N, L, M, dtype, op)
    inputs = 2 if op == "backward" else 1
    c = plans.cols_team(p, held)
    T = plans.cols_team(p).chunks
    if 0 < held < T:
        assert c is None
        return
    assert c.kernel == "colsTeam" and c.cooperative and c.args == "colsteam"
    T, G = _team(c)
    W = int(c.expression.split(",")[1])
    cols = W // 16 * (16 // ITEMSIZE[dtype])
    rows = (plans.TEAM_STRIP if op == "backward" else plans.TEAM_FORWARD_STRIP) // (W * inputs)
    assert W == min(128, plans._pow2(M * ITEMSIZE[dtype])) and (T - 1) * rows < L <= T * rows
    assert c.smem == (c.block[0] // 32 + 2) * cols * 8 + -(-L // T) * W * inputs <= plans.SMEM_MAX
    strips = N * -(-M // cols)
    assert c.grid == (G * T, 1, 1) and 1 <= G <= strips
    assert G * T <= (held or T) and (G == strips or held == 0 or (G + 1) * T > held)
    assert c.zeroed == 128 * G and c.workspace_bytes == c.zeroed + 2 * 8 * G * T * cols


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("L", [8192, 24576, 24577, 32768])
@pytest.mark.parametrize("op", ["backward", "forward"])
def test_long_16bit_gradients_meet_sixteen_states_at_a_time(dtype, L, op):
    """colsTeam's meeting loads 16 of the team's states at once (the kernel's last template argument,
    after E) for 16-bit gradients on teams of more than TEAM_WIDE_GATHER blocks (24576 rows take 64,
    24577 take 65, 32768 take 86), four otherwise; the instantiation is one the build compiles. (Softmax's
    gradients: log-softmax's hold half the bytes a row, test_lean_log_gradients.)"""
    c = plans.cols_team(Problem(4, L, 1024, dtype, op, op == "forward"), held=396)
    wide = op == "backward" and dtype != "float32" and L > 24576
    assert op == "forward" or (c.chunks > plans.TEAM_WIDE_GATHER) == (L > 24576)
    assert c.expression.endswith(",false,16 >") == wide and c.expression.count(",16 >") == wide
    assert c.expression in plans.expressions()[c.source]


@pytest.mark.parametrize("shape, dtype, log, held, kernel", [
    ((16, 8192, 1024), "float32", False, 264, "colsTeam"), ((16, 4096, 1024), "float32", True, 264, "colsTeam"),
    ((1, 8192, 8192), "float32", False, 264, "colsTeam"), ((4, 32768, 1024), "float32", False, 264, "colsTeam"),
    ((16, 8192, 1024), "bfloat16", False, 264, "colsTeam"), ((8, 16384, 1024), "float16", True, 264, "colsTeam"),
    ((16, 8192, 1024), "float32", False, 0, "colsTeam"),      # one team when the GPU is unknown
    ((16, 2048, 1024), "float32", False, 264, "colsCluster"),  # short axes: clusters won
    ((16, 4096, 1024), "bfloat16", False, 264, "colsCluster"),
    ((4, 32768, 1024), "bfloat16", False, 264, "colsTeam"), ((1, 32768, 4096), "float16", True, 264, "colsTeam"),
    ((16, 4096, 1024), "bfloat16", True, 264, "colsCluster"),  # 16-bit: 8192 rows or more (2 KiB apart)
    ((4, 2048, 4096), "float32", False, 264, "colsTeam"),      # rows 16 KiB apart: from 2048 rows
    ((2, 3000, 8192), "float32", True, 264, "colsTeam"), ((4, 4096, 4096), "bfloat16", True, 396, "colsTeam"),
    ((4, 4096, 4096), "bfloat16", False, 264, "colsTeam"),     # 16-bit rows 8 KiB apart: from 4096 rows
    ((1, 2048, 8192), "float32", False, 264, "colsCluster"),   # 5.3 256-byte strips a team: too few
    ((8, 1024, 8192), "float32", False, 264, "colsCluster"),   # 1024 rows
    ((4, 65536, 1024), "float32", False, 264, "colsChunks"),   # unmeasured
    ((4, 65536, 1024), "bfloat16", False, 264, "colsChunks"),
    ((16, 8192, 16), "float32", False, 264, "colsCluster"),    # strips narrower than 128 bytes
    ((16, 8192, 36), "float32", False, 264, "colsSpread"),     # a slice not in whole strips
    ((1, 8192, 1024), "float32", False, 264, "colsSpread")])   # 32 strips: too few for 12 teams
def test_strided_gradients_take_teams_where_measured(shape, dtype, log, held, kernel):
    N, L, M = shape
    assert plans.choose(Problem(N, L, M, dtype, "backward", log), held=held).kernel == kernel
    if kernel == "colsTeam":  # a captured stream or a refused launch: the kernel without teams
        assert plans.choose(Problem(N, L, M, dtype, "backward", log), held=held, teams=False).kernel != "colsTeam"


@pytest.mark.parametrize("shape, dtype, op, width", [
    ((1, 8192, 8192), "float32", "forward", 256), ((1, 8192, 8192), "float32", "backward", 256),
    ((2, 4096, 16384), "float32", "forward", 256),   # rows 64 KiB apart
    ((1, 8192, 4096), "float32", "backward", 256),   # 16 KiB apart, the least
    ((1, 16384, 8192), "float32", "forward", 256),   # a team of 64 blocks
    ((1, 16384, 8192), "float32", "backward", 128),  # 86: a gradient's block holds 192 rows of 256 bytes
    ((1, 8192, 2048), "float32", "forward", 128),    # 8 KiB apart
    ((16, 8192, 1024), "float32", "backward", 128), ((1, 32768, 4096), "float32", "forward", 128),  # 128 blocks
    ((1, 8192, 4128), "float32", "forward", 128),    # the slice not in whole 256-byte strips
    ((1, 8192, 8192), "bfloat16", "forward", 128), ((1, 8192, 8192), "float16", "backward", 128)])
def test_cols_team_strip_width(shape, dtype, op, width):
    """colsTeam takes 256-byte strips for float32 whose strided rows lie 16 KiB apart or more, where
    such a team has at most 64 blocks, log-softmax and its gradients too (but where those are lean,
    test_lean_log_gradients); 128 elsewhere."""
    p = Problem(*shape, dtype, op, False)
    assert plans.team_width(p) == width
    log = Problem(*shape, dtype, op, True)
    assert plans.team_lean(log) or plans.team_width(log) == width
    c = plans.cols_team(p, held=396)
    assert c.expression.startswith(f"colsTeam<{plans.CTYPE[dtype]},{width},") and c.expression in plans.expressions()[
        c.source]


@pytest.mark.parametrize("shape", [(1, 8192, 8192), (2, 4096, 16384), (1, 16384, 8192)])
@pytest.mark.parametrize("log", [False, True])
def test_float32_forward_takes_wide_teams_where_rows_lie_far_apart(shape, log):
    """Softmax and log-softmax of float32 rows 16 KiB apart or more take teams on 256-byte strips from
    4096 rows (colsCluster's before); 8 KiB apart they keep their clusters."""
    c = plans.choose(Problem(*shape, "float32", "forward", log), held=396)
    assert c.kernel == "colsTeam" and c.expression.startswith("colsTeam<float,256,")
    assert plans.choose(Problem(shape[0], shape[1], 2048, "float32", "forward", log), held=396).kernel == "colsCluster"


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_16bit_softmax_takes_teams_down_8192_rows(dtype):
    """16-bit softmax (stored terms) takes teams from 8192 rows where every team gets TEAM_STRIPS strips;
    log-softmax keeps its clusters there, as do 4096 rows (unmeasured) and [8192, 8192] (128 strips: too
    few for 24 teams)."""
    def kernel(N, L, M, log=False):
        return plans.choose(Problem(N, L, M, dtype, "forward", log), held=396).kernel

    assert kernel(16, 8192, 1024) == kernel(2, 8192, 8192) == kernel(32, 8192, 512) == "colsTeam"
    assert kernel(16, 8192, 1024, log=True) == kernel(1, 8192, 8192) == kernel(32, 4096, 1024) == "colsCluster"


@pytest.mark.parametrize("shape, dtype, held, kernel", [
    ((4, 32768, 1024), "float32", 264, "colsTeam"), ((4, 32768, 1024), "bfloat16", 264, "colsTeam"),
    ((1, 32768, 4096), "float16", 264, "colsTeam"), ((8, 16384, 1024), "float32", 264, "colsTeam"),
    ((8, 16384, 1024), "bfloat16", 0, "colsTeam"),    # one team when the GPU is unknown
    ((16, 8192, 1024), "float32", 264, "colsCluster"),  # two or three blocks an SM on a cluster: level
    ((1, 8192, 8192), "bfloat16", 264, "colsCluster"),
    ((4, 65536, 1024), "float32", 264, "colsChunks"),   # unmeasured
    ((8, 16384, 36), "float32", 264, "colsCluster"),    # a slice not in whole 128-byte strips
    ((1, 16384, 1024), "float32", 264, "colsCluster")])  # 32 strips: too few for 8 teams
def test_strided_forward_takes_teams_past_two_cluster_blocks_an_sm(shape, dtype, held, kernel):
    """Softmax and log-softmax take teams of 64 KiB blocks (three an SM) down axes of 16384 to 32768
    rows, where a cluster of 16 would hold a 128-byte strip with one block an SM (or not at all)."""
    N, L, M = shape
    for log in (False, True):
        c = plans.choose(Problem(N, L, M, dtype, "forward", log), held=held)
        assert c.kernel == kernel, (log, c.expression)
        if kernel == "colsTeam":
            S = plans.WIDE_STAGES if dtype == "float32" else plans.TEAM_FORWARD_STAGES16
            terms = ",true" if not log and dtype != "float32" else ""  # stored terms (not float32's)
            op = plans.op_type(Problem(N, L, M, dtype, "forward", log))
            assert c.expression.endswith(f",{S},{op},{plans.TEAM_FORWARD_BLOCKS}{terms} >")
            assert plans.choose(Problem(N, L, M, dtype, "forward", log), held=held, teams=False).kernel != kernel


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("op", ["forward", "backward"])
def test_every_dispatched_expression_is_built(dtype, op):
    """What the dispatch can launch is what `bwlab kernels` builds and checks for spills: rows of
    every short length and near every power of two, aligned or not, and strided axes."""
    built = plans.expressions()
    missing = set()
    for log in (False, True):
        for aligned in (True, False):
            problems = [Problem(2, L, 1, dtype, op, log, aligned) for L in _probe_lengths()]
            problems += [Problem(2, L, M, dtype, op, log, aligned) for L in (1, 2, 3, 5, 16, 17, 100, 1000, 8192, 20000)
                         for M in (2, 3, 4, 8, 9, 16, 32, 64, 100, 1024, 8192)]
            problems += [Problem(2, 40000, M, dtype, op, log, aligned) for M in (64, 1024, 1032)]
            problems += [Problem(4096, L, 1, dtype, op, log, aligned) for L in (81920, 131072, 196608, 262144)]
            problems += [Problem(64, L, 1024, dtype, op, log, aligned) for L in (4096, 8192, 16384, 32768)]
            for pr in problems:
                c = plans.choose(pr, held=396)  # an H200's worth of rowTeam blocks: teams where wanted
                missing |= {e for e in (c.expression, c.finish, c.merge) if e and e not in built.get(c.source, ())}
    assert not missing, sorted(missing)
    if dtype == "float32" and op == "forward":  # the probes above reached the teams
        assert any(e.startswith("rowTeam<float") and "Forward<true>" in e for e in built[plans.SRC["rowstream"]])
    if op == "backward":
        ct = {"float32": "float", "bfloat16": "bf16", "float16": "half16"}[dtype]
        log = "3,false,4,true" if dtype != "float32" else "2"  # 16-bit: lean (test_lean_log_gradients)
        grads = {f"colsTeam<{ct},128,256,4,Backward<false>,2 >", f"colsTeam<{ct},128,256,4,Backward<true>,{log} >"}
        assert grads <= set(built[plans.SRC["colscluster"]])
    else:
        ct, S = {"float32": ("float", 4), "bfloat16": ("bf16", 2), "float16": ("half16", 2)}[dtype]
        terms = ",true" if dtype != "float32" else ""  # softmax's stored terms (plans.stored_terms)
        log_op = "Forward<true,true>" if dtype == "bfloat16" else "Forward<true>"  # plans.op_type
        assert {f"colsTeam<{ct},128,256,{S},Forward<false>,3{terms} >", f"colsTeam<{ct},128,256,{S},{log_op},3 >"
                } <= set(built[plans.SRC["colscluster"]])


def test_only_bfloat16_log_softmax_keeps_its_sum_larger():
    """Forward<true,true> (t in units of 2^-64, so that terms below 2^-126 count) for bfloat16
    log-softmax alone, on every kernel the dispatch picks for it; the rest keep their Op."""
    for dtype in ("float32", "bfloat16", "float16"):
        for op, log in (("forward", False), ("forward", True), ("backward", False), ("backward", True)):
            for shape in ((64, 1000, 1), (4096, 4096, 1), (1024, 131072, 1), (16, 8192, 1024), (4, 32768, 1024)):
                c = plans.choose(Problem(*shape, dtype, op, log), held=396)
                tiny = (dtype, op, log) == ("bfloat16", "forward", True)
                assert ("Forward<true,true>" in c.expression) == tiny, c.expression


def test_a_miss_never_prints_its_goal():
    from bwlab.workloads.softmax.cases import pct_below

    assert [pct_below(v, 85) for v in (60.4, 84.4, 84.5, 84.96, 84.99)] == ["60", "84", "84", "84.9", "84.9"]


@pytest.mark.parametrize("shape, dtype, width, blocks", [
    ((4, 32768, 1024), "float32", 256, 2), ((1, 32768, 4096), "float32", 256, 2),  # from 16384 rows
    ((8, 16384, 1024), "float32", 256, 2), ((256, 16384, 32), "float32", 128, 2),    # slices of 128 bytes
    ((4, 32768, 1024), "bfloat16", 128, 3), ((16, 8192, 1024), "bfloat16", 128, 3),  # rows 2 KiB apart
    ((1, 32768, 4096), "bfloat16", 256, 3), ((1, 8192, 8192), "float16", 256, 3),     # 8 and 16 KiB apart
    ((16, 8192, 1024), "float32", 256, 2), ((1, 8192, 8192), "float32", 256, 2),      # float32, 8192 rows
    ((256, 8192, 96), "float32", 0, 0), ((256, 16384, 96), "float32", 128, 2),        # 384-byte slices
    ((32, 4096, 1024), "float32", 0, 0)])
def test_lean_log_gradients(shape, dtype, width, blocks):
    """log-softmax gradients hold the gradient alone on chip (the kernel's LEAN): 16-bit ones on 64 KiB
    blocks, three an SM, on 256-byte strips where rows lie 8 KiB apart or more; float32 on 256-byte
    strips, two blocks an SM, from 8192 rows where the slice is a whole number of them, else on 128-byte
    strips from 16384 rows. Softmax's gradients, and float32 log-softmax's on fewer rows, hold both
    (width 0 here)."""
    p = Problem(*shape, dtype, "backward", True)
    c = plans.choose(p, held=396)
    assert c.kernel == "colsTeam" and plans.team_lean(p) == (width > 0)
    assert not plans.team_lean(Problem(*shape, dtype, "backward", False))
    assert c.expression in plans.expressions()[c.source]
    if width:
        assert c.expression.startswith(f"colsTeam<{plans.CTYPE[dtype]},{width},256,4,Backward<true>,{blocks},false,")
        assert c.expression.endswith(",true >")
        budget = plans.TEAM_FORWARD_STRIP if blocks == 3 else plans.TEAM_STRIP
        assert c.chunks == -(-shape[1] // (budget // width))  # the gradient alone: twice the rows a block
    else:
        assert not c.expression.endswith(",true >")
    with pytest.raises(ValueError, match="log-softmax gradients only"):
        plans.cols_team(Problem(*shape, dtype, "backward", False), lean=True)


def test_log_backward_suite_times_log_softmax_gradients():
    """The log-backward suite: log-softmax's gradients on the backward suite's shapes and dtypes, under the
    backward's goal of 80%, in a shape class of their own."""
    from bwlab.workloads.softmax import cases

    plain, log = cases.bench_cases("backward"), cases.bench_cases("log-backward")
    assert [(c.shape, c.dtype, c.param("dim")) for c in log] == [(c.shape, c.dtype, c.param("dim")) for c in plain]
    assert all(c.param("log") is True and c.param("op") == "backward" for c in log)
    classes = {"log-softmax backward, strided axis", "log-softmax backward, last axis"}
    assert {cases.shape_class(c) for c in log} == classes
    assert set(log) <= set(cases.bench_cases("all"))


def test_every_rung_template_is_an_instantiation_it_builds():
    """A rung's template (what `bwlab kernels` reports registers and spills for) is one of the
    instantiations its plan launches, so its resources are those of a kernel that runs."""
    from bwlab.workloads.softmax.catalog import KERNELS
    for spec in KERNELS:
        built = spec.expressions()
        assert spec.expression(spec.dtypes[0], spec.block) in built, spec.name


def test_empty_rows_have_a_plan_and_an_explanation():
    for L in (40004, 131072, 262144):  # rowStream's lengths among them
        c = plans.choose(Problem(0, L, 1, "float32"))
        assert c.why


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("op, log", [("forward", False), ("forward", True), ("backward", False)])
def test_stored_terms_only_for_softmax_on_chip(dtype, op, log):
    """16-bit softmax (not log-softmax, not gradients, not float32) in 16-byte packs asks the kernels
    that hold x on chip to store its terms over it: rowStream, rowTeam, and colsCluster and colsTeam
    on 128-byte strips; strips narrower than 128 bytes, and rows not in packs, do not."""
    want = op == "forward" and not log and dtype != "float32"
    p = Problem(1024, 131072, 1, dtype, op, log)
    assert plans.stored_terms(p) == want
    assert plans.row_team(p, held=396).expression.endswith(",true >") == want
    assert plans.row_stream(Problem(64, 65536, 1, dtype, op, log)).expression.endswith(",true >") == want
    for shape in ((16, 8192, 1024), (1, 8192, 8192)):
        c = plans.cols_cluster(Problem(*shape, dtype, op, log), 256, plans.SMEM_MAX, (16,))
        assert plans.strip(c) == 128 and c.expression.endswith(",true >") == want
    team = plans.cols_team(Problem(4, 32768, 1024, dtype, op, log), held=396)
    assert team.expression.endswith(",true >") == want
    narrow = plans.cols_cluster(Problem(4, 32768, 1024, dtype, op, log), 256, plans.SMEM_MAX, (16,))
    assert plans.strip(narrow) < 128 and not narrow.expression.endswith(",true >")
    assert not plans.stored_terms(Problem(1024, 131071, 1, dtype, op, log))  # rows not in packs


@pytest.mark.parametrize("arch, dependent", [("sm_90", True), ("sm_100", True), ("sm_80", False)])
def test_cols_chunks_launches_merge_and_write_as_dependents(arch, dependent, monkeypatch):
    """colsChunks' runner: the partial pass a plain launch, the merge and the write programmatic dependents
    (cuLaunchKernelEx) on compute capability 9.0 and later, plain before; fake launchers record them."""
    import ctypes

    from bwlab.core import launch as core_launch
    from bwlab.workloads.softmax import launch

    class Fn:
        ptr = 1

    calls = []

    class Driver:  # plain launches go through CuPy's binding (core_launch._launchers), faked below
        def cuLaunchKernelEx(self, config, *a):
            at = ctypes.addressof(config._obj)
            attrs = ctypes.c_uint64.from_address(at + 40).value
            calls.append(("dependent", ctypes.c_int32.from_address(attrs).value))
            return 0

    monkeypatch.setattr(launch, "_function", lambda *a, **k: Fn())
    monkeypatch.setattr(core_launch, "_driver", lambda: Driver())
    monkeypatch.setattr(core_launch, "_launchers", lambda: (lambda *a: calls.append("plain"), None, RuntimeError))
    monkeypatch.setattr(core_launch, "_archs", {0: arch})
    p = Problem(4, 32768, 1024, "bfloat16", "backward")
    c = plans.cols_chunks(p)
    launch.runner(c, 4, 32768, 1024, 0)(0x1000, 0x2000, 0x3000, 0x4000, 0)
    assert calls == ["plain"] + ([("dependent", 6)] * 2 if dependent else ["plain"] * 2)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_cols_chunks_first_launch(dtype):
    """colsChunks' first launch: gradients in chunks of 1024 rows 128 bytes wide with evict-first loads
    where that leaves 1024 blocks or more (log-softmax's, a fold of g alone, 8 packs in flight at 4 blocks
    an SM; softmax's 4 at 2), else the write's geometry with the kernel's defaults (log-softmax gradients
    8 packs at 4 blocks). The write keeps its chunks, grid and blocks; the merge takes the first's chunks."""
    v = 16 // plans.ITEMSIZE[dtype]
    for op, log in (("forward", False), ("forward", True), ("backward", False), ("backward", True)):
        for shape, split in (((4, 32768, 1024), op == "backward"), ((1, 16384, 1024), False),
                             ((2, 40000, 1032), op == "backward")):
            p = Problem(*shape, dtype, op, log)
            c = plans.cols_chunks(p)
            rows = plans.chunk_rows(p)
            assert c.finish_block == (32, 8, 1) and c.extra[1] == rows
            assert c.finish_grid == (-(-shape[2] // (32 * v)) * -(-shape[1] // rows), shape[0], 1)
            deep = op == "backward" and log
            if split:
                assert c.block == (8, 32, 1) and c.extra[0] == 1024 and c.chunks == -(-shape[1] // 1024)
                assert c.grid == (-(-shape[2] // (8 * v)) * c.chunks, shape[0], 1)
                assert c.expression.endswith(",8,4,true >" if deep else ",4,2,true >"), c.expression
            else:
                assert c.block == (32, 8, 1) and c.grid == c.finish_grid and c.extra == (rows, rows)
                assert c.expression.endswith(",8,4 >") == deep and not c.expression.endswith(",true >")
            assert c.workspace_bytes == 8 * shape[0] * shape[2] * (c.chunks + 1)
    assert plans.chunk_split(Problem(4, 32768, 1024, dtype, "backward", aligned=False)) is None  # packs of 1
    grads = Problem(4, 32768, 1024, dtype, "backward")
    plain, rows = plans.cols_chunks(grads, plain=True), plans.chunk_rows(grads)
    assert not plain.expression.endswith(",true >") and plain.block == (32, 8, 1)
    assert plain.extra == (rows, rows) and plain.grid == plain.finish_grid and plain.chunks == 32768 // rows
    # the split wants 1024 blocks: cdiv(M, 8 packs) x chunks of 1024 rows x slices
    n = 4 if v == 8 else 2  # 16 x 16 x 4, or 32 x 16 x 2, is 1024 blocks
    assert plans.chunk_split(Problem(n, 16384, 1024, dtype, "backward")) == (1024, 8, 32)
    assert plans.chunk_split(Problem(n - 1, 16384, 1024, dtype, "backward")) is None


def test_cols_chunks_runner_gives_each_launch_its_geometry(monkeypatch):
    """colsChunks' runner: the first launch on the plan's grid, block and rows a chunk, the merge over the
    first launch's chunks, the write on finish_grid and finish_block with its own rows, its states after
    the first launch's [N][chunks][M] in the workspace."""
    from bwlab.core import launch as core_launch
    from bwlab.workloads.softmax import launch

    made, calls = [], []

    class Fake:
        def __init__(self, fn, grid, block, args, shared=0, cooperative=False, dependent=False):
            self.i = len(made)
            made.append((grid, block, [v for t, v in args if t != "ptr"]))

        def __call__(self, stream, *ptrs):
            calls.append((self.i, ptrs))

    monkeypatch.setattr(launch, "_function", lambda *a, **k: None)
    monkeypatch.setattr(core_launch, "PackedLaunch", Fake)
    monkeypatch.setattr(core_launch, "_archs", {0: "sm_90"})
    N, L, M = 2, 65536, 1024  # float32: 32 strips of 32 columns x 64 chunks read, 8 x 512 written
    c = plans.cols_chunks(Problem(N, L, M, "float32", "backward"))
    launch.runner(c, N, L, M, 0)(0x1000, 0x2000, 0x3000, 0x40000, 0)
    fin = 0x40000 + 8 * N * M * 64
    assert made == [((32 * 64, N, 1), (8, 32, 1), [N, L, M, 1024]), (c.merge_grid, (32, plans.MERGE_BY, 1), [N, M, 64]),
                    ((8 * 512, N, 1), (32, 8, 1), [N, L, M, 128])]
    assert calls == [(0, (0x1000, 0x2000, 0x40000)), (1, (0x40000, fin)), (2, (0x1000, 0x2000, 0x3000, fin))]
