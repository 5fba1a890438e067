// 2-D register blocking: a block computes a BM x BN tile of C, each of its
// (BM / TM) x (BN / TN) threads a TM x TN block of it, held in registers. Per step k of a
// BK-wide slice, a thread reads TM values of A and TN of B from shared memory and does
// TM * TN FMAs: shared-memory traffic per FMA falls from 2 loads to (TM + TN) / (TM * TN).
//
// regBlock: scalar loads, A's tile kept as it lies in memory (As[m][k]).
// vecBlock: 16-byte global loads where the rows allow, A's tile stored transposed
//           (As[k][m]) so that a thread's TM values of A are contiguous: float4 reads from
//           shared memory for A and B alike.
// Any M, N, K: elements past an edge load as 0 and are not stored.
#include "mm.cuh"

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
regBlock(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int COLS = BN / TN, THREADS = (BM / TM) * COLS;
  static_assert(BM % TM == 0 && BN % TN == 0, "tile must split into thread blocks");
  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int tRow = tid / COLS, tCol = tid % COLS;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int j = 0; j < (BM * BK + THREADS - 1) / THREADS; ++j) {
      const int i = j * THREADS + tid;
      if ((BM * BK) % THREADS != 0 && i >= BM * BK) break;
      const int r = i / BK, c = i % BK;
      As[r][c] = (m0 + r < M && k0 + c < K) ? A[(i64)(m0 + r) * K + k0 + c] : 0.f;
    }
#pragma unroll
    for (int j = 0; j < (BK * BN + THREADS - 1) / THREADS; ++j) {
      const int i = j * THREADS + tid;
      if ((BK * BN) % THREADS != 0 && i >= BK * BN) break;
      const int r = i / BN, c = i % BN;
      Bs[r][c] = (k0 + r < K && n0 + c < N) ? B[(i64)(k0 + r) * N + n0 + c] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[tRow * TM + i][k];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tCol * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + tRow * TM + i;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + tCol * TN + j;
      if (m < M && n < N) C[(i64)m * N + n] = acc[i][j];
    }
  }
}

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
vecBlock(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int COLS = BN / TN, THREADS = (BM / TM) * COLS;
  constexpr int PA = 4;  // A's transposed rows padded by 4 floats: keeps float4 alignment, spreads banks
  static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0 && BN % 4 == 0, "float4 tiles");
  __shared__ __align__(16) float As[BK][BM + PA];
  __shared__ __align__(16) float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int tRow = tid / COLS, tCol = tid % COLS;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  // 16-byte global accesses need every row start 16-byte aligned: uniform, decided once
  const bool vecA = (K % 4 == 0) && aligned16(A);
  const bool vecB = (N % 4 == 0) && aligned16(B);
  const bool vecC = (N % 4 == 0) && aligned16(C);
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int j = 0; j < (BM * BK / 4 + THREADS - 1) / THREADS; ++j) {  // A: BM rows of BK / 4 float4, transposed
      const int i = j * THREADS + tid;
      if ((BM * BK / 4) % THREADS != 0 && i >= BM * BK / 4) break;
      const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
      const int m = m0 + r, k = k0 + c;
      float v[4];
      if (vecA) {
        const float4 t = (m < M && k < K) ? *reinterpret_cast<const float4*>(A + (i64)m * K + k)
                                          : make_float4(0.f, 0.f, 0.f, 0.f);
        v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) v[e] = (m < M && k + e < K) ? A[(i64)m * K + k + e] : 0.f;
      }
#pragma unroll
      for (int e = 0; e < 4; ++e) As[c + e][r] = v[e];
    }
#pragma unroll
    for (int j = 0; j < (BK * BN / 4 + THREADS - 1) / THREADS; ++j) {  // B: BK rows of BN / 4 float4
      const int i = j * THREADS + tid;
      if ((BK * BN / 4) % THREADS != 0 && i >= BK * BN / 4) break;
      const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
      const int k = k0 + r, n = n0 + c;
      float4 t;
      if (vecB) {
        t = (k < K && n < N) ? *reinterpret_cast<const float4*>(B + (i64)k * N + n) : make_float4(0.f, 0.f, 0.f, 0.f);
      } else {
        const float* p = B + (i64)k * N + n;
        t.x = (k < K && n < N) ? p[0] : 0.f;
        t.y = (k < K && n + 1 < N) ? p[1] : 0.f;
        t.z = (k < K && n + 2 < N) ? p[2] : 0.f;
        t.w = (k < K && n + 3 < N) ? p[3] : 0.f;
      }
      *reinterpret_cast<float4*>(&Bs[r][c]) = t;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 t = *reinterpret_cast<const float4*>(&As[k][tRow * TM + i]);
        a[i] = t.x; a[i + 1] = t.y; a[i + 2] = t.z; a[i + 3] = t.w;
      }
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const float4 t = *reinterpret_cast<const float4*>(&Bs[k][tCol * TN + j]);
        b[j] = t.x; b[j + 1] = t.y; b[j + 2] = t.z; b[j + 3] = t.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + tRow * TM + i;
#pragma unroll
    for (int j = 0; j < TN; j += 4) {
      const int n = n0 + tCol * TN + j;
      if (m >= M) continue;
      float* p = C + (i64)m * N + n;
      if (vecC && n < N) {
        *reinterpret_cast<float4*>(p) = make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (n + e < N) p[e] = acc[i][j + e];
      }
    }
  }
}
