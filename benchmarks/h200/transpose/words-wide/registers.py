"""Registers and spills of every tileWholeWords tile the probes ran, compiled for sm_90 by this
machine's NVRTC (no GPU needed). Run from the repository root with PYTHONPATH=src."""
from bwlab.core import build
from bwlab.workloads.transpose import plans

EXPRS = ["tileWholeWords<1,256,124,512,3>", "tileWholeWords<1,256,248,512>", "tileWholeWords<1,128,248,256>",
         "tileWholeWords<1,384,124,768,2>", "tileWholeWords<1,160,248,384,3>", "tileWholeWords<2,128,62,256,5>",
         "tileWholeWords<2,128,124,256>", "tileWholeWords<2,128,124,256,5>", "tileWholeWords<2,192,124,384,3>",
         "tileWholeWords<2,256,124,512>"]


def main() -> None:
    from cuda.bindings import nvrtc

    print("NVRTC %d.%d" % nvrtc.nvrtcVersion()[1:])
    res = build.compile_each(plans.WHOLE, EXPRS, "sm_90").resources
    for e in EXPRS:
        r = res[e]
        print(f"{e:34} registers {r.registers:3d}  spill stores {r.spill_stores:3d} bytes  "
              f"static shared {r.smem_bytes}")


if __name__ == "__main__":
    main()
