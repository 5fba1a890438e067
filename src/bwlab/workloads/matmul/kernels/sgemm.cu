// The best rung: the warp-tiled cp.async pipeline of warptile.cu, with the overheads around
// its FMAs taken out, so that more of the issued instructions are FMAs.
//
// - Dynamic shared memory (the launcher raises the limit past 48 KiB), so that BK = 16 or 32
//   slices fit in 2 to 4 stages: one barrier and one round of copies per BK k-steps.
// - Interior blocks (the whole tile inside C, K a multiple of BK, 16-byte rows) run a
//   copy loop without bounds checks, from pointers computed once and advanced per slice;
//   blocks on an edge run the checked loop (zero-filled copies, skipped stores).
// - Stages addressed from one base pointer per stage: fragment reads use immediate offsets.
// - Fragments of step k + 1 are read from shared memory while step k's FMAs run.
// - Blocks visit C in groups of GROUP block rows, so the tiles of A and B that blocks
//   running together need are still in L2.
//
// Geometry as in warptile.cu: a block computes BM x BN of C with (BM / WM) x (BN / WN) warps;
// a warp WM x WN in WMITER x WNITER sub-tiles; a lane a 4 x 4 block of each sub-tile, so
// (4 WMITER) x (4 WNITER) results. A's tile is stored transposed (As[k][m], rows padded by 4).
// MINB: blocks per SM that __launch_bounds__ asks the register allocation to allow.
#include "mm.cuh"

template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int STAGES>
struct Sgemm {
  static constexpr int NWARPS = (BM / WM) * (BN / WN), THREADS = 32 * NWARPS;
  static constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER, LC = WSUBN / 4, LR = WSUBM / 4;
  static constexpr int TMR = 4 * WMITER, TNR = 4 * WNITER;
  static constexpr int LDA = BM + 4;                        // floats per row of the transposed A tile
  static constexpr int ASTAGE = BK * LDA, BSTAGE = BK * BN;  // floats per stage
  static constexpr int SMEM = STAGES * (ASTAGE + BSTAGE) * 4;
  static constexpr int MINB = TMR * TNR > 64 ? 1 : 2;  // 2 x 256 threads: 128 registers at 64 results
  // copies per thread and slice: A element by element, B 16 bytes at a time
  static constexpr int A_COPIES = BM * BK / THREADS, A_ROWS = THREADS / BK;
  static constexpr int B_COPIES = BK * BN / 4 / THREADS, B_ROWS = THREADS / (BN / 4);
  static constexpr int GROUP = 8;
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % WMITER == 0 && WN % WNITER == 0, "tiles must nest");
  static_assert(WSUBM % 4 == 0 && WSUBN % 4 == 0 && LR * LC == 32, "a sub-tile is 32 lanes of 4 x 4");
  static_assert(THREADS % BK == 0 && (BM * BK) % THREADS == 0, "A: whole rows of copies per pass");
  static_assert(THREADS % (BN / 4) == 0 && (BK * BN / 4) % THREADS == 0, "B: whole rows of copies per pass");
  static_assert(STAGES >= 2, "a pipeline needs two stages");
};

template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int STAGES>
__global__ void __launch_bounds__((Sgemm<BM, BN, BK, WM, WN, WMITER, WNITER, STAGES>::THREADS),
                                  (Sgemm<BM, BN, BK, WM, WN, WMITER, WNITER, STAGES>::MINB))
sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  typedef Sgemm<BM, BN, BK, WM, WN, WMITER, WNITER, STAGES> P;
  constexpr int LDA = P::LDA;
  extern __shared__ __align__(16) float smem[];
  float* const As = smem;                          // [STAGES][BK][LDA]
  float* const Bs = smem + STAGES * P::ASTAGE;     // [STAGES][BK][BN]

  // Grouped order: GROUP block rows walked column by column, then the next group.
  const int gx = gridDim.x, gy = gridDim.y;
  const int id = blockIdx.y * gx + blockIdx.x;
  const int per_group = P::GROUP * gx;
  const int first_row = (id / per_group) * P::GROUP;
  const int rows = min(P::GROUP, gy - first_row);
  const int by = first_row + (id % per_group) % rows, bx = (id % per_group) / rows;
  const int m0 = by * BM, n0 = bx * BN;

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wr = warp / (BN / WN), wc = warp % (BN / WN);
  const int tr = lane / P::LC, tc = lane % P::LC;
  const int tiles = (K + BK - 1) / BK;
  const bool vecB = (N % 4 == 0) && aligned16(B);
  const bool interior = m0 + BM <= M && n0 + BN <= N && K % BK == 0 && vecB;

  // This thread's copy slots: A rows ar + j * A_ROWS, column ac; B rows br + j * B_ROWS, columns bc..bc+3.
  const int ar = tid / BK, ac = tid % BK;
  const int br = tid / (BN / 4), bc = (tid % (BN / 4)) * 4;
  const unsigned as0 = smem_addr(As + ac * LDA + ar), bs0 = smem_addr(Bs + br * BN + bc);

  float acc[P::TMR][P::TNR];
#pragma unroll
  for (int i = 0; i < P::TMR; ++i)
