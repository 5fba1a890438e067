"""What the order of the strips and the kind of copy cost colsCluster's access pattern by itself (run
as `PYTHONPATH=src python3 benchmarks/h200/softmax/strip-order/probe.py`): a copy of a [N, L, M]
float32 tensor in colsCluster's order, no arithmetic, as ../sweeps/stripcopy.py, with
- the strips of a slice taken in another order (strip = perm[cluster]): `linear` as colsCluster,
  `spread Q` (consecutive clusters Q regions of the row apart), `pairs Q` (the same by pairs of
  neighbouring strips, so that the L2's 256-byte fetch still serves two clusters at once), `random`;
- each row segment copied in as 16-byte asynchronous copies (`cp16`, `cp16+256`: with the L2's
  256-byte fetch, as colsCluster's 128-byte strips), as one bulk copy a row (`bulk`, the TMA
  engine, completing on an mbarrier), or bulk copies in and bulk stores out (`bulk+st`).
Each block's share lands, the cluster meets twice (as colsCluster), and the share is written out.
Timed beside a device-to-device copy of the same bytes; every output is checked first."""
import cupy as cp
import numpy as np

from bwlab.core.launch import allow_large_clusters

SRC = r"""
typedef long long i64;
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
// MODE 0: cp.async 16 bytes; 1: the same asking the L2 for 256 bytes; 2: one bulk copy a row,
// completing on an mbarrier; 3: bulk copies in, bulk stores out.
template <int C, int W, int THREADS, int MODE>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(THREADS)
stripCopy(const float* __restrict__ a, float* __restrict__ y, const int* __restrict__ perm, i64 N, i64 L, i64 M) {
  constexpr int P = W / 16, COLS = W / 4;
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ __align__(8) unsigned long long bar;
  float* sa = reinterpret_cast<float*>(smem);
  unsigned rank;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const i64 strip = perm[blockIdx.x / C], lc = (L + C - 1) / C, r0 = rank * lc;
  const int rows = (int)max((i64)0, min(L, r0 + lc) - r0);
  const i64 col0 = strip * COLS;
  const unsigned mb = smem_addr(&bar);
  if (MODE >= 2) {
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(mb) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
  }
  unsigned phase = 0;
  for (i64 n = blockIdx.y; n < N; n += gridDim.y, phase ^= 1) {
    const i64 base = (n * L + r0) * M + col0;
    if (MODE < 2) {
      for (int q = threadIdx.x; q < rows * P; q += THREADS) {
        const float* src = a + base + (i64)(q / P) * M + (q % P) * 4;
        if (MODE == 1)
          asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" :: "r"(smem_addr(sa + q * 4)), "l"(src) : "memory");
        else
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem_addr(sa + q * 4)), "l"(src) : "memory");
      }
      asm volatile("cp.async.commit_group;\n cp.async.wait_group 0;" ::: "memory");
      __syncthreads();
    } else {
      if (threadIdx.x == 0)
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(mb), "r"(rows * W) : "memory");
      __syncthreads();
      for (int r = threadIdx.x; r < rows; r += THREADS)
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(smem_addr(sa + r * COLS)), "l"(a + base + (i64)r * M), "n"(W), "r"(mb) : "memory");
      unsigned done = 0;
      while (!done)
        asm volatile("{ .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(mb), "r"(phase) : "memory");
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::: "memory");
    asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (MODE == 3) {
      for (int r = threadIdx.x; r < rows; r += THREADS)
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     :: "l"(y + base + (i64)r * M), "r"(smem_addr(sa + r * COLS)), "n"(W) : "memory");
      asm volatile("cp.async.bulk.commit_group;\n cp.async.bulk.wait_group.read 0;" ::: "memory");
    } else {
      for (int q = threadIdx.x; q < rows * P; q += THREADS)
        *reinterpret_cast<float4*>(y + base + (i64)(q / P) * M + (q % P) * 4) =
            *reinterpret_cast<const float4*>(sa + q * 4);
    }
    __syncthreads();
  }
}

// The share split between registers and shared memory: a thread's first RP packs (q = t + k *
// THREADS, row-major packs of the share) are loaded into its registers, the rest copied into
// shared memory (cp.async, the L2's 256-byte fetch); the cluster meets twice, then both go out.
template <int C, int W, int THREADS, int RP, int MINB>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(THREADS, MINB)
stripRegs(const float* __restrict__ a, float* __restrict__ y, const int* __restrict__ perm, i64 N, i64 L, i64 M) {
  constexpr int P = W / 16, COLS = W / 4;
  extern __shared__ __align__(128) unsigned char smem[];
  float* sa = reinterpret_cast<float*>(smem);
  unsigned rank;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const i64 strip = perm[blockIdx.x / C], lc = (L + C - 1) / C, r0 = rank * lc;
  const int rows = (int)max((i64)0, min(L, r0 + lc) - r0);
  const i64 col0 = strip * COLS;
  constexpr int HELD = RP * THREADS;
  for (i64 n = blockIdx.y; n < N; n += gridDim.y) {
    const i64 base = (n * L + r0) * M + col0;
    for (int q = HELD + threadIdx.x; q < rows * P; q += THREADS) {
      const float* src = a + base + (i64)(q / P) * M + (q % P) * 4;
      asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" :: "r"(smem_addr(sa + (q - HELD) * 4)), "l"(src) : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    float4 v[RP > 0 ? RP : 1];
#pragma unroll
    for (int k = 0; k < RP; ++k) {
      const int q = threadIdx.x + k * THREADS;
      if (q < rows * P) v[k] = __ldcg(reinterpret_cast<const float4*>(a + base + (i64)(q / P) * M + (q % P) * 4));
    }
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    float s = 0.f;  // every register used before the meeting (as a fold would)
#pragma unroll
    for (int k = 0; k < RP; ++k) s += v[k].x;
    __syncthreads();
    asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::: "memory");
    asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::: "memory");
#pragma unroll
    for (int k = 0; k < RP; ++k) {
      const int q = threadIdx.x + k * THREADS;
      if (q < rows * P) *reinterpret_cast<float4*>(y + base + (i64)(q / P) * M + (q % P) * 4) = v[k];
    }
    for (int q = HELD + threadIdx.x; q < rows * P; q += THREADS)
      *reinterpret_cast<float4*>(y + base + (i64)(q / P) * M + (q % P) * 4) =
          *reinterpret_cast<const float4*>(sa + (q - HELD) * 4);
    if (s == 12345.f) y[0] = s;  // never: keeps the sum live
    __syncthreads();
  }
}
"""

