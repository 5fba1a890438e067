"""The bench's own steps for one case (bwlab.lab.bench.bench_case: the API checked and timed, then
cudaMemcpy of the case's input into `cupy.empty_like` of it, then the peers), three times in a row,
each case's cudaMemcpy figure printed, then the same copy timed on its own with every sample in
order (run from this folder as `PYTHONPATH=../../../../src python3 flow.py`)."""
import cupy

from bwlab.core.workload import Case
from bwlab.lab.bench import bench_case
from bwlab.workloads import get

from placement import samples

MiB = 1 << 20


def main():
    w = get("softmax")
    for shape, dtype, peers in (((64, 4194304), "bfloat16", []), ((64, 4194304), "bfloat16", ["torch"]),
                                ((64, 4194304), "float32", []), ((16, 8192, 1024), "bfloat16", [])):
        case = Case(shape, dtype, (("dim", -1 if len(shape) == 2 else 1),))
        for rnd in (1, 2, 3):
            recs = bench_case(w, case, peers, None, 3, 60 * MiB, 0, lambda m: None)
            got = {r.name: r for r in recs}
            m, a = got["cudaMemcpy"], got["bwlab"]
            print(f"{str(shape):18} {dtype:9} peers={peers} #{rnd}: cudaMemcpy {m.gbs:5.0f} GB/s (median "
                  f"{m.timing['median_ms']:.4f} ms, min {m.timing['min_ms']:.4f}), bwlab {a.gbs:5.0f} GB/s", flush=True)
        x = w.make_input(case, 0)
        src = x.reshape(-1).view(cupy.uint8)
        dst = cupy.empty_like(src)
        from bwlab.core import ceilings
        ms = samples(ceilings.memcpy(src.data.ptr, dst.data.ptr, src.nbytes))
        print(f"   then on its own, 30 in order: {[round(v, 3) for v in ms]}", flush=True)
        x = src = dst = None
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
