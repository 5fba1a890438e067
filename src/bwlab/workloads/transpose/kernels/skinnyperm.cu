// The skinny transpose of 1- and 2-byte elements with the short side S (2..64) known at compile
// time: a lane holds one 4-byte word (Q = 4/E positions) of each of the S long rows, and the
// interleave between those and the S words of the packed side is byte permutes with fixed
// selectors, no shared access per element.
//  - widePerm (S x n -> n x S): lane k loads the aligned word k of each row, takes its
//    neighbour's by shuffle and funnel-shifts by the row's byte offset (row s starts at s*n*E,
//    misaligned unless n*E is a multiple of 4), then builds the packed side's S words. Lane 31
//    needs the word after the warp's run: gathered from the S rows, or (SHARE) taken from the
//    next warp of the block, which loaded it as its first.
//  - tallPerm (n x S -> S x n): the mirror. Lane k builds word k of each row from its S packed
//    words and stores the aligned word under it: the row's bytes shifted by the row's offset,
//    the word before coming from lane k-1 by shuffle.
// Packed word q of a group (Q positions x S elements, position-major) takes its bytes from at
// most four row words, one permute per source word after the first two. A warp's 32 lanes
// cover 32*Q positions: 128*S packed bytes from a packed offset that is a multiple of 128,
// moved as aligned 16-byte vectors through a per-warp staging buffer in packed order (the
// lanes' words in 16-, 8- or 4-byte units). A warp takes K such steps, all of their loads in
// flight before the first permute. The steps stop where a load or store could pass the end
// of a row; the grid's last block moves the positions left element by element. `in` and
// `out` must be 16-byte aligned; one matrix (no batch). widePerm also takes 4-byte elements
// (Q = 1): their rows start on words, so the shuffles, shifts and permutes drop out at compile
// time and only the loads in flight and the staging remain.
#include "vec.cuh"

constexpr int WP_THREADS = 128;

// The word whose byte c is byte sel[c] of w[src[c]] (everything but w known after unrolling:
// constant selectors): the first two distinct source words in one permute, each further one
// merged by another.
template <int N>
__device__ __forceinline__ unsigned gather(const unsigned (&w)[N], const int (&src)[4], const int (&sel)[4]) {
  const int a = src[0];
  int b = a;
#pragma unroll
  for (int c = 3; c > 0; --c)
    if (src[c] != a) b = src[c];
  int s01 = 0;
#pragma unroll
  for (int c = 0; c < 4; ++c) s01 |= (src[c] == a ? sel[c] : src[c] == b ? sel[c] + 4 : c) << (4 * c);
  unsigned r = __byte_perm(w[a], w[b], s01);
  int done = 0;
#pragma unroll
  for (int c = 0; c < 4; ++c) done |= (src[c] == a || src[c] == b) << c;
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    if (done >> c & 1) continue;
    const int x = src[c];
    int s = 0;
#pragma unroll
    for (int d = 0; d < 4; ++d) s |= (src[d] == x ? sel[d] + 4 : d) << (4 * d);
    r = __byte_perm(r, w[x], s);
#pragma unroll
    for (int d = 0; d < 4; ++d) done |= (src[d] == x) << d;
  }
  return r;
}

// Packed word q of a group from the row words w (row s: its Q positions). Its byte c is byte
// b = 4q + c of the group: element h = b / E (its byte b % E), position h / S of row h % S.
template <int E, int S>
__device__ __forceinline__ unsigned packed_word(const unsigned (&w)[S], int q) {
  int src[4], sel[4];
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    const int b = 4 * q + c, h = b / E;
    src[c] = h % S;
    sel[c] = E * (h / S) + b % E;
  }
  return gather<S>(w, src, sel);
}

// Row s's word of a group from its packed words g: byte c is position p = c / E's element of
// row s (its byte c % E), byte b = (p*S + s)*E + c % E of the group.
template <int E, int S>
__device__ __forceinline__ unsigned row_word(const unsigned (&g)[S], int s) {
  int src[4], sel[4];
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    const int b = ((c / E) * S + s) * E + c % E;
    src[c] = b / 4;
    sel[c] = b % 4;
  }
  return gather<S>(g, src, sel);
}

