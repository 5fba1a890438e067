// Transposes with one short side (C <= 16 elements), where a tile would idle most threads:
// tall (n x C -> C x n) and wide (C x n -> n x C). One thread owns a chunk of VE = 16/E
// positions along the long side: the C x VE block it moves is one contiguous run of 16*C
// bytes on the short-row side and C 16-byte pieces of the C long rows, all held in
// registers and rearranged with compile-time indices (C is a template parameter). The 32
// lanes of a warp own 32 consecutive chunks, so each long row's pieces are consecutive
// across the warp. Elements travel as raw bytes: bit-exact for every dtype.
//
// Any n: a long row j starts at byte j*n*E, on a 16-byte boundary only when n*E is a
// multiple of 16. The pieces of a misaligned row are realigned across lanes (vec.cuh): a
// lane takes its neighbour's piece with a shuffle and shifts the pair by the row's offset.
// On the long-row side every access stays a 16-byte vector; vectors that cross the ends of
// a row are stored clipped to it. TALL: a warp's lane 0 also loads the chunk before its
// own, so each warp stores whole vectors with no hand-over between warps; vectors away from
// the ends of the rows (and loads of whole chunks) take no bounds tests. WIDE: a warp walks
// `run` consecutive groups of 32 chunks, staged in shared memory.
// Batches are taken when n*E is a multiple of 16 (every chunk then starts aligned); the
// dispatcher sends other batched shapes to tileAlign.
#include "vec.cuh"

// Copy element fi of word array `from` to element ti of `to` (indices known at compile
// time after unrolling, so both arrays stay in registers: shifts and masks, no local memory).
template <int E>
__device__ __forceinline__ void copy_elem(const unsigned* from, int fi, unsigned* to, int ti) {
  if (E >= 4) {
#pragma unroll
    for (int w = 0; w < E / 4; ++w) to[ti * (E / 4) + w] = from[fi * (E / 4) + w];
  } else {
    constexpr unsigned MASK = E == 1 ? 0xFFu : 0xFFFFu;
    const int fs = 8 * ((fi * E) & 3), ts = 8 * ((ti * E) & 3);
    const unsigned v = (from[(fi * E) >> 2] >> fs) & MASK;
    unsigned& d = to[(ti * E) >> 2];
    d = (d & ~(MASK << ts)) | (v << ts);
  }
}

__device__ __forceinline__ void unpack(uint4 v, unsigned* w) { w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w; }
__device__ __forceinline__ uint4 pack(const unsigned* w) { return make_uint4(w[0], w[1], w[2], w[3]); }

// Every element of a chunk's C x VE block, from `packed` (VE short rows of C) to `lines` (C long-row
// pieces of VE).
template <int E, int C>
__device__ __forceinline__ void to_lines(const unsigned* packed, unsigned* lines) {
#pragma unroll
  for (int w = 0; w < 4 * C; ++w) lines[w] = 0u;  // sub-word inserts read their target
#pragma unroll
  for (int e = 0; e < 16 / E; ++e)
#pragma unroll
    for (int j = 0; j < C; ++j) copy_elem<E>(packed, e * C + j, lines, j * (16 / E) + e);
}

