"""What colsCluster's access pattern costs by itself (run as `PYTHONPATH=src python3
benchmarks/h200/softmax/sweeps/stripcopy.py`): a copy of a [N, L, M] float32 tensor in
colsCluster's order, with no arithmetic. A cluster of C blocks owns a strip W bytes wide down
the whole L axis of one slice; each block copies its L / C rows of the strip into shared
memory with asynchronous copies, waits for all of them, (optionally) meets its cluster twice
as colsCluster does, and writes them back out. Timed beside a device-to-device copy of the same
bytes; each output is checked against the input first."""
import cupy as cp

from bwlab.core.launch import allow_large_clusters

SRC = r"""
typedef long long i64;
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
template <int C, int W, int THREADS, int SYNC>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(THREADS)
stripCopy(const float* __restrict__ a, float* __restrict__ y, i64 N, i64 L, i64 M) {
  constexpr int P = W / 16, COLS = W / 4;
  extern __shared__ __align__(16) unsigned char smem[];
  float* sa = reinterpret_cast<float*>(smem);
  unsigned rank;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const i64 strip = blockIdx.x / C, lc = (L + C - 1) / C, r0 = rank * lc;
  const int rows = (int)max((i64)0, min(L, r0 + lc) - r0);
  const i64 col0 = strip * COLS;
  for (i64 n = blockIdx.y; n < N; n += gridDim.y) {
    const i64 base = (n * L + r0) * M + col0;
    for (int q = threadIdx.x; q < rows * P; q += THREADS) {
      const float* src = a + base + (i64)(q / P) * M + (q % P) * 4;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem_addr(sa + q * 4)), "l"(src) : "memory");
    }
    asm volatile("cp.async.commit_group;\n cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    if (SYNC) {
      asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::: "memory");
      asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::: "memory");
    }
    for (int q = threadIdx.x; q < rows * P; q += THREADS)
      *reinterpret_cast<float4*>(y + base + (i64)(q / P) * M + (q % P) * 4) =
          *reinterpret_cast<const float4*>(sa + q * 4);
    __syncthreads();
  }
}
"""

SHAPES = [(16, 8192, 1024), (1, 8192, 8192)]
# (cluster, strip bytes, threads, cluster barriers)
GEOMS = [(16, 128, 128, 0), (16, 128, 128, 1), (16, 128, 256, 1), (8, 128, 256, 0), (4, 128, 256, 0),
         (16, 256, 256, 0), (16, 512, 256, 0), (8, 256, 256, 0), (16, 64, 128, 0)]


def timed(fn, reps=25, batch=4):
    fn()
    cp.cuda.Device().synchronize()
    ms = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        for _ in range(batch):
            fn()
        b.record()
        b.synchronize()
        ms.append(cp.cuda.get_elapsed_time(a, b) / batch)
    return sorted(ms)[len(ms) // 2]


def main():
    names = [f"stripCopy<{C},{W},{T},{S}>" for C, W, T, S in GEOMS]
    mod = cp.RawModule(code=SRC, options=("-std=c++17",), name_expressions=names)
    for N, L, M in SHAPES:
        x = cp.random.random((N, L, M), dtype=cp.float32)
        y = cp.empty_like(x)
        moved = 2 * x.nbytes
        copy = moved / timed(lambda: y.data.copy_from_device(x.data, x.nbytes)) / 1e6
        print(f"[{N}, {L}, {M}] float32 cudaMemcpy {copy:6.0f} GB/s")
        for (C, W, T, S), name in zip(GEOMS, names):
            fn = mod.get_function(name)
            lc = -(-L // C)
            smem = lc * W
            if smem > 227 * 1024:
                continue
            fn.max_dynamic_shared_size_bytes = smem
            if C > 8:
                allow_large_clusters(fn)
            grid = (M * 4 // W * C, N, 1)
            args = (x, y, cp.int64(N), cp.int64(L), cp.int64(M))
            y.fill(cp.nan)
            fn(grid, (T, 1, 1), args, shared_mem=smem)
            ok = bool((y == x).all())
            ms = timed(lambda: fn(grid, (T, 1, 1), args, shared_mem=smem))
            gb = moved / ms / 1e6
            print(f"  C{C:<2} W{W:<3} t{T:<3} cluster barriers {'yes' if S else 'no ':3s} smem {smem // 1024:3d}K "
                  f"{gb:6.0f} GB/s {100 * gb / copy:5.1f}% of a copy  ok={ok}", flush=True)


if __name__ == "__main__":
    main()