// Where logical 16-byte vector v of a warp's staging buffer lives. Short sides that are
// multiples of 8 store 16-byte units at a lane stride of S/4 vectors, which an 8-lane phase
// would map to 2 to 8 vectors of one bank group; an XOR of the vector's higher bits spreads
// them over all 8 (conflict-free for 8, 16, 32, 64; 2-way for 48, as for 24, 40 and 56,
// which keep the plain layout). Reads of 8 consecutive vectors stay conflict-free: the XOR is
// the same for an aligned octet.
template <int S>
__device__ __forceinline__ int staged(int v) {
  if constexpr (S == 8 || S == 16 || S == 32 || S == 64) return v ^ (((v >> 3) ^ (v >> 6)) & 7);
  else if constexpr (S == 48) return v ^ ((v >> 3) & 7);
  else return v;
}

// A word of a long row (widePerm's loads), with L2 the whole 128-byte line from the L2 on a miss:
// a warp's words of a row span two lines, the neighbouring step reading the rest. Which short
// sides take it is the dispatcher's (plans.perm_line_fetch): it moves the compiler's register
// allocation and schedule as much as the loads, for gains of up to 4 points of a copy at many
// sides and losses of up to 13 at a few.
template <bool L2>
__device__ __forceinline__ unsigned wide_load(const byte* p) {
  if constexpr (L2) return load4_l2_128(p);
  return *reinterpret_cast<const unsigned*>(p);
}

// The order in which wide_steps builds a step's packed units (U words each, S / U of them):
// ORDERED, by the last row word each reads (then its place), so that the row words of a step
// die as the units are built instead of all staying live to the last units (each row word feeds
// one unit per position it holds: in place order, every row's last use comes in the last
// quarter). Computed at compile time; unrolled, a constant index.
template <int E, int S, int U, bool ORDERED>
struct UnitOrder {
  int at[S / U];
  __host__ __device__ constexpr UnitOrder() : at() {
    int key[S / U] = {};
    for (int b = 0; b < S / U; ++b) {
      at[b] = b;
      for (int c = 0; c < 4 * U; ++c) {  // byte c of the unit: element h, row h % S
        const int row = (4 * U * b + c) / E % S;
        key[b] = ORDERED && row > key[b] ? row : key[b];
      }
    }
    for (int i = 1; i < S / U; ++i)  // stable insertion sort by key
      for (int j = i; j > 0 && key[at[j - 1]] > key[at[j]]; --j) {
        const int x = at[j - 1];
        at[j - 1] = at[j];
        at[j] = x;
      }
  }
};

// Rows padded to whole 16-byte vectors in a SHARE block's table of the words after each warp's run.
template <int S>
__host__ __device__ constexpr int after_pitch() { return (S + 3) / 4 * 4; }

