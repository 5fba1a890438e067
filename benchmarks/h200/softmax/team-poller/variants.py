"""Copies of the package with colsTeam's prefetch at the meeting moved, for probe.py:
`python3 variants.py NAME DEST` copies ../../../../src to DEST and patches it (NAME: VARIANTS).
- base: unchanged;
- free0: warp 0, whose thread 0 polls the team's count, issues none of the bulk prefetches (the
  other warps take its rows), so that the poll does not wait behind them;
- pf32: float32 softmax and log-softmax prefetch the next strip's rows at each meeting, as 16-bit do;
- pfall: so do the gradients on teams that hold both inputs (not the lean ones);
- pairs: the teams that start together (team_phase: g % 3 alike) take neighbouring strips, so that their
  reads of the same rows fall side by side (team g's first strip is its place in phase order);
- rpf: rowTeam (rowstream.cu) prefetches its segment of the next row into the L2 while warp 0 meets
  (bulk prefetches of 4 KiB by the other warps' threads), as 16-bit colsTeam does."""
import pathlib
import shutil
import sys

SRC = pathlib.Path(__file__).resolve().parents[4] / "src"
KERNEL = "bwlab/workloads/softmax/kernels/colscluster.cu"
ROWS = "bwlab/workloads/softmax/kernels/rowstream.cu"
MEET = "    const State f = Op::finish(meet.all(s, part, scratch, row, j));\n"
RPF = ("    if constexpr (Meet::TEAM) {  // the next row's segment into the L2 while warp 0 meets\n"
       "      const i64 bytes = (last - first) * 16, c = ((i64)threadIdx.x - 32) * 4096;\n"
       "      if (threadIdx.x >= 32 && row + G < N && c < bytes) {\n"
       "        const unsigned n = (unsigned)min((i64)4096, bytes - c);\n"
       "        prefetch_l2(a + (row + G) * L + first * V + c / (i64)sizeof(T), n);\n"
       "        if (Op::IN == 2) prefetch_l2(b + (row + G) * L + first * V + c / (i64)sizeof(T), n);\n"
       "      }\n"
       "    }\n")
VARIANTS = ["base", "free0", "pf32", "pfall", "pairs", "rpf"]
LOOP = "    for (int r = threadIdx.x; r < rows; r += THREADS) {\n      prefetch_l2(a + base + (i64)r * M, bytes);\n"
PF = "  constexpr bool PREFETCH = sizeof(T) == 2 && Op::IN == 1;\n"
PF_BY = {"pf32": "  constexpr bool PREFETCH = Op::IN == 1;\n", "pfall": "  constexpr bool PREFETCH = !LEAN;\n"}
FIRST = "  i64 t = team;\n"
PAIRS = ("  // the teams of one phase (g % 3) on neighbouring strips\n"
         "  const i64 ph = team % 3, n0 = (G + 2) / 3, n1 = (G + 1) / 3;\n"
         "  i64 t = (ph == 0 ? 0 : ph == 1 ? n0 : n0 + n1) + team / 3;\n")
FREE0 = ("    for (int r = (int)threadIdx.x - 32; r < rows; r += THREADS - 32) {  // not warp 0 (the poller's)\n"
         "      if (r < 0) break;\n      prefetch_l2(a + base + (i64)r * M, bytes);\n")


def patched(text, name):
    if name == "base":
        return text
    if name == "pairs":
        assert text.count(FIRST) == 1
        return text.replace(FIRST, PAIRS)
    if name in PF_BY:
        assert text.count(PF) == 1
        return text.replace(PF, PF_BY[name])
    assert name == "free0" and text.count(LOOP) == 1
    return text.replace(LOOP, FREE0)


def main(name, dest):
    dest = pathlib.Path(dest)
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(SRC, dest, ignore=shutil.ignore_patterns("__pycache__"))
    if name == "rpf":
        k = dest / ROWS
        text = k.read_text()
        assert text.count(MEET) == 1
        k.write_text(text.replace(MEET, RPF + MEET))
        return
    k = dest / KERNEL
    k.write_text(patched(k.read_text(), name))


if __name__ == "__main__":
    main(*sys.argv[1:])
