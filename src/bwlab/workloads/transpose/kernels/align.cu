// tileAlign: the tile transpose for rows that do not start on 16-byte boundaries: extents
// that are not a multiple of 16 bytes, views that start mid-allocation, row pitches of slices
// (ld != cols, negative included). Every global access is still a 16-byte vector:
//  - load: each input row segment is read as the aligned vectors covering it; lane k takes
//    lane k+1's vector with a shuffle (the last lane, the next piece's first vector) and
//    shifts the pair by the row's misalignment (realign), so shared memory holds the tile
//    exactly as tileAny lays it out (any.cu), conflict-free;
//  - store: the store phase builds the output vectors relative to each output row segment,
//    as tileAny does, then shifts each by that row's misalignment with the previous lane's
//    vector; the first and last vectors of a segment are stored clipped to it.
// Each warp moves whole row segments in consecutive iterations (patch p = warp * N + i), so
// the vector a piece needs from its neighbour is always in the warp: one extra load per
// misaligned input row segment, no partial stores inside a segment. A block walks a run of
// `run` consecutive tiles down a tile column and keeps, per output row, the last vector of
// the previous tile in registers: output rows are written as one stream per run, with
// clipped (partial) stores only where a run starts and ends.
// Loads never leave the input's byte span [in_lo, in_hi): vectors that cross its ends are
// read byte by byte. Outputs are C-contiguous (pitch rows); the input has row stride ld and
// batch stride bstride, in elements.
#include "tile.cuh"

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
tileAlign(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 batch, i64 ld,
          i64 bstride, u64 in_lo, u64 in_hi, int run) {
  typedef TileShape<E, TR, TC> S;
  typedef typename Unit<E>::T U;
  constexpr int VE = S::VE, G = S::G, WARPS = THREADS / 32;
  constexpr int PPR = TC * E / 128, PPO = TR * E / 128;  // 128-byte pieces per input / output segment
  constexpr int LOAD_PATCHES = (TR / 4) * PPR, STORE_PATCHES = (TC / (4 * G)) * PPO;
  static_assert(THREADS % 32 == 0 && LOAD_PATCHES % WARPS == 0 && STORE_PATCHES % WARPS == 0,
                "threads must divide the tile's patches");
  constexpr int NL = LOAD_PATCHES / WARPS, NS = STORE_PATCHES / WARPS;
  static_assert(NL % PPR == 0 && NS % PPO == 0, "each warp moves whole row segments");
  __shared__ __align__(16) byte s[S::BYTES];

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int pr = lane >> 3, pv = lane & 7;
  const i64 tiles_r = (rows + TR - 1) / TR, tiles_c = (cols + TC - 1) / TC;
  const i64 per_matrix = tiles_r * tiles_c, total = per_matrix * batch;
  const i64 runs = (total + run - 1) / run;
  uint4 carry[NS / PPO][G];  // per output row this lane serves: the previous piece's vector

  uint4 v[NL], ex[NL / PPR];  // ex: the vector after each row segment, for its last lane
  // Issue every load of tile t (loads of the next tile fly while this one is stored).
  auto load = [&](i64 t) {
    i64 b, r0, c0;
    tile_at<TR, TC>(t, tiles_r, per_matrix, b, r0, c0);
    const byte* src = in + (b * bstride + c0) * E;
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      const int r = (warp * (NL / PPR) + i / PPR) * 4 + pr, piece = i % PPR;
      const byte* seg = src + (r0 + r) * ld * E;
      const byte* a16 = seg - (reinterpret_cast<u64>(seg) & 15);
      v[i] = make_uint4(0u, 0u, 0u, 0u);
      if (piece == PPR - 1) ex[i / PPR] = v[i];
      if (r0 + r < rows) {
        v[i] = load16_guarded(a16 + 16 * (piece * 8 + pv), in_lo, in_hi);
        if (piece == PPR - 1 && pv == 7 && a16 != seg) ex[i / PPR] = load16_guarded(a16 + 16 * (PPR * 8), in_lo, in_hi);
      }
    }
  };

  for (i64 ru = blockIdx.x; ru < runs; ru += gridDim.x) {
    if (ru * run < total) load(ru * run);
  for (int k = 0; k < run && ru * run + k < total; ++k) {
    const i64 t = ru * run + k;
    i64 b, r0, c0;
    tile_at<TR, TC>(t, tiles_r, per_matrix, b, r0, c0);
    // The previous tile of this run is the tile above in the same column (tile order is
    // column first), and so is the next unless this is a column's last tile row.
    const bool after = k > 0 && r0 > 0, before = k + 1 < run && t + 1 < total && r0 + TR < rows;
    const byte* src = in + (b * bstride + c0) * E;
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      const int r = (warp * (NL / PPR) + i / PPR) * 4 + pr, piece = i % PPR;
      const int sft = (int)(reinterpret_cast<u64>(src + (r0 + r) * ld * E) & 15);
      // lanes 1..7 pass their vector down; lane 0 passes the next piece's first vector to lane 7
      const uint4 send = (pv == 0 && piece + 1 < PPR) ? v[(i + 1) % NL] : v[i];
      uint4 nxt = shfl(send, pv == 7 ? lane - 7 : lane + 1);
      if (piece == PPR - 1 && pv == 7) nxt = ex[i / PPR];  // past the segment's last piece
      const int c = (piece * 8 + pv) * VE;
      *reinterpret_cast<uint4*>(s + r * S::PITCH + (r / VE) * 16 + c * E) = sft ? realign(v[i], nxt, sft) : v[i];
    }
    if (k + 1 < run && t + 1 < total) load(t + 1);  // in flight during this tile's store phase
    __syncthreads();
    const i64 valid = min((i64)TR, rows - r0) * E;  // bytes of each output segment inside the matrix
#pragma unroll
    for (int q = 0; q < NS; ++q) {
      const int piece = q % PPO;
      const int j = (warp * (NS / PPO) + q / PPO) * 4 * G + pr * G;  // first of G output rows
      const int i = (piece * 8 + pv) * VE;                              // first of VE output columns
      U u[VE];
#pragma unroll
      for (int e = 0; e < VE; ++e)
        u[e] = *reinterpret_cast<const U*>(s + (i + e) * S::PITCH + (i / VE) * 16 + j * E);
#pragma unroll
      for (int g = 0; g < G; ++g) {
        const uint4 R = gather<E>(u, g);  // output bytes [16k, 16k + 16) of the segment, k = piece*8 + pv
        // lanes 0..6 pass R up; lane 7 passes the previous piece's last vector round to lane 0
        // (for piece 0, the previous tile's: the carry survives from tile to tile)
        uint4& c = carry[q / PPO][g];
        const uint4 prev = shfl(pv == 7 ? c : R, pv == 0 ? lane + 7 : lane - 1);
        c = R;
        if (c0 + j + g >= cols) continue;
        byte* seg = out + (b * rows * cols + (c0 + j + g) * rows + r0) * E;
        const int ts = (int)(reinterpret_cast<u64>(seg) & 15);
        byte* dst = seg - ts + 16 * (piece * 8 + pv);
        const u64 hi = reinterpret_cast<u64>(seg) + valid;
        // The aligned vector at dst holds the segment's bytes [16k - ts, 16k + 16 - ts): the end
        // of the previous vector and the start of this one. The bytes before the segment are
        // the previous tile's, in prev when it was this run's; else they are clipped away.
        const u64 lo = reinterpret_cast<u64>(seg) - (after ? ts : 0);
        // a select, not a branch: output rows with and without an offset share warps
        store16_clipped<E>(dst, ts ? realign(prev, R, 16 - ts) : R, lo, hi);
        // the segment's last ts bytes: now, unless the next tile of the run stores them whole
        if (ts && pv == 7 && piece == PPO - 1 && !before)
          store16_clipped<E>(dst + 16, realign(R, R, 16 - ts), lo, hi);
      }
    }
    __syncthreads();  // the block's next tile reuses the shared buffer
  }
  }
}