// KK steps of a warp from step0 (see widePerm). SHARE: `after` is the block's table of the words
// after each warp's run ([warp][row], after_pitch<S>() words a warp), every warp of the block
// taking a whole run: each warp puts its first words there for the warp before it, and only the
// block's last warp gathers its own, for the rows that start past a word (the others' funnel
// shift does not read it). Otherwise each warp gathers its own, one word from each of S rows.
template <int E, int S, int KK, bool L2, bool ORDERED = false, bool SHARE = false>
__device__ __forceinline__ void wide_steps(const byte* __restrict__ in, byte* __restrict__ out, i64 n, i64 step0,
                                           unsigned* st, int lane, unsigned* after = nullptr) {
  constexpr int U = S % 4 == 0 ? 4 : S % 2 == 0 ? 2 : 1;  // staging unit in words
  constexpr int VPL = (8 * S + 31) / 32;                   // 16-byte vectors a lane stores per step
  constexpr int SP = after_pitch<S>();
  const int nm = (int)((n * E) & 3);  // row s starts (s * nm) & 3 bytes past a word (in is aligned)
  const int warp = threadIdx.x >> 5;
  const bool gather = !SHARE || warp == WP_THREADS / 32 - 1;
  // x: the word after the run's last step of row lane + 32h, the one lane 31 needs there
  unsigned w[KK][S], x[(S + 31) / 32];
#pragma unroll
  for (int h = 0; h < (E < 4 ? (S + 31) / 32 : 0); ++h) {  // 4-byte rows start on words: no realigning
    const int s = lane + 32 * h;
    if constexpr (SHARE) {
      x[h] = 0u;
      if (s < S && ((s * nm) & 3) != 0 && gather)
        x[h] = wide_load<L2>(in + s * n * E - ((s * nm) & 3) + 128 * (step0 + KK));
    } else {
      if (s < S) x[h] = wide_load<L2>(in + s * n * E - ((s * nm) & 3) + 128 * (step0 + KK));
    }
  }
  const byte* row = in;  // row s's first byte
#pragma unroll
  for (int s = 0; s < S; ++s, row += n * E) {
    const byte* p = row - ((s * nm) & 3) + 4 * (step0 * 32 + lane);
#pragma unroll
    for (int j = 0; j < KK; ++j) w[j][s] = wide_load<L2>(p + 128 * j);
  }
  const int wait = after_all<KK * S>(reinterpret_cast<const unsigned(&)[KK * S]>(w), n);
  const int src = (lane + 1 + wait) & 31;
  if constexpr (SHARE) {  // this warp's first words are the words after the warp before it
    if (lane == 0)
#pragma unroll
      for (int s = 0; s < SP; s += 4)
        *reinterpret_cast<uint4*>(after + warp * SP + s) =
            make_uint4(w[0][s], s + 1 < S ? w[0][s + 1] : 0u, s + 2 < S ? w[0][s + 2] : 0u, s + 3 < S ? w[0][s + 3] : 0u);
    __syncthreads();
    if (!gather)
#pragma unroll
      for (int h = 0; h < (S + 31) / 32; ++h)
        if (lane + 32 * h < S) x[h] = after[(warp + 1) * SP + lane + 32 * h];
  }
#pragma unroll
  for (int s = 0; s < (E < 4 ? S : 0); ++s) {
#pragma unroll
    for (int j = 0; j < KK; ++j) {
      // lane l < 31 takes lane l+1's word; lane 31 the next step's first (lane 0 sends it: no
      // lane reads lane 0's own) or, after the last step, x from lane s % 32
      const unsigned send = lane == 0 && j + 1 < KK ? w[j + 1][s] : w[j][s];
      unsigned next = __shfl_sync(0xffffffffu, send, src);
      if (j + 1 == KK) {
        const unsigned later = __shfl_sync(0xffffffffu, x[s / 32], s % 32);
        if (lane == 31) next = later;
      }
      w[j][s] = __funnelshift_r(w[j][s], next, 8 * ((s * nm) & 3));
    }
  }
  constexpr UnitOrder<E, S, U, ORDERED> order{};
#pragma unroll
  for (int j = 0; j < KK; ++j) {
#pragma unroll
    for (int q0 = 0; q0 < S; q0 += U) {
      int q = q0;
      if constexpr (ORDERED) q = U * order.at[q0 / U];
      unsigned o[U];
#pragma unroll
      for (int u = 0; u < U; ++u) o[u] = E == 4 ? w[j][q + u] : packed_word<E, S>(w[j], q + u);
      unsigned* d = st + lane * S + q + (E == 4 ? wait : 0);  // 4 bytes: no shuffle waits on the loads
      if constexpr (U == 4)
        reinterpret_cast<uint4*>(st)[staged<S>((lane * S + q) / 4) + (E == 4 ? wait : 0)] = make_uint4(o[0], o[1], o[2], o[3]);
      else if constexpr (U == 2) *reinterpret_cast<uint2*>(d) = make_uint2(o[0], o[1]);
      else *d = o[0];
    }
    __syncwarp();
    byte* ob = out + (step0 + j) * (128 * S);
#pragma unroll
    for (int i = 0; i < VPL; ++i) {
      const int v = lane + 32 * i;
      if (v < 8 * S) store16<false>(ob + 16 * v, reinterpret_cast<const uint4*>(st)[staged<S>(v)]);
    }
    __syncwarp();
  }
}

