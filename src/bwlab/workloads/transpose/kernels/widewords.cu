// wideWords: wide matrices of 1- and 2-byte elements (S x n -> n x S, up to 64 elements) through
// shared memory, for the sides where widePerm's registers run out (uint8 64 rows: 196 registers a
// thread, two blocks a multiprocessor). A block owns W positions [p0, p0 + W) of every row and the
// W*S*E contiguous output bytes they make.
//  1. Copy in by cp.async: each row's W*E bytes from the 16-byte boundary at or below them
//     (W*E/16 + 1 chunks, no registers held, all in flight at once); chunks past the input's end
//     land as zeros.
//  2. A task is one word of each of 16/E rows (4/E positions): the lane reads its word of each row
//     (two shared words funnel-shifted by the row's byte phase: rows start anywhere), transposes
//     them in 4 x 4 blocks of bytes (2 x 2 of halves) with byte permutes, and so holds one 16-byte
//     run of each of its 4/E output rows. Lanes take neighbouring words of one row: conflict-free
//     reads.
//  3. The output tile goes out as 16-byte vectors, consecutive lanes on consecutive chunks.
// Where S*E is a multiple of 16 a run is a whole chunk of the output tile, and the chunks sit
// XOR-swizzled in shared memory (chunk c at c ^ (c >> 3 >> SH) & 7), so the 16-byte stores of step
// 2, whose lanes lie S/4 chunks apart, spread over the banks (none share a bank group at S = 64 or
// at uint8 16 and 32; up to 2-4 at other sides) while step 3's reads stay conflict-free. Elsewhere
// (RUNS) the tile is plain and a run lands at its own byte offset: whole words where it covers them,
// bytes or half-words at its ends, its phase in the word known from S (lanes lie S words apart:
// conflict-free for odd S); the last run of a position holds the S mod 16/E rows left.
// Both data pointers 16-byte aligned; one tile a block.
#include "vec.cuh"

constexpr int WW_THREADS = 256;

// 16 bytes from src into shared memory at dst, only the first `valid` (0..16) read, zeros after.
__device__ __forceinline__ void cp_async16_part(unsigned dst, const void* src, int valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(dst), "l"(src), "r"(valid) : "memory");
}

template <int E, int S, int W>
struct WideWordsTile {
  static constexpr int RC = W * E / 16 + 1;           // 16-byte chunks a row: W*E bytes from any phase
  static constexpr int R = 16 / E;                    // rows a task: one run of an output row
  static constexpr int P = 4 / E;                     // positions a word
  static constexpr int G = (S + R - 1) / R;           // runs an output row
  static constexpr bool RUNS = S % R != 0;            // runs off the 16-byte grid: a plain tile
  static constexpr int A_BYTES = G * R * RC * 16;     // the rows (RUNS: rows past S read, never stored)
  static constexpr int BYTES = A_BYTES + W * S * E;   // and the output tile
  static constexpr int TASKS = W / P * G;
  static constexpr int SH = S == 64 ? 1 : 0;          // the swizzle's shift (test_plans' model)
  static_assert((E == 1 || E == 2) && S >= 2 && S <= 64 && W % (32 * P) == 0, "a warp's words in one row group");
  static_assert(W * E % 16 == 0, "a row's phase is the same in every tile");
};

// Bytes [lo, hi) of the word at d from v, as the fewest aligned byte and half-word stores.
__device__ __forceinline__ void store_word_part(unsigned* d, unsigned v, int lo, int hi) {
  unsigned short* const h = reinterpret_cast<unsigned short*>(d);
  byte* const c = reinterpret_cast<byte*>(d);
  if (lo == 1 && hi > 1) c[1] = (byte)(v >> 8), lo = 2;
  if (lo == 0 && hi >= 2) h[0] = (unsigned short)v, lo = 2;
  if (lo == 2 && hi == 4) h[1] = (unsigned short)(v >> 16), lo = 4;
  for (int k = lo; k < hi; ++k) c[k] = (byte)(v >> (8 * k));
}

// Bytes [0, LEN) of the run w0..w3 (16 bytes, little endian) into shared memory at q + PH, q 4-byte
// aligned: whole words where the run covers them, bytes and half-words at its ends (PH and LEN are
// known, so every test folds away).
template <int PH, int LEN>
__device__ __forceinline__ void store_run(byte* q, unsigned w0, unsigned w1, unsigned w2, unsigned w3) {
  const unsigned v[5] = {w0 << (8 * PH), PH ? __funnelshift_l(w0, w1, 8 * PH) : w1,
                         PH ? __funnelshift_l(w1, w2, 8 * PH) : w2, PH ? __funnelshift_l(w2, w3, 8 * PH) : w3,
                         PH ? w3 >> (32 - 8 * PH) : 0u};  // v[j]: the run's bytes in destination word j
#pragma unroll
  for (int j = 0; j < 5; ++j) {
    const int lo = j == 0 ? PH : 0, hi = min(4, PH + LEN - 4 * j);  // the run's bytes [lo, hi) of word j
    if (hi <= lo) continue;
    unsigned* const d = reinterpret_cast<unsigned*>(q) + j;
    if (lo == 0 && hi == 4) *d = v[j];
    else store_word_part(d, v[j], lo, hi);
  }
}

