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
// a row are stored clipped to it. A warp walks `run` consecutive groups of 32 chunks and
// hands the last lane's pieces to the next group's first lane through shared memory, so
// clipped stores happen only at the ends of rows and runs.
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

// TALL: in is n x C (row-major), out is C x n. WIDE: in is C x n, out is n x C.
template <int E, int C, bool TALL, int THREADS>
__global__ void __launch_bounds__(THREADS, 1)  // 1: the registers a wide C needs, not occupancy
skinny(const byte* __restrict__ in, byte* __restrict__ out, i64 n, i64 batch, u64 in_lo, u64 in_hi, int run) {
  constexpr int VE = 16 / E, WARPS = THREADS / 32;
  constexpr int S = C | 1;  // odd stride (in vectors) between lanes' staged runs: no bank conflicts
  // Prefetch the next group while storing this one, where the registers allow it (the
  // prefetch keeps a second block of C x VE elements alive).
  constexpr bool PIPE = TALL && C >= 4 && C <= 12;
  __shared__ uint4 stage[TALL ? WARPS * C : WARPS * 32 * S];  // TALL: the carried pieces; WIDE: staging
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const i64 chunks = (n + VE - 1) / VE, total = chunks * batch, matrix = n * C;
  const i64 groups = (total + 31) / 32, warps_total = (i64)gridDim.x * WARPS;
  uint4* my = stage + warp * (TALL ? C : 32 * S);

  // packed: a chunk's C x VE block as VE short rows of C; lines: as C long-row pieces of VE
  unsigned packed[4 * C], lines[4 * C];
  uint4 nxt_first[TALL ? 1 : C];  // WIDE: the piece after each row's, for the lanes that read it
  // Issue every load of group g (the next group's loads fly while this one is stored).
  auto load = [&](i64 g) {
    const i64 u = g * 32 + lane;
    i64 b = 0, chunk = 0;
    if (u < total) divmod(u, chunks, b, chunk);
    const i64 p0 = chunk * VE;
    if (TALL) {
      const byte* src = in + (b * matrix + p0 * C) * E;
#pragma unroll
      for (int v = 0; v < C; ++v)
        unpack(u < total ? load16_guarded(src + 16 * v, in_lo, in_hi) : make_uint4(0u, 0u, 0u, 0u), packed + 4 * v);
    } else {
      const bool own_next = lane == 31 || p0 + VE >= n;  // no neighbour holds this row's next piece
#pragma unroll
      for (int j = 0; j < C; ++j) {
        const byte* a = in + (b * matrix + j * n + p0) * E;
        const byte* a16 = a - (reinterpret_cast<u64>(a) & 15);
        const uint4 A = u < total ? load16_guarded(a16, in_lo, in_hi) : make_uint4(0u, 0u, 0u, 0u);
        nxt_first[j] = (u < total && own_next && a16 != a) ? load16_guarded(a16 + 16, in_lo, in_hi) : A;
        unpack(A, lines + 4 * j);
      }
    }
  };

  for (i64 g0 = ((i64)blockIdx.x * WARPS + warp) * run; g0 < groups; g0 += warps_total * run) {
    load(g0);
  for (int k = 0; k < run && g0 + k < groups; ++k) {  // warp-uniform: all lanes reach every shuffle
    if (!PIPE && k > 0) load(g0 + k);
    const i64 u = (g0 + k) * 32 + lane;
    const bool live = u < total, more = PIPE && k + 1 < run && g0 + k + 1 < groups;
    i64 b = 0, chunk = 0;
    if (live) divmod(u, chunks, b, chunk);
    const i64 p0 = chunk * VE;  // positions p0 .. p0+VE-1 along n
    const int valid = live ? (int)min((i64)VE, n - p0) : 0;
    if (TALL) {
#pragma unroll
      for (int w = 0; w < 4 * C; ++w) lines[w] = 0u;  // sub-word inserts read their target
#pragma unroll
      for (int e = 0; e < VE; ++e)
#pragma unroll
        for (int j = 0; j < C; ++j) copy_elem<E>(packed, e * C + j, lines, j * VE + e);
      if (more) load(g0 + k + 1);
      __syncwarp();
#pragma unroll
      for (int j = 0; j < C; ++j) {
        const uint4 R = pack(lines + 4 * j);
        byte* row = out + (b * matrix + j * n) * E;  // long row j of matrix b
        const int ts = (int)(reinterpret_cast<u64>(row) & 15);
        // the previous piece of this row: lane - 1's, or for lane 0 the previous group's last
        uint4 prev = shfl(R, (lane + 31) & 31);
        if (lane == 0) prev = my[j];
        const bool have_prev = p0 > 0 && (lane > 0 || k > 0);
        byte* dst = row - ts + p0 * E;
        // without the previous piece, the vector's first ts bytes are someone else's: clipped
        const u64 lo = reinterpret_cast<u64>(dst) + (have_prev ? 0 : ts);
        const u64 hi = reinterpret_cast<u64>(row) + (p0 + valid) * E;
        if (live) {
          store16_clipped<E>(dst, ts ? realign(prev, R, 16 - ts) : R, lo, hi);
          // the row's last bytes: now, unless the next chunk (in this warp's run) stores them
          const bool next_here = p0 + VE < n && (lane < 31 || k + 1 < run);
          if (ts && !next_here) store16_clipped<E>(dst + 16, realign(R, R, 16 - ts), lo, hi);
        }
        if (lane == 31) my[j] = R;
      }
      __syncwarp();
    } else {
      const bool own_next = lane == 31 || p0 + VE >= n;
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
      if (more) load(g0 + k + 1);
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
}
