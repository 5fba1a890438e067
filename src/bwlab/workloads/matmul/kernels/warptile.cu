// Warp tiling, then asynchronous copies in a multi-stage pipeline.
//
// A block computes a BM x BN tile of C with (BM / WM) x (BN / WN) warps; each warp a WM x WN
// warp tile, walked as WMITER x WNITER sub-tiles; in each sub-tile the 32 lanes form a
// (WSUBM / 4) x (WSUBN / 4) grid and each lane computes a 4 x 4 block. A lane thus holds
// (4 WMITER) x (4 WNITER) results, and per step k reads WMITER float4 of A and WNITER float4
// of B from shared memory: a warp's reads of A cover one contiguous 128-byte run (broadcast
// to its columns) and of B one 64-byte run, so fragment reads never conflict on banks.
// A's tile is stored transposed (As[k][m], rows padded by 4 floats).
//
// STAGES == 1: each BK-wide slice is loaded through registers (16-byte global loads where
//              the rows allow), then computed; two barriers per slice, no overlap.
// STAGES >= 2: global -> shared copies with cp.async, STAGES - 1 slices in flight while one
//              is computed; one barrier per slice. A's elements are copied 4 bytes at a time
//              into the transposed tile; B's 16 bytes at a time when N % 4 == 0 (else 4).
//              Out-of-bounds elements are zero-filled by the copy itself (source size 0).
// Any M, N, K: stores past an edge are skipped; float4 stores where the row allows.
#include "mm.cuh"

template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int STAGES>
struct WarpTile {
  static constexpr int NWARPS = (BM / WM) * (BN / WN), THREADS = 32 * NWARPS;
  static constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER, LC = WSUBN / 4, LR = WSUBM / 4;
  static constexpr int TMR = 4 * WMITER, TNR = 4 * WNITER;  // results per lane: TMR x TNR
  static constexpr int PA = 4;
  // blocks per SM the registers must allow: 2 x 256 threads caps a lane at 128 registers
  static constexpr int MINB = THREADS >= 512 ? 1 : THREADS >= 256 ? 2 : 3;
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % WMITER == 0 && WN % WNITER == 0, "tiles must nest");
  static_assert(WSUBM % 4 == 0 && WSUBN % 4 == 0 && LR * LC == 32, "a sub-tile is 32 lanes of 4 x 4");
  static_assert(BK % 4 == 0 && (BM * BK) % THREADS == 0 && (BK * BN / 4) % THREADS == 0 &&
                (BM * BK / 4) % THREADS == 0, "each thread copies whole slots");
  static_assert(STAGES >= 1, "stages");
};

template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int STAGES>
__global__ void __launch_bounds__((WarpTile<BM, BN, BK, WM, WN, WMITER, WNITER, STAGES>::THREADS),
                                  (WarpTile<BM, BN, BK, WM, WN, WMITER, WNITER, STAGES>::MINB))