// RUNS: position P*w + B's run gq (rows R*gq ..) into the plain output tile, at its byte offset.
template <int E, int S, int G, int B>
__device__ __forceinline__ void ww_run(byte* tile, int w, int gq, unsigned w0, unsigned w1, unsigned w2, unsigned w3) {
  constexpr int SE = S * E, PH = (B * SE) & 3, LAST = SE - 16 * (G - 1);  // P*w*SE is a multiple of 4
  byte* const q = tile + ((4 / E) * w + B) * SE + 16 * gq - PH;
  if (gq < G - 1) store_run<PH, 16>(q, w0, w1, w2, w3);
  else store_run<PH, LAST>(q, w0, w1, w2, w3);
}

template <int SH>
__device__ __forceinline__ int ww_chunk(int c) { return c ^ ((c >> (3 + SH)) & 7); }

// The 4 x 4 bytes of words a0..a3 (rows) transposed: t[b] holds byte b of each row, row order.
__device__ __forceinline__ void transpose4(unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned* t) {
  const unsigned lo01 = __byte_perm(a0, a1, 0x5140), hi01 = __byte_perm(a0, a1, 0x7362);
  const unsigned lo23 = __byte_perm(a2, a3, 0x5140), hi23 = __byte_perm(a2, a3, 0x7362);
  t[0] = __byte_perm(lo01, lo23, 0x5410), t[1] = __byte_perm(lo01, lo23, 0x7632);
  t[2] = __byte_perm(hi01, hi23, 0x5410), t[3] = __byte_perm(hi01, hi23, 0x7632);
}

template <int E, int S, int W, bool STREAM>
__global__ void __launch_bounds__(WW_THREADS)
wideWords(const byte* __restrict__ in, byte* __restrict__ out, i64 n) {
  typedef WideWordsTile<E, S, W> T;
  constexpr int RC = T::RC, R = T::R, P = T::P, G = T::G;
  extern __shared__ __align__(16) byte ww_shared[];
  byte* const rows = ww_shared;
  byte* const tile = ww_shared + T::A_BYTES;
  const i64 p0 = (i64)blockIdx.x * W;
  const u64 base = reinterpret_cast<u64>(in), nb = (u64)n * E, in_hi = base + S * nb;
  {
    const unsigned dst0 = smem_addr(rows);
    for (int i = threadIdx.x; i < S * RC; i += WW_THREADS) {
      const int s = i / RC, k = i - s * RC;
      const u64 a = ((base + s * nb + (u64)p0 * E) & ~(u64)15) + 16 * k;
      const int valid = a >= in_hi ? 0 : (int)min((u64)16, in_hi - a);
      cp_async16_part(dst0 + 16 * i, valid ? reinterpret_cast<const void*>(a) : in, valid);
    }
    cp_async_wait_all();
    __syncthreads();
  }
  const unsigned ph0 = (unsigned)base, nlo = (unsigned)nb;  // a row's phase: (base + s*n*E) mod 16
#pragma unroll 1
  for (int t = threadIdx.x; t < T::TASKS; t += WW_THREADS) {
    const int w = t % (W / P), gq = t / (W / P);
    unsigned r[R];
#pragma unroll
    for (int j = 0; j < R; ++j) {
      const int s = R * gq + j;
      const unsigned m = (ph0 + (unsigned)s * nlo) & 15;
      const unsigned* p = reinterpret_cast<const unsigned*>(rows + s * RC * 16) + (m >> 2) + w;
      r[j] = __funnelshift_r(p[0], p[1], 8 * (m & 3));
    }
    unsigned q[4][P];  // q[k][b]: word k of position P*w + b's chunk (rows R*gq + 4k/E ..)
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if constexpr (E == 1) {
        transpose4(r[4 * k], r[4 * k + 1], r[4 * k + 2], r[4 * k + 3], q[k]);
      } else {
        q[k][0] = __byte_perm(r[2 * k], r[2 * k + 1], 0x5410), q[k][1] = __byte_perm(r[2 * k], r[2 * k + 1], 0x7632);
      }
    }
    if constexpr (T::RUNS) {
      ww_run<E, S, G, 0>(tile, w, gq, q[0][0], q[1][0], q[2][0], q[3][0]);
      ww_run<E, S, G, 1>(tile, w, gq, q[0][1], q[1][1], q[2][1], q[3][1]);
      if constexpr (P == 4) {
        ww_run<E, S, G, 2>(tile, w, gq, q[0][2], q[1][2], q[2][2], q[3][2]);
        ww_run<E, S, G, 3>(tile, w, gq, q[0][3], q[1][3], q[2][3], q[3][3]);
      }
    } else {
#pragma unroll
      for (int b = 0; b < P; ++b)
        *reinterpret_cast<uint4*>(tile + 16 * ww_chunk<T::SH>((P * w + b) * G + gq)) =
            make_uint4(q[0][b], q[1][b], q[2][b], q[3][b]);
    }
  }
  __syncthreads();
  const i64 bytes = min((i64)W, n - p0) * S * E;
  byte* const o = out + p0 * S * E;
  if constexpr (T::RUNS) {
    const u64 hi = reinterpret_cast<u64>(o) + bytes;
    for (int c = threadIdx.x; c < (int)((bytes + 15) >> 4); c += WW_THREADS)
      store16_clipped<E, STREAM>(o + 16 * c, *reinterpret_cast<const uint4*>(tile + 16 * c), 0, hi);
  } else {
    for (int c = threadIdx.x; c < (int)(bytes >> 4); c += WW_THREADS)
      store16<STREAM>(o + 16 * c, *reinterpret_cast<const uint4*>(tile + 16 * ww_chunk<T::SH>(c)));
  }
}