// TALL (in n x C, row-major; out C x n): a lane per chunk, a warp on 32 consecutive chunks. Where
// the long rows do not start on 16-byte boundaries (n*E not a multiple of 16, so batch 1), each
// aligned output vector holds the end of one chunk's piece and the start of the next: a lane
// takes the previous chunk's piece from lane - 1, and lane 0 loads the previous chunk itself (one
// chunk more a warp, mostly from L2). So every vector inside a row is stored whole by one lane,
// with no carry between warps; only a row's first and last vectors are clipped.
template <int E, int C, int THREADS>
__device__ __forceinline__ void tall_chunks(const byte* __restrict__ in, byte* __restrict__ out, i64 n, i64 batch,
                                            u64 in_lo, u64 in_hi) {
  constexpr int VE = 16 / E, WARPS = THREADS / 32;
  const int lane = threadIdx.x & 31;
  const i64 chunks = (n + VE - 1) / VE, total = chunks * batch, matrix = n * C;
  const bool shifted = (n * E) & 15;  // warp-uniform: the shuffles below run on every lane or none
  for (i64 g = (i64)blockIdx.x * WARPS + (threadIdx.x >> 5); g * 32 < total; g += (i64)gridDim.x * WARPS) {
    const i64 u = g * 32 + lane;
    const bool live = u < total;
    i64 b = 0, chunk = u;
    if (batch > 1 && live) divmod(u, chunks, b, chunk);
    const i64 p0 = chunk * VE;  // positions p0 .. p0+VE-1 along n
    const bool whole = live && p0 + VE <= n;
    const byte* src = in + (b * matrix + p0 * C) * E;
    unsigned packed[4 * C], lines[4 * C], prev[4 * C];
    if (whole) {
#pragma unroll
      for (int v = 0; v < C; ++v) unpack(*reinterpret_cast<const uint4*>(src + 16 * v), packed + 4 * v);
    } else {
#pragma unroll
      for (int v = 0; v < C; ++v)
        unpack(live ? load16_guarded(src + 16 * v, in_lo, in_hi) : make_uint4(0u, 0u, 0u, 0u), packed + 4 * v);
    }
    if (shifted && lane == 0) {
      if (live && p0 > 0) {  // the previous chunk: whole, as only the last is not
#pragma unroll
        for (int v = 0; v < C; ++v) unpack(*reinterpret_cast<const uint4*>(src - 16 * (C - v)), lines + 4 * v);
        to_lines<E, C>(lines, prev);
      } else {  // none: bytes before the row, clipped, but never an indeterminate value
#pragma unroll
        for (int w = 0; w < 4 * C; ++w) prev[w] = 0u;
      }
    }
    to_lines<E, C>(packed, lines);
    // inside every row: from its second vector (p0*E >= 16 > ts) to the one before its last
    const bool inner = p0 > 0 && p0 + VE < n;
#pragma unroll
    for (int j = 0; j < C; ++j) {
      uint4 V = pack(lines + 4 * j);
      byte* row = out + (b * matrix + j * n) * E;  // long row j of matrix b
      const int ts = (int)(reinterpret_cast<u64>(row) & 15);
      byte* dst = row - ts + p0 * E;
      const u64 lo = reinterpret_cast<u64>(row), hi = lo + n * E;
      if (shifted) {
        uint4 P = shfl(V, (lane + 31) & 31);  // the previous chunk's piece of row j
        if (lane == 0) P = pack(prev + 4 * j);
        // the row's last bytes, past this vector: stored by the next chunk's lane, or here
        if (live && ts && p0 + VE >= n) store16_clipped<E>(dst + 16, realign(V, V, 16 - ts), lo, hi);
        if (ts) V = realign(P, V, 16 - ts);  // P's bytes before p0 of the row, V's from it
      }
      if (inner) __stcs(reinterpret_cast<uint4*>(dst), V);
      else if (live) store16_clipped<E>(dst, V, lo, hi);
    }
  }
}