// KK steps of a warp from step0 (see tallPerm).
template <int E, int S, int KK>
__device__ __forceinline__ void tall_steps(const byte* __restrict__ in, byte* __restrict__ out, i64 n, i64 step0,
                                           unsigned* st, int lane) {
  typedef typename Elem<E>::T T;
  constexpr int Q = 4 / E, U = S % 4 == 0 ? 4 : S % 2 == 0 ? 2 : 1, VPL = (8 * S + 31) / 32;
  const int nm = (int)((n * E) & 3);  // row s starts (s * nm) & 3 bytes past a word (out is aligned)
  uint4 v[KK][VPL];                   // step j's packed vectors lane + 32i
#pragma unroll
  for (int j = 0; j < KK; ++j)
#pragma unroll
    for (int i = 0; i < VPL; ++i) {
      const int vi = lane + 32 * i;
      v[j][i] = vi < 8 * S ? reinterpret_cast<const uint4*>(in + (step0 + j) * (128 * S))[vi] : make_uint4(0, 0, 0, 0);
    }
  // x[j][h]: word k0 - 1 of row lane + 32h for step j (k0 its first word: the row's last Q
  // positions before the step), which lane 0 needs under its first word; from the packed
  // side (the previous step's bytes: cached): its S whole words where S <= Q (one 8-byte load
  // at S = 2, where Q loads of an element each held tall uint8 back), else element by element
  unsigned x[KK][(S + 31) / 32];
#pragma unroll
  for (int j = 0; j < KK; ++j)
#pragma unroll
    for (int h = 0; h < (S + 31) / 32; ++h) {
      const int s = lane + 32 * h;
      const i64 k0 = (step0 + j) * 32;
      x[j][h] = 0u;
      if (s < S && k0 > 0) {
        if constexpr (S <= Q) {
          const unsigned* gw = reinterpret_cast<const unsigned*>(in) + S * (k0 - 1);
          unsigned g[S];
          if constexpr (S == 2) {
            const uint2 u = *reinterpret_cast<const uint2*>(gw);
            g[0] = u.x, g[1] = u.y;
          } else {
#pragma unroll
            for (int i = 0; i < S; ++i) g[i] = gw[i];
          }
#pragma unroll
          for (int r = 0; r < S; ++r)
            if (s == r) x[j][h] = row_word<E, S>(g, r);
        } else {
#pragma unroll
          for (int p = 0; p < Q; ++p)
            x[j][h] |= (unsigned)reinterpret_cast<const T*>(in)[(Q * (k0 - 1) + p) * S + s] << (8 * E * p);
        }
      }
    }
  const int off = after_all<KK * VPL * 4>(reinterpret_cast<const unsigned(&)[KK * VPL * 4]>(v), n);
  uint4* st4 = reinterpret_cast<uint4*>(st) + off;
#pragma unroll
  for (int j = 0; j < KK; ++j) {
    const i64 k0 = (step0 + j) * 32;  // the step's first word of each row
#pragma unroll
    for (int i = 0; i < VPL; ++i)
      if (lane + 32 * i < 8 * S) st4[staged<S>(lane + 32 * i)] = v[j][i];
    __syncwarp();
    unsigned g[S];  // this lane's group: Q positions of every row, packed
#pragma unroll
    for (int q = 0; q < S; q += U) {
      if constexpr (U == 4) {
        const uint4 u = st4[staged<S>((lane * S + q) / 4)];
        g[q] = u.x, g[q + 1] = u.y, g[q + 2] = u.z, g[q + 3] = u.w;
      } else if constexpr (U == 2) {
        const uint2 u = *reinterpret_cast<const uint2*>(reinterpret_cast<const unsigned*>(st4) + lane * S + q);
        g[q] = u.x, g[q + 1] = u.y;
      } else {
        g[q] = reinterpret_cast<const unsigned*>(st4)[lane * S + q];
      }
    }
    __syncwarp();
    byte* row = out;  // row s's first byte
#pragma unroll
    for (int s = 0; s < S; ++s, row += n * E) {
      const int m = (s * nm) & 3;
      const unsigned w = row_word<E, S>(g, s);
      const unsigned before = __shfl_sync(0xffffffffu, w, (lane + 31) & 31);  // lane 0: unused
      const unsigned first = __shfl_sync(0xffffffffu, x[j][s / 32], s % 32);
      // the aligned word under row bytes 4k - m .. 4k - m + 3: word k-1's last m bytes, word k's first 4-m
      const unsigned a = __funnelshift_rc(lane == 0 ? first : before, w, 32 - 8 * m);
      byte* p = row - m + 4 * (k0 + lane);
      if (k0 + lane == 0 && m != 0) {  // the row's first word: its bytes before the row are another row's
#pragma unroll
        for (int c = 1; c < 4; ++c)
          if (c >= m) p[c] = (byte)(a >> (8 * c));
      } else {
        __stwb(reinterpret_cast<unsigned*>(p), a);  // plain, as store16<false>
      }
    }
  }
}