warpTile(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  typedef WarpTile<BM, BN, BK, WM, WN, WMITER, WNITER, STAGES> P;
  constexpr int THREADS = P::THREADS, LC = P::LC, WSUBM = P::WSUBM, WSUBN = P::WSUBN, PA = P::PA;
  __shared__ __align__(16) float As[STAGES][BK][BM + PA];
  __shared__ __align__(16) float Bs[STAGES][BK][BN];

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wr = warp / (BN / WN), wc = warp % (BN / WN);
  const int tr = lane / LC, tc = lane % LC;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const bool vecB = (N % 4 == 0) && aligned16(B);
  const int tiles = (K + BK - 1) / BK;

  float acc[P::TMR][P::TNR];
#pragma unroll
  for (int i = 0; i < P::TMR; ++i)
#pragma unroll
    for (int j = 0; j < P::TNR; ++j) acc[i][j] = 0.f;

  // One BK-wide slice from its shared-memory stage: BK steps of (4 WMITER) x (4 WNITER) FMAs.
  auto compute = [&](int s) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[P::TMR], b[P::TNR];
#pragma unroll
      for (int i = 0; i < WMITER; ++i) {
        const float4 t = *reinterpret_cast<const float4*>(&As[s][k][wr * WM + i * WSUBM + tr * 4]);
        a[4 * i] = t.x; a[4 * i + 1] = t.y; a[4 * i + 2] = t.z; a[4 * i + 3] = t.w;
      }
#pragma unroll
      for (int j = 0; j < WNITER; ++j) {
        const float4 t = *reinterpret_cast<const float4*>(&Bs[s][k][wc * WN + j * WSUBN + tc * 4]);
        b[4 * j] = t.x; b[4 * j + 1] = t.y; b[4 * j + 2] = t.z; b[4 * j + 3] = t.w;
      }
#pragma unroll
      for (int i = 0; i < P::TMR; ++i)
#pragma unroll
        for (int j = 0; j < P::TNR; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  };

  if constexpr (STAGES == 1) {
    const bool vecA = (K % 4 == 0) && aligned16(A);
    for (int t = 0; t < tiles; ++t) {
      const int k0 = t * BK;
#pragma unroll
      for (int j = 0; j < BM * BK / 4 / THREADS; ++j) {  // A: BM rows of BK / 4 float4, stored transposed
        const int i = j * THREADS + tid;
        const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
        const int m = m0 + r, k = k0 + c;
        float v[4];
        if (vecA) {
          const float4 q = (m < M && k < K) ? *reinterpret_cast<const float4*>(A + (i64)m * K + k)
                                            : make_float4(0.f, 0.f, 0.f, 0.f);
          v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e) v[e] = (m < M && k + e < K) ? A[(i64)m * K + k + e] : 0.f;
        }
#pragma unroll
        for (int e = 0; e < 4; ++e) As[0][c + e][r] = v[e];
      }
#pragma unroll
      for (int j = 0; j < BK * BN / 4 / THREADS; ++j) {  // B: BK rows of BN / 4 float4
        const int i = j * THREADS + tid;
        const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
        const int k = k0 + r, n = n0 + c;
        float4 q;
        if (vecB) {
          q = (k < K && n < N) ? *reinterpret_cast<const float4*>(B + (i64)k * N + n) : make_float4(0.f, 0.f, 0.f, 0.f);
        } else {
          const float* p = B + (i64)k * N + n;
          q.x = (k < K && n < N) ? p[0] : 0.f;
          q.y = (k < K && n + 1 < N) ? p[1] : 0.f;
          q.z = (k < K && n + 2 < N) ? p[2] : 0.f;
          q.w = (k < K && n + 3 < N) ? p[3] : 0.f;
        }
        *reinterpret_cast<float4*>(&Bs[0][r][c]) = q;
      }
      __syncthreads();
      compute(0);
      __syncthreads();
    }
  } else {
    // Issue the copies of slice t into stage s (each thread its own elements).
    auto load = [&](int t, int s) {
      const int k0 = t * BK;
#pragma unroll
      for (int j = 0; j < BM * BK / THREADS; ++j) {  // A: element by element, into the transposed tile
        const int i = j * THREADS + tid;
        const int r = i / BK, c = i % BK;  // consecutive lanes: consecutive k of one row
        const int m = m0 + r, k = k0 + c;
        const bool ok = m < M && k < K;
        cp_async4(smem_addr(&As[s][c][r]), ok ? A + (i64)m * K + k : A, ok);
      }
#pragma unroll
      for (int j = 0; j < BK * BN / 4 / THREADS; ++j) {
        const int i = j * THREADS + tid;
        const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
        const int k = k0 + r, n = n0 + c;
        if (vecB) {  // n % 4 == 0 and N % 4 == 0: n < N means all four are inside
          const bool ok = k < K && n < N;
          cp_async16(smem_addr(&Bs[s][r][c]), ok ? B + (i64)k * N + n : B, ok);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const bool ok = k < K && n + e < N;
            cp_async4(smem_addr(&Bs[s][r][c + e]), ok ? B + (i64)k * N + n + e : B, ok);
          }
        }
      }
    };
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < tiles) load(s, s);
      cp_async_commit();  // one group per slice, empty past the end: the wait count stays exact
    }
    for (int t = 0; t < tiles; ++t) {
      cp_async_wait<STAGES - 2>();  // this thread's copies of slice t have landed
      __syncthreads();              // everyone's have; and everyone is done with slice t - 1
      const int next = t + STAGES - 1;
      if (next < tiles) load(next, next % STAGES);  // into the stage slice t - 1 used
      cp_async_commit();
      compute(t % STAGES);
    }
  }

  // Store: lane (tr, tc) holds rows tr*4..+3 and columns tc*4..+3 of each sub-tile.
  const bool vecC = (N % 4 == 0) && aligned16(C);
#pragma unroll
  for (int i = 0; i < WMITER; ++i) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int m = m0 + wr * WM + i * WSUBM + tr * 4 + r;
      if (m >= M) continue;
#pragma unroll
      for (int j = 0; j < WNITER; ++j) {
        const int n = n0 + wc * WN + j * WSUBN + tc * 4;
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