// WIDE (in C x n, out n x C): a lane per chunk of VE positions, its C row pieces realigned with the
// next lane's, then staged per warp so that the warp stores its group's 32*C packed vectors in order.
// A warp walks `run` consecutive groups of 32 chunks.
template <int E, int C, int THREADS>
__device__ __forceinline__ void wide_groups(const byte* __restrict__ in, byte* __restrict__ out, i64 n, i64 batch,
                                            u64 in_lo, u64 in_hi, int run) {
  constexpr int VE = 16 / E, WARPS = THREADS / 32;
  constexpr int S = C | 1;  // odd stride (in vectors) between lanes' staged runs: no bank conflicts
  __shared__ uint4 stage[WARPS * 32 * S];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const i64 chunks = (n + VE - 1) / VE, total = chunks * batch, matrix = n * C;
  const i64 groups = (total + 31) / 32, warps_total = (i64)gridDim.x * WARPS;
  uint4* my = stage + warp * 32 * S;
  unsigned packed[4 * C], lines[4 * C];
  uint4 nxt_first[C];  // the piece after each row's, for the lanes that read it

  for (i64 g0 = ((i64)blockIdx.x * WARPS + warp) * run; g0 < groups; g0 += warps_total * run) {
  for (int k = 0; k < run && g0 + k < groups; ++k) {  // warp-uniform: all lanes reach every shuffle
    const i64 u = (g0 + k) * 32 + lane;
    const bool live = u < total;
    i64 b = 0, chunk = 0;
    if (live) divmod(u, chunks, b, chunk);
    const i64 p0 = chunk * VE;  // positions p0 .. p0+VE-1 along n
    const bool own_next = lane == 31 || p0 + VE >= n;  // no neighbour holds this row's next piece
#pragma unroll
    for (int j = 0; j < C; ++j) {
      const byte* a = in + (b * matrix + j * n + p0) * E;
      const byte* a16 = a - (reinterpret_cast<u64>(a) & 15);
      const uint4 A = live ? load16_guarded(a16, in_lo, in_hi) : make_uint4(0u, 0u, 0u, 0u);
      nxt_first[j] = (live && own_next && a16 != a) ? load16_guarded(a16 + 16, in_lo, in_hi) : A;
      unpack(A, lines + 4 * j);
    }
#pragma unroll
    for (int j = 0; j < C; ++j) {  // realign each row's piece with the next lane's (or its own next)
      const byte* a = in + (b * matrix + j * n + p0) * E;
      const int sft = (int)(reinterpret_cast<u64>(a) & 15);
      uint4 nxt = shfl(pack(lines + 4 * j), (lane + 1) & 31);
      if (own_next) nxt = nxt_first[j];
      if (sft) unpack(realign(pack(lines + 4 * j), nxt, sft), lines + 4 * j);
    }
#pragma unroll
    for (int w = 0; w < 4 * C; ++w) packed[w] = 0u;
#pragma unroll
    for (int e = 0; e < VE; ++e)
#pragma unroll
      for (int j = 0; j < C; ++j) copy_elem<E>(lines, j * VE + e, packed, e * C + j);
    if (live) {
#pragma unroll
      for (int v = 0; v < C; ++v) my[lane * S + v] = pack(packed + 4 * v);
    }
    __syncwarp();
    // The group's output is one contiguous range of 32*C vectors (when whole): a warp
    // stores it as consecutive 16-byte vectors, the last clipped to the matrix.
    const i64 first = (g0 + k) * 32;  // first chunk of the group
    i64 fb, fc;
    divmod(first, chunks, fb, fc);
    byte* o = out + (fb * matrix + fc * VE * C) * E;
    const u64 hi = reinterpret_cast<u64>(out) + (u64)(batch * matrix * E);
#pragma unroll
    for (int q = lane; q < 32 * C; q += 32) {
      const int who = q / C;
      if (first + who < total) store16_clipped<E>(o + 16 * q, my[who * S + q % C], reinterpret_cast<u64>(o), hi);
    }
    __syncwarp();
  }
  }
}

// run: groups a warp walks in turn (WIDE only). Blocks an SM: 1 lets a wide C take the registers it
// needs; 3 holds tall 2-, 4- and 8-byte elements of 4 columns to 71-72 registers, three blocks an SM
// (84-86, two blocks, unbounded; NVRTC 13.5).
template <int E, int C, bool TALL, int THREADS>
__global__ void __launch_bounds__(THREADS, TALL && C <= 4 ? 3 : 1)
skinny(const byte* __restrict__ in, byte* __restrict__ out, i64 n, i64 batch, u64 in_lo, u64 in_hi, int run) {
  if constexpr (TALL) tall_chunks<E, C, THREADS>(in, out, n, batch, in_lo, in_hi);
  else wide_groups<E, C, THREADS>(in, out, n, batch, in_lo, in_hi, run);
}
