// tallWords: tall matrices of 1- and 2-byte elements (n x S -> S x n, S*E from 4 to 128 bytes) through
// shared memory, the mirror of wideWords: the packed input is copied in whole, the output rows are
// staged in shared memory and leave as 16-byte vectors, no registers held across the copy. A block
// takes W positions [p0, p0 + W) and in each output row owns the vectors from the LINE boundary at or
// below p0's byte to the one at or below p0 + W's (the row's ends for the first and the last tile).
// The dispatch takes LINE = 32: every 32-byte sector of a row is written whole by one block (but at
// the row's ends), where 16-byte ownership leaves every other tile boundary mid-sector, two blocks
// writing its halves (on the H200 that cost 1-8 points of a copy at most sides; lines of 128 or 256
// bytes cost more in positions held than they saved: benchmarks/h200/transpose/tall-staged).
//  1. Copy in by cp.async: the tile's W*S*E contiguous input bytes, 16 bytes a lane, all in flight at
//     once, and (rows not on LINE boundaries, !A) the LINE/E positions before p0. Position group g
//     (R = 16/E positions, S 16-byte chunks) lands at g * 16 * (S + P): P pad chunks a group spread
//     the next step's words over the banks (but pads break the chunks' contiguous destinations, and
//     a warp's cp.async then asks the L2 for a third more sectors: most sides take none). Chunks
//     outside the input land as zeros; the inner tiles test none.
//  2. A task is one word (4/E columns) of each of a group's R positions: the lane reads its R words
//     (two words funnel-shifted where S*E is not a multiple of 4), transposes them in 4 x 4 blocks of
//     bytes (2 x 2 of halves) and holds one 16-byte chunk of each of its 4/E output rows, which it
//     stores into the row's staging, chunk g rotated by the row's bundle (conflict-free stores).
//     Where S + P is odd a warp takes 8 groups x 4 words, so that its reads meet each bank once.
//  3. Each output row's vectors go out 16 bytes a lane, consecutive lanes on consecutive vectors
//     (one row a warp in the inner tiles); rows off the 16-byte grid are realigned from two staged
//     chunks, and the vectors that hold another row's bytes (at the ends of a row) are clipped.
// Instructions, not bytes, are what held this kernel back at the odd sides: the row rotation is
// computed once a task and the inner tiles' offsets carried (a third fewer instructions at 41
// columns; with no pad chunks too it ran at 90.4% of a copy there, skinnyWords at 86.0%:
// benchmarks/h200/transpose/tall-staged).
// Both data pointers 16-byte aligned; one tile a block. A: every row n*E a multiple of LINE bytes.
#include "vec.cuh"

constexpr int TW_THREADS = 256;

// 16 bytes from src into shared memory at dst, only the first `valid` (0..16) read, zeros after (as
// widewords.cu's; a shared header would be part of every transpose kernel's cache key).
__device__ __forceinline__ void tw_cp_async16(unsigned dst, const void* src, int valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(dst), "l"(src), "r"(valid) : "memory");
}

__device__ __forceinline__ void tw_cp_async16_whole(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src) : "memory");
}

template <int E, int S, int W, int LINE, bool A, int P>
struct TallWordsTile {
  static constexpr int R = 16 / E;                 // positions a group: one output chunk of each row
  static constexpr int H = A ? 0 : LINE / E;       // positions held before p0
  static constexpr int NG = (W + H) / R;           // groups held
  static constexpr int K = (S * E + 3) / 4;        // words a position (the last one partly past S)
  static constexpr int GPB = 16 * (S + P);         // a group's pitch in shared memory
  static constexpr int IN_BYTES = NG * GPB + 16;   // + the funnel's word past the last group
  static constexpr int ORC = A ? NG : NG + 1;      // a staged row's chunks (a realigned vector reads two)
  static constexpr int BYTES = IN_BYTES + S * ORC * 16;
  static constexpr int TASKS = NG * K;
  static_assert((E == 1 || E == 2) && S * E >= 4 && S * E <= 128 && W % R == 0 && P >= 0 && P < 8,
                "1- and 2-byte elements, 4 to 128 bytes a position, whole groups");
  static_assert(LINE % 16 == 0 && W * E % LINE == 0, "tiles of whole lines");
  static_assert(K <= ORC, "a task's rotation g + k below 2 * ORC");
};

// Row s's staged chunk c: rotated by the row's bundle, so that a warp's stores of one output row
// of each of 8 consecutive bundles fall in 8 different bank groups (4*ORC/E*k + k: odd steps).
template <int E, int ORC>
__device__ __forceinline__ int tw_chunk(int s, int c) {
  const int r = c + s * E / 4;
  return s * ORC + r % ORC;
}