#pragma unroll
    for (int j = 0; j < P::TNR; ++j) acc[i][j] = 0.f;

  // Slice t into stage s. Interior: no checks, pointers from the slice's first row.
  auto load = [&](int t, int s) {
    const int k0 = t * BK;
    const unsigned sa = as0 + s * P::ASTAGE * 4, sb = bs0 + s * P::BSTAGE * 4;
    if (interior) {
      const float* ga = A + (i64)(m0 + ar) * K + k0 + ac;
      const float* gb = B + (i64)(k0 + br) * N + n0 + bc;
#pragma unroll
      for (int j = 0; j < P::A_COPIES; ++j) cp_async4(sa + j * P::A_ROWS * 4, ga + (i64)j * P::A_ROWS * K, true);
#pragma unroll
      for (int j = 0; j < P::B_COPIES; ++j) cp_async16(sb + j * P::B_ROWS * BN * 4, gb + (i64)j * P::B_ROWS * N, true);
    } else {
#pragma unroll
      for (int j = 0; j < P::A_COPIES; ++j) {
        const int m = m0 + ar + j * P::A_ROWS, k = k0 + ac;
        const bool ok = m < M && k < K;
        cp_async4(sa + j * P::A_ROWS * 4, ok ? A + (i64)m * K + k : A, ok);
      }
#pragma unroll
      for (int j = 0; j < P::B_COPIES; ++j) {
        const int k = k0 + br + j * P::B_ROWS, n = n0 + bc;
        const unsigned d = sb + j * P::B_ROWS * BN * 4;
        if (vecB) {  // N % 4 == 0 and n % 4 == 0: n < N means all four are inside
          const bool ok = k < K && n < N;
          cp_async16(d, ok ? B + (i64)k * N + n : B, ok);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const bool ok = k < K && n + e < N;
            cp_async4(d + 4 * e, ok ? B + (i64)k * N + n + e : B, ok);
          }
        }
      }
    }
  };

  // One slice from stage s; fragments of step k + 1 read while step k's FMAs run.
  auto compute = [&](int s) {
    const float* a_s = As + s * P::ASTAGE + wr * WM + tr * 4;
    const float* b_s = Bs + s * P::BSTAGE + wc * WN + tc * 4;
    float a[2][P::TMR], b[2][P::TNR];
    auto frag = [&](int k, float* fa, float* fb) {
#pragma unroll
      for (int i = 0; i < WMITER; ++i) {
        const float4 v = *reinterpret_cast<const float4*>(a_s + k * LDA + i * P::WSUBM);
        fa[4 * i] = v.x; fa[4 * i + 1] = v.y; fa[4 * i + 2] = v.z; fa[4 * i + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < WNITER; ++j) {
        const float4 v = *reinterpret_cast<const float4*>(b_s + k * BN + j * P::WSUBN);
        fb[4 * j] = v.x; fb[4 * j + 1] = v.y; fb[4 * j + 2] = v.z; fb[4 * j + 3] = v.w;
      }
    };
    frag(0, a[0], b[0]);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      if (k + 1 < BK) frag(k + 1, a[(k + 1) & 1], b[(k + 1) & 1]);
#pragma unroll
      for (int i = 0; i < P::TMR; ++i)
#pragma unroll
        for (int j = 0; j < P::TNR; ++j) acc[i][j] = fmaf(a[k & 1][i], b[k & 1][j], acc[i][j]);
    }
  };

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) load(s, s);
    cp_async_commit();  // one group per slice, empty past the end: the wait count stays exact
  }
  int rs = 0, ws = STAGES - 1;  // the stage read now, the stage written next
  for (int t = 0; t < tiles; ++t) {
    cp_async_wait<STAGES - 2>();  // this thread's copies of slice t have landed
    __syncthreads();              // everyone's have, and everyone is done with slice t - 1
    if (t + STAGES - 1 < tiles) load(t + STAGES - 1, ws);  // into the stage slice t - 1 used
    cp_async_commit();
    compute(rs);
    rs = rs == STAGES - 1 ? 0 : rs + 1;
    ws = ws == STAGES - 1 ? 0 : ws + 1;
  }

  // Store: lane (tr, tc) holds rows tr*4..+3 and columns tc*4..+3 of each sub-tile.
  const bool vecC = (N % 4 == 0) && aligned16(C);
#pragma unroll
  for (int i = 0; i < WMITER; ++i) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int m = m0 + wr * WM + i * P::WSUBM + tr * 4 + r;
      if (m >= M) continue;
#pragma unroll
      for (int j = 0; j < WNITER; ++j) {
        const int n = n0 + wc * WN + j * P::WSUBN + tc * 4;
        float* p = C + (i64)m * N + n;
        if (vecC && n < N) {
          *reinterpret_cast<float4*>(p) = make_float4(acc[4 * i + r][4 * j], acc[4 * i + r][4 * j + 1],
                                                      acc[4 * i + r][4 * j + 2], acc[4 * i + r][4 * j + 3]);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (n + e < N) p[e] = acc[4 * i + r][4 * j + e];
        }
      }
    }
  }
}