// n: the long side; full: the steps of 32*Q positions whose loads all stay inside the input
// (the last row's included); positions from 32*Q*full on are the last block's, element by element.
template <int E, int S, int K, bool L2, bool ORDERED = false, bool SHARE = false>
__device__ __forceinline__ void wide_perm(const byte* __restrict__ in, byte* __restrict__ out, i64 n, i64 full) {
  static_assert(E == 1 || E == 2 || E == 4, "4-byte words of 1-, 2- or 4-byte elements");
  static_assert(E < 4 || !SHARE, "4-byte rows start on words: no word after the run to share");
  static_assert(S >= 2 && S <= 64 && K >= 1, "short sides 2..64");
  typedef typename Elem<E>::T T;
  constexpr int Q = 4 / E;
  __shared__ __align__(16) unsigned stage[WP_THREADS / 32][32 * S];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  if (blockIdx.x == gridDim.x - 1) {  // the positions past the full steps
    const i64 p0 = full * 32 * Q, left = (n - p0) * S;
    for (i64 i = threadIdx.x; i < left; i += WP_THREADS) {
      const i64 j = p0 + i / S;
      const int s = (int)(i % S);
      reinterpret_cast<T*>(out)[j * S + s] = reinterpret_cast<const T*>(in)[s * n + j];
    }
    return;
  }
  const i64 step0 = ((i64)blockIdx.x * (WP_THREADS / 32) + warp) * K;
  if constexpr (SHARE) {
    __shared__ __align__(16) unsigned after[WP_THREADS / 32][after_pitch<S>()];
    if (((i64)blockIdx.x + 1) * (WP_THREADS / 32) * K <= full) {  // block-uniform: every warp's run is whole
      wide_steps<E, S, K, L2, ORDERED, true>(in, out, n, step0, stage[warp], lane, &after[0][0]);
      return;
    }
  }
  if (step0 + K <= full) {
    wide_steps<E, S, K, L2, ORDERED>(in, out, n, step0, stage[warp], lane);
  } else {  // the grid's last warps with steps (warp-uniform)
    for (i64 j = step0; j < full; ++j) wide_steps<E, S, 1, L2, ORDERED>(in, out, n, j, stage[warp], lane);
  }
}

template <int E, int S, int K, bool L2, bool ORDERED = false, bool SHARE = false>
__global__ void __launch_bounds__(WP_THREADS)
widePerm(const byte* __restrict__ in, byte* __restrict__ out, i64 n, i64 full) {
  wide_perm<E, S, K, L2, ORDERED, SHARE>(in, out, n, full);
}