// Step 3 for rows not on LINE boundaries: in row s the tile owns the vectors from the LINE boundary
// at or below its first byte to the one at or below the next tile's (the row's ends for the first
// and the last tile), so that no line of a row is written by two blocks but at the row's ends. CNT:
// the most vectors a row (W*E/16 for inner tiles); ENDS: the first or last tile (clipped stores).
template <int E, int S, int W, int LINE, int ORC, int CNT, bool ENDS, bool STREAM>
__device__ __forceinline__ void tw_store_rows(const byte* rows, byte* __restrict__ out, i64 n, i64 p0, bool last) {
  const i64 nb = n * E;
  const u64 obase = reinterpret_cast<u64>(out);
  for (int i = threadIdx.x; i < S * CNT; i += TW_THREADS) {
    const int s = i / CNT, c = i - s * CNT;
    const i64 r0 = s * nb, x = r0 + p0 * E;  // the row's and the tile's first byte
    const i64 start = p0 == 0 ? r0 & ~(i64)15 : x & ~(i64)(LINE - 1);
    const i64 end = last ? (r0 + nb + 15) & ~(i64)15 : (x + W * E) & ~(i64)(LINE - 1);
    const i64 a = start + 16 * c;
    if (a >= end) continue;
    const int o = (int)(a - x) + LINE;  // a's staged byte: positions from p0 - LINE/E
    const int j = o >> 4, d = o & 15;
    const uint4 lo = *reinterpret_cast<const uint4*>(rows + 16 * tw_chunk<E, ORC>(s, j));
    uint4 v = lo;
    if (d) v = realign(lo, *reinterpret_cast<const uint4*>(rows + 16 * tw_chunk<E, ORC>(s, j + 1)), d);
    if (ENDS) store16_clipped<E, STREAM>(out + a, v, obase + r0, obase + r0 + nb);
    else store16<STREAM>(out + a, v);
  }
}

// Step 3 for the inner tiles (neither first nor last) of rows not on LINE boundaries: the tile owns
// exactly W*E bytes of each row, from the LINE boundary at or below its first byte. A row is CNT
// vectors, a multiple of 32, so each warp stores within one row (a row spans CNT / 32 warps) and
// its realignment is the same across the warp; each thread keeps its vector c while the rows
// advance by STEP.
template <int E, int S, int W, int LINE, int ORC, bool STREAM>
__device__ __forceinline__ void tw_store_inner(const byte* rows, byte* __restrict__ out, i64 n, i64 p0) {
  constexpr int CNT = W * E / 16, STEP = TW_THREADS / CNT;
  static_assert(CNT % 32 == 0 && TW_THREADS % CNT == 0 && CNT + LINE / 16 < ORC && (S - 1) * E / 4 < ORC,
                "whole warps a row; a vector's two staged chunks and a row's rotation within 2 * ORC");
  const i64 nb = n * E;
  const int c = threadIdx.x % CNT;
  int s = threadIdx.x / CNT;
  i64 x = s * nb + p0 * E;  // row s's tile's first byte
  for (; s < S; s += STEP, x += STEP * nb) {
    const int xm = (int)x & (LINE - 1);
    const int o = 16 * c + LINE - xm;  // the vector's staged byte: positions from p0 - LINE/E
    const int d = o & 15;
    int j = (o >> 4) + s * E / 4;  // tw_chunk's rotation
    j -= j >= ORC ? ORC : 0;
    const byte* const row = rows + 16 * s * ORC;
    uint4 v = *reinterpret_cast<const uint4*>(row + 16 * j);
    if (d) {
      const int j1 = j + 1 == ORC ? 0 : j + 1;
      v = realign(v, *reinterpret_cast<const uint4*>(row + 16 * j1), d);
    }
    store16<STREAM>(out + (x - xm) + 16 * c, v);
  }
}

// Step 2's task (g, k): word k (4/E columns) of each of group g's R positions, transposed into one
// 16-byte chunk of each of its 4/E output rows in the staging.
template <int E, int S, int R, int K, int GPB, int ORC>
__device__ __forceinline__ void tw_task(const byte* groups, byte* rows, int g, int k) {
  constexpr int SE = S * E;
  const byte* const gp = groups + g * GPB + 4 * k;
  unsigned w[R];
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int m = (i * SE) & 3;  // known once unrolled
    const unsigned* p = reinterpret_cast<const unsigned*>(gp + i * SE - m);
    w[i] = m == 0 ? p[0] : __funnelshift_r(p[0], p[1], 8 * m);
  }
  constexpr int Q = 4 / E;  // output rows a task
  unsigned q[4][Q];         // q[j][b]: word j of row Q*k + b's chunk
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if constexpr (E == 1) {
      const unsigned lo01 = __byte_perm(w[4 * j], w[4 * j + 1], 0x5140), hi01 = __byte_perm(w[4 * j], w[4 * j + 1], 0x7362);
      const unsigned lo23 = __byte_perm(w[4 * j + 2], w[4 * j + 3], 0x5140), hi23 = __byte_perm(w[4 * j + 2], w[4 * j + 3], 0x7362);
      q[j][0] = __byte_perm(lo01, lo23, 0x5410), q[j][1] = __byte_perm(lo01, lo23, 0x7632);
      q[j][2] = __byte_perm(hi01, hi23, 0x5410), q[j][3] = __byte_perm(hi01, hi23, 0x7632);
    } else {
      q[j][0] = __byte_perm(w[2 * j], w[2 * j + 1], 0x5410), q[j][1] = __byte_perm(w[2 * j], w[2 * j + 1], 0x7632);
    }
  }
  int r = g + k;  // tw_chunk<E, ORC>(Q * k + b, g): row Q*k + b's rotation is k, and g + k < 2 * ORC
  r -= r >= ORC ? ORC : 0;
  byte* const dst = rows + 16 * (Q * k * ORC + r);