# float32 views: [16, 8192, 1024] and [8192, 8192] float32, then the same bytes as bfloat16 has them
SHAPES = [(16, 8192, 1024), (1, 8192, 8192), (16, 8192, 512), (1, 8192, 4096)]
MODES = {0: "cp16", 1: "cp16+256", 2: "bulk", 3: "bulk+st"}
# (cluster, strip bytes, threads, mode)
GEOMS = [(16, 128, 128, 1), (16, 128, 128, 2), (16, 128, 128, 3), (16, 256, 256, 0), (16, 256, 256, 3),
         (8, 128, 128, 3)]
# stripRegs: (cluster, strip bytes, threads, packs in registers a thread, blocks an SM asked for)
REGS = [(16, 128, 128, 0, 3), (16, 128, 128, 16, 6), (16, 128, 128, 16, 4), (16, 256, 128, 32, 3),
        (8, 128, 128, 32, 3), (16, 256, 256, 16, 2), (8, 128, 256, 16, 2)]


def orders(A: int, rng):
    out = {"linear": np.arange(A)}
    for q in (4, 8, 16):
        if A % q == 0 and A // q >= 2:
            k = np.arange(A)
            out[f"spread {q}"] = (k % q) * (A // q) + k // q
        if A % (2 * q) == 0 and A // (2 * q) >= 2:
            k = np.arange(A)
            pk = k // 2
            out[f"pairs {q}"] = 2 * ((pk % q) * (A // 2 // q) + pk // q) + k % 2
    out["random"] = rng.permutation(A)
    return out


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


def regs_main():
    names = [f"stripRegs<{C},{W},{T},{R},{B}>" for C, W, T, R, B in REGS]
    mod = cp.RawModule(code=SRC, options=("-std=c++17",), name_expressions=names)
    print("\nshares split between registers and shared memory (linear order):")
    for N, L, M in SHAPES:
        x = cp.random.random((N, L, M), dtype=cp.float32)
        y = cp.empty_like(x)
        moved = 2 * x.nbytes
        copy = moved / timed(lambda: y.data.copy_from_device(x.data, x.nbytes)) / 1e6
        print(f"[{N}, {L}, {M}] float32 cudaMemcpy {copy:6.0f} GB/s", flush=True)
        for (C, W, T, R, B), name in zip(REGS, names):
            fn = mod.get_function(name)
            smem = max(0, -(-L // C) * W - R * T * 16)
            if smem > 227 * 1024:
                continue
            fn.max_dynamic_shared_size_bytes = smem
            if C > 8:
                allow_large_clusters(fn)
            A = M * 4 // W
            p = cp.arange(A, dtype=cp.int32)
            grid = (A * C, N, 1)
            args = (x, y, p, cp.int64(N), cp.int64(L), cp.int64(M))
            y.fill(cp.nan)
            fn(grid, (T, 1, 1), args, shared_mem=smem)
            ok = bool((y == x).all())
            ms = timed(lambda: fn(grid, (T, 1, 1), args, shared_mem=smem))
            gb = moved / ms / 1e6
            print(f"  C{C:<2} W{W:<3} t{T:<3} regs {R:2d} packs (min {B} an SM, {fn.num_regs} registers) smem {smem // 1024:3d}K "
                  f"{gb:6.0f} GB/s {100 * gb / copy:5.1f}% of a copy  ok={ok}", flush=True)


def main():
    names = [f"stripCopy<{C},{W},{T},{m}>" for C, W, T, m in GEOMS]
    mod = cp.RawModule(code=SRC, options=("-std=c++17",), name_expressions=names)
    rng = np.random.default_rng(0)
    rows = []
    for N, L, M in SHAPES:
        x = cp.random.random((N, L, M), dtype=cp.float32)
        y = cp.empty_like(x)
        moved = 2 * x.nbytes
        copy = moved / timed(lambda: y.data.copy_from_device(x.data, x.nbytes)) / 1e6
        print(f"[{N}, {L}, {M}] float32 cudaMemcpy {copy:6.0f} GB/s", flush=True)
        for (C, W, T, m), name in zip(GEOMS, names):
            fn = mod.get_function(name)
            smem = -(-L // C) * W
            fn.max_dynamic_shared_size_bytes = smem
            if C > 8:
                allow_large_clusters(fn)
            A = M * 4 // W
            for oname, perm in orders(A, rng).items():
                p = cp.asarray(perm.astype(np.int32))
                grid = (A * C, N, 1)
                args = (x, y, p, cp.int64(N), cp.int64(L), cp.int64(M))
                y.fill(cp.nan)
                fn(grid, (T, 1, 1), args, shared_mem=smem)
                ok = bool((y == x).all())
                ms = timed(lambda: fn(grid, (T, 1, 1), args, shared_mem=smem))
                gb = moved / ms / 1e6
                rows.append((f"[{N},{L},{M}]", C, W, T, MODES[m], oname, 100 * gb / copy, ok))
                print(f"  C{C:<2} W{W:<3} t{T:<3} {MODES[m]:8s} {oname:10s} {gb:6.0f} GB/s "
                      f"{100 * gb / copy:5.1f}% of a copy  ok={ok}", flush=True)
    print("\nbest order per shape and copy (% of a copy):")
    for shape in dict.fromkeys(r[0] for r in rows):
        for C, W, T, m in GEOMS:
            mine = [r for r in rows if r[0] == shape and r[1:5] == (C, W, T, MODES[m])]
            lin = next(r for r in mine if r[5] == "linear")
            best = max(mine, key=lambda r: r[6])
            print(f"  {shape:16s} C{C:<2} W{W:<3} t{T:<3} {MODES[m]:8s} linear {lin[6]:5.1f}  best {best[6]:5.1f} ({best[5]})")


if __name__ == "__main__":
    import sys
    regs_main() if sys.argv[1:] == ["regs"] else main()