// Instantiations whose register count NVRTC's heuristic, left alone, gets wrong, with K as the
// dispatcher picks, told how many blocks per SM to fit:
//  - below what they need, so they spill (1-byte 23 rows: 64 registers under NVRTC 13.0): told
//    that fewer blocks are enough, they take what they need;
//  - above 168, so that only two blocks of 128 fit an SM (2-byte 60 rows, 205 registers where it
//    was told two blocks because NVRTC 13.5 left alone spilled at 168; 2-byte 62, 184): held to
//    three, 168 registers without spilling. On the H200 (benchmarks/h200/transpose/skinny-whole,
//    two runs) 2-byte 62 rows ran at 85.0-85.2% of a copy -> 89.0-90.0%, 60 rows 83.8 -> 90.3%.
//    1-byte 60 and 64 rows (196-200 registers) gained as much there (87 -> 89.5%, 85.8 -> 89.9%),
//    but spill 8-16 bytes at three blocks under NVRTC 13.5, and no kernel here spills: they keep
//    the compiler's choice. One block more an SM at ten other sides gained at most 0.6 points and
//    lost up to 2.3.
// The others keep the compiler's own choice: told to fit fewer blocks than they do, the widest
// took 25-30% more registers and lost up to 10 points of memcpy on the H200.
// Those bounds were measured on plain loads; the three sides take whole lines since
// (plans.perm_line_fetch), and their specializations follow the dispatched form (86, 168 and 168
// registers with it under NVRTC 13.0, no spills; the plain 1-byte 23 and 2-byte 60 rows spill
// unbounded). ORDERED (wide_steps; the dispatcher's plans.PERM_ORDERED): 1-byte 60 rows in the
// order of the last row word each packed unit reads fit three blocks without spilling under both
// NVRTCs (168 registers), where in place order they spill there; 1-byte 41 rows ordered, told four
// blocks as they had, 127. tests/transpose/test_plans.py holds the specializations and the
// dispatched forms in step.
#define WIDE_PERM_BLOCKS(E_, S_, K_, L2_, ORD_, SHARE_, BLOCKS)                                        \
  template <>                                                                                          \
  __global__ void __launch_bounds__(WP_THREADS, BLOCKS)                                                \
  widePerm<E_, S_, K_, L2_, ORD_, SHARE_>(const byte* __restrict__ in, byte* __restrict__ out, i64 n,   \
                                          i64 full) {                                                  \
    wide_perm<E_, S_, K_, L2_, ORD_, SHARE_>(in, out, n, full);                                        \
  }
WIDE_PERM_BLOCKS(2, 60, 2, true, false, false, 3)
WIDE_PERM_BLOCKS(1, 23, 2, true, false, false, 4)
WIDE_PERM_BLOCKS(2, 62, 2, true, false, false, 3)
WIDE_PERM_BLOCKS(1, 60, 2, true, true, false, 3)
WIDE_PERM_BLOCKS(1, 41, 2, true, true, false, 4)

// n: the long side; full: the steps of 32*Q positions inside every row, n*E / 128; row s's
// positions from 32*Q*full - m_s/E on (m_s: its offset past a word) are the last block's.
template <int E, int S, int K>
__global__ void __launch_bounds__(WP_THREADS)
tallPerm(const byte* __restrict__ in, byte* __restrict__ out, i64 n, i64 full) {
  static_assert(E == 1 || E == 2, "4-byte words of 1- or 2-byte elements");
  static_assert(S >= 2 && S <= 64 && K >= 1, "short sides 2..64");
  typedef typename Elem<E>::T T;
  constexpr int Q = 4 / E;
  __shared__ __align__(16) unsigned stage[WP_THREADS / 32][32 * S + 4];  // + 4: the load barrier's offset
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  if (blockIdx.x == gridDim.x - 1) {
    for (int s = 0; s < S; ++s) {
      const i64 m = ((i64)s * n * E) & 3, p0 = full * 32 * Q - m / E;
      for (i64 p = (p0 > 0 ? p0 : 0) + threadIdx.x; p < n; p += WP_THREADS)
        reinterpret_cast<T*>(out)[s * n + p] = reinterpret_cast<const T*>(in)[p * S + s];
    }
    return;
  }
  const i64 step0 = ((i64)blockIdx.x * (WP_THREADS / 32) + warp) * K;
  if (step0 + K <= full) {
    tall_steps<E, S, K>(in, out, n, step0, stage[warp], lane);
  } else {
    for (i64 j = step0; j < full; ++j) tall_steps<E, S, 1>(in, out, n, j, stage[warp], lane);
  }
}