#pragma unroll
  for (int b = 0; b < Q; ++b) {
    if (S % Q == 0 || Q * k + b < S)
      *reinterpret_cast<uint4*>(dst + 16 * b * ORC) = make_uint4(q[0][b], q[1][b], q[2][b], q[3][b]);
  }
}

template <int E, int S, int W, int LINE, bool A, int P, bool STREAM>
__global__ void __launch_bounds__(TW_THREADS)
tallWords(const byte* __restrict__ in, byte* __restrict__ out, i64 n) {
  typedef TallWordsTile<E, S, W, LINE, A, P> T;
  constexpr int R = T::R, H = T::H, NG = T::NG, K = T::K, GPB = T::GPB, ORC = T::ORC, SE = S * E;
  extern __shared__ __align__(16) byte tw_shared[];
  byte* const groups = tw_shared;
  byte* const rows = tw_shared + T::IN_BYTES;
  const i64 p0 = (i64)blockIdx.x * W;
  const i64 total = n * SE;
  {
    const unsigned dst0 = smem_addr(groups);
    const i64 off0 = (p0 - H) * SE;
    if (off0 >= 0 && off0 + NG * S * 16 <= total) {  // every tile but the ends: no bounds a chunk
      const byte* const src = in + off0;
      for (int i = threadIdx.x; i < NG * S; i += TW_THREADS) {
        const int g = i / S, c = i - g * S;
        tw_cp_async16_whole(dst0 + g * GPB + 16 * c, src + 16 * i);
      }
    } else {
      for (int i = threadIdx.x; i < NG * S; i += TW_THREADS) {
        const int g = i / S, c = i - g * S;
        const i64 off = off0 + 16 * i;
        const int valid = off < 0 || off >= total ? 0 : (int)min((i64)16, total - off);
        tw_cp_async16(dst0 + g * GPB + 16 * c, valid ? in + off : in, valid);
      }
    }
    cp_async_wait_all();
    __syncthreads();
  }
  if constexpr ((GPB / 16) % 2 == 1) {
    // S + P odd: groups sit 4 * (S + P) banks apart, an odd multiple of 4, so 8 consecutive groups
    // start on the 8 multiples of 4 and a warp step of 8 groups x 4 words reads 32 banks, where
    // consecutive tasks (a group's words, then the next group's) meet up to three to a bank.
    constexpr int KB = (K + 3) / 4, STEPS = (NG + 7) / 8 * KB;
    const int lane = threadIdx.x & 31;
#pragma unroll 1
    for (int st = threadIdx.x >> 5; st < STEPS; st += TW_THREADS / 32) {
      const int gb = st / KB, g = 8 * gb + (lane >> 2), k = 4 * (st - gb * KB) + (lane & 3);
      if (g < NG && k < K) tw_task<E, S, R, K, GPB, ORC>(groups, rows, g, k);
    }
  } else {
#pragma unroll 1
    for (int t = threadIdx.x; t < T::TASKS; t += TW_THREADS) {
      const int g = t / K;
      tw_task<E, S, R, K, GPB, ORC>(groups, rows, g, t - g * K);
    }
  }
  __syncthreads();
  const i64 nb = n * E;
  const bool last = p0 + W >= n;
  if constexpr (A) {
    const int count = (int)((min((i64)W, n - p0) * E) >> 4);
    for (int i = threadIdx.x; i < S * NG; i += TW_THREADS) {
      const int s = i / NG, c = i - s * NG;
      if (c < count)
        store16<STREAM>(out + s * nb + p0 * E + 16 * c, *reinterpret_cast<const uint4*>(rows + 16 * tw_chunk<E, ORC>(s, c)));
    }
  } else if (last || p0 == 0) {
    tw_store_rows<E, S, W, LINE, ORC, NG, true, STREAM>(rows, out, n, p0, last);
  } else {
    tw_store_inner<E, S, W, LINE, ORC, STREAM>(rows, out, n, p0);
  }
}
