"""The runs of width.py (and build.py): name -> (shapes with their dim, dtypes, ops, strip widths)."""
FIRST4 = [((4, 32768, 1024), 1), ((32768, 4096), 0), ((8, 16384, 1024), 1), ((16, 8192, 1024), 1)]
BOTH, ALL = ("float32", "bfloat16"), ("fwd", "log", "bwd")
RUNS = {
    "narrow": (FIRST4, BOTH, ALL, (128, 64, 32)),                     # width-64-32.txt
    "wide": (FIRST4 + [((8192, 8192), 0)], BOTH, ALL, (128, 256)),     # width-256.txt
    # float32 strips of 256 bytes where rows lie far apart, and 16-bit softmax on teams down 8192 rows
    "pitch": ([((8192, 8192), 0), ((2, 8192, 8192), 1), ((16384, 8192), 0), ((4096, 8192), 0),
               ((4096, 16384), 0), ((8192, 4096), 0)], ("float32",), ALL, (128, 256)),
    # float32 rows 8 KiB apart (below team_width's 16 KiB)
    "pitch8k": ([((4, 8192, 2048), 1), ((16, 4096, 2048), 1), ((8, 8192, 2048), 1)], ("float32",), ALL, (128, 256)),
    "rows8k": ([((16, 8192, 1024), 1), ((32, 8192, 512), 1), ((8, 8192, 2048), 1), ((2, 8192, 8192), 1),
                ((8192, 8192), 0)], ("bfloat16",), ("fwd",), (128,)),
}


def expressions(run, problem, cols_team):
    shapes, dtypes, ops, widths = RUNS[run]
    return sorted({c.expression for s, d in shapes for t in dtypes for op in ops for W in widths
                   if (c := cols_team(problem(s, d, t, op), W=W)) is not None})
