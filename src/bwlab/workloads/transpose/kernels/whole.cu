// tileWhole: the transpose of 1- to 8-byte elements whose rows do not start on 16-byte
// boundaries (and of every 16-byte matrix: where an output row has odd length, every other row
// starts mid-sector), loaded element by element as in tileScalar but stored in whole, aligned 32-byte
// sectors. tileScalar stores each output row segment where it falls, so a misaligned
// segment's end sectors are written in parts by two blocks: on the H200, float32 at 8193 x 8199
// made 9.7 million L2 write sectors in 3.5 million requests for 8.4 million sectors of data,
// L2 91% busy, 82% of memcpy (92-94% where only the input rows are misaligned).
//
// The output row of input column j owns, in a tile of input rows [r0, r0 + TR), the sectors
// whose first element lies among those rows (and, in the first tile, the sector holding its
// first elements); those reach H - 1 rows past the tile (H = elements a sector), so the tile
// reads TR + H - 1 rows, the extra ones from L2 (the next tile down, next in launch order,
// reads them too). The tile sits in shared memory column-major, each column placed so that its
// output row's first whole sector starts on a 4-byte boundary: a vector stored is four aligned
// word loads, and the column pitch is an odd number of words, so the lanes of a load pass
// (neighbouring columns, one row) store into distinct banks (8- and 16-byte elements as two and
// four word stores, each conflict-free) (with 16-byte-aligned columns, for
// single 16-byte loads, they fell four to a bank: on the H200, uint16 at 11587 x 11593 had 16
// million conflicts in 24 million shared wavefronts). Neighbouring lanes store neighbouring
// vectors of one output row.
// The input has row stride ld and batch stride bstride (elements, negative allowed); the
// output is C-contiguous and aligned to its elements.
#include "tile.cuh"

template <int E, int TR, int TC, int THREADS>
struct WholeTile {
  static constexpr int H = 32 / E;                       // elements a sector
  static constexpr int VE = 16 / E;                      // elements a vector
  static constexpr int RS = THREADS / TC;                // input rows a pass of the block loads
  static constexpr int NK = (TR + H - 1 + RS - 1) / RS;  // passes: the tile's rows and the H - 1 past it
  static constexpr int TV = TR / VE;                     // vectors an output row owns in a tile
  static constexpr int NV = TC * TV / THREADS;           // vectors a thread stores
  // bytes a column: 32 before element 0 (the first sector's head), up to 3 of phase, the rows;
  // an odd number of words
  static constexpr int CP = (35 + NK * RS * E + 7) / 8 * 8 + 4;
  static constexpr int BYTES = TC * CP;
  static_assert(E <= 16 && TR % H == 0 && THREADS % TC == 0 && THREADS % TV == 0 && TC * TV % THREADS == 0,
                "1- to 16-byte elements, whole sectors, whole passes of loads and stores");
  static_assert(NK <= 40, "loads in flight a thread");
};

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS, 1024 / THREADS)
tileWhole(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 batch, i64 ld,
          i64 bstride) {
  typedef WholeTile<E, TR, TC, THREADS> W;
  typedef typename Elem<E>::T T;
  constexpr int H = W::H, VE = W::VE, RS = W::RS, NK = W::NK, TV = W::TV, NV = W::NV, CP = W::CP;
  constexpr int CH = Chains<E, NK>::N, JS = THREADS / TV;
  __shared__ __align__(16) byte s[W::BYTES];
  const i64 tiles_r = (rows + TR - 1) / TR, tiles_c = (cols + TC - 1) / TC;
  const i64 per_matrix = tiles_r * tiles_c, total = per_matrix * batch;
  const int lr = threadIdx.x / TC, lc = threadIdx.x % TC;  // loads: column lc, rows lr + k*RS
  const int vt = threadIdx.x % TV, vj = threadIdx.x / TV;  // stores: vector vt of output rows vj + n*JS
  const u64 out_bytes = (u64)rows * E;
  for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
    i64 b, r0, c0;
    tile_at<TR, TC>(t, tiles_r, per_matrix, b, r0, c0);
    byte* const orow0 = out + (b * cols + c0) * rows * E;  // output row c0 of matrix b
    {  // every thread's loads in flight, then into its column at the column's output phase
      const T* x[CH];
      const i64 xstep = RS * ld;
#pragma unroll
      for (int j = 0; j < CH; ++j) x[j] = reinterpret_cast<const T*>(in) + b * bstride + (r0 + lr + j * RS) * ld + c0 + lc;
      const int rr = (int)min(rows - r0, (i64)(NK * RS)), cc = (int)min(cols - c0, (i64)TC);
      T v[NK];
      if (rr == NK * RS && cc == TC) {
#pragma unroll
        for (int k = 0; k < NK; ++k) {
          v[k] = *x[k % CH];
          x[k % CH] += CH * xstep;
        }
      } else {
        const bool col_in = lc < cc;
#pragma unroll
        for (int k = 0; k < NK; ++k) {
          if (col_in && lr + k * RS < rr) v[k] = *x[k % CH];
          x[k % CH] += CH * xstep;
        }
      }
      byte* const col = s + lc * CP + 32 + (int)(reinterpret_cast<u64>(orow0 + lc * out_bytes) & 3);
#pragma unroll
      for (int k = 0; k < NK; ++k) {
        byte* const at = col + (lr + k * RS) * E;
        if constexpr (E == 8) {  // columns lie 4-byte aligned: words
          reinterpret_cast<unsigned*>(at)[0] = (unsigned)v[k];
          reinterpret_cast<unsigned*>(at)[1] = (unsigned)(v[k] >> 32);
        } else if constexpr (E == 16) {
          unsigned* const w = reinterpret_cast<unsigned*>(at);
          w[0] = v[k].x, w[1] = v[k].y, w[2] = v[k].z, w[3] = v[k].w;
        } else {
          *reinterpret_cast<T*>(at) = v[k];
        }
      }
    }
    __syncthreads();
#pragma unroll
    for (int n = 0; n < NV; ++n) {
      const int j = vj + n * JS;
      if (c0 + j >= cols) break;
      byte* const row = orow0 + j * out_bytes;
      const int a = (int)(reinterpret_cast<u64>(row) & 31);
      const int d = ((32 - a) & 31) / E;  // the row's first whole sector starts at element d
      // element d of column j lies 4-byte aligned in shared memory: at j*CP + 32 + (a & 3) + d*E
      const unsigned* vec = reinterpret_cast<const unsigned*>(s + j * CP + 32 + (a & 3) + d * E) + 4 * vt;
      const i64 f = r0 + d + VE * vt;  // this vector's first element
      if (f - VE * (vt & 1) < rows) {  // its sector starts inside the row
        const uint4 w = make_uint4(vec[0], vec[1], vec[2], vec[3]);
        if (f + VE <= rows) store16<false>(row + f * E, w);
        else store16_clipped<E, false>(row + f * E, w, reinterpret_cast<u64>(row),
                                       reinterpret_cast<u64>(row) + out_bytes);
      }
      if (r0 == 0 && d > 0 && vt < 2)  // the sector holding the row's first elements, clipped below 0
        store16_clipped<E, false>(row + (d - H + VE * vt) * E, make_uint4(vec[-8], vec[-7], vec[-6], vec[-5]),
                                  reinterpret_cast<u64>(row), reinterpret_cast<u64>(row) + out_bytes);
    }
    if (t + gridDim.x < total) __syncthreads();
  }
}

// tileWholeWords: tileWhole for 1- and 2-byte elements, loading whole aligned 4-byte words:
// with element loads bytes ran at 40-43% of memcpy and 2-byte elements at 76-77% on the H200,
// short of bytes in flight and issue slots. Lane k of a warp loads word k (L = 1) or words 2k,
// 2k + 1 (L = 2, one 8-byte load) of the aligned words covering each of its rows' segments;
// those and the next lane's (a shuffle) give the G*L elements (G = 4/E) of columns G*L*k on at
// the row's byte shift, so a tile is TC = 31*L*G columns (lane 31's words are only neighbours).
// Wider loads read fewer L2 sectors a byte: a warp's 128 bytes of a misaligned row span 5 sectors
// for 4, its 256 bytes 9 for 8. A warp takes G consecutive rows a pass and transposes them in
// registers (byte or half-word permutes), so each shared store is one word: one column, G rows.
// Columns sit an odd number of words apart, column c a further 4 * (c >> 5) bytes, so the 31
// lanes of a store (columns G*L apart) fall in distinct banks. The stores read five words and
// shift them by the output row's phase. Loads never leave the input's byte span [in_lo, in_hi),
// nor read rows the tile does not need (the last pass's past TR + H - 1). Lane 31 stores its
// words into G*L spare columns past the tile (no branch a pass), and every lane's column address
// is taken once: recomputed for each pass inside a branch, they cost about 16 instructions a
// pass. Tiles past 48 KiB take dynamic shared memory. MINB: blocks an SM for the launch bounds
// (plans.WORDS_BLOCKS): the loads wait on memory latency, so more warps an SM help.
// Where only the output's rows are misaligned (the input's start on 16-byte boundaries), tiles of
// TC = 32*L*G columns need no shift: each lane's words are its own G*L columns, no shuffle, and a
// warp's 128 bytes of a row are 4 whole sectors.
template <int E, int TR, int TC, int THREADS>
struct WordsTile {
  static constexpr int G = 4 / E;                        // elements a word
  // AIN (tiles of 32*L*G columns): the input's rows start on 16-byte boundaries, so every row
  // segment of a tile does too: no shifts, and every lane's words are its own columns
  static constexpr bool AIN = TC % 31 != 0;
  static constexpr int L = TC / ((AIN ? 32 : 31) * G);   // words a lane loads of each row: 1 or 2
  static constexpr int H = 32 / E, VE = 16 / E;
  static constexpr int RSP = G * (THREADS / 32);         // rows a pass: G a warp
  static constexpr int NP = (TR + H - 1 + RSP - 1) / RSP;  // passes
  // rows loaded: the tile's and the H - 1 past it, in whole groups of G (a warp's pass); a warp
  // whose group of the last pass lies past them loads and stores nothing there
  static constexpr int ROWS = NP * RSP < TR + H ? NP * RSP : TR + H;
  static constexpr int TV = TR / VE;
  static constexpr int NV = (TC * TV + THREADS - 1) / THREADS;
  static constexpr int BANK = L == 1 ? 12 : 4 * (2 * G - 1);  // the most bytes a column's bank offset adds
  // bytes a column: the head sector's 32, the rows, a word read past them, the bank offset;
  // an odd number of words
  static constexpr int CP = (36 + BANK + ROWS * E + 7) / 8 * 8 + 4;
  static constexpr int BYTES = (TC + (AIN ? 0 : L * G)) * CP;  // and lane 31's spare columns
  static constexpr bool DYNAMIC = BYTES > 48 * 1024;  // past the static limit: dynamic shared memory
  static_assert(E <= 2 && TC == (AIN ? 32 : 31) * L * G && (L == 1 || L == 2) && TR % H == 0
                && THREADS % 32 == 0, "words of 1- and 2-byte elements, one or two a lane");
  static_assert(NP * G * L <= 40, "loads in flight a thread");
};

// The aligned word at p, its bytes outside [lo, hi) zero.
__device__ __forceinline__ unsigned load4_guarded(const byte* p, u64 lo, u64 hi) {
  const u64 a = reinterpret_cast<u64>(p);
  if (a >= lo && a + 4 <= hi) return *reinterpret_cast<const unsigned*>(p);
  unsigned w = 0u;
#pragma unroll
  for (int k = 0; k < 4; ++k)
    if (a + k >= lo && a + k < hi) w |= (unsigned)p[k] << (8 * k);
  return w;
}

// The 16 bytes starting sh/8 bytes into the word p[0]: five aligned shared words, shifted.
__device__ __forceinline__ uint4 words16(const unsigned* p, unsigned sh) {
  return make_uint4(__funnelshift_r(p[0], p[1], sh), __funnelshift_r(p[1], p[2], sh),
                    __funnelshift_r(p[2], p[3], sh), __funnelshift_r(p[3], p[4], sh));
}

template <int E, int TR, int TC, int THREADS, int MINB = 1024 / THREADS>
__global__ void __launch_bounds__(THREADS, MINB)
tileWholeWords(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 batch, i64 ld,
               i64 bstride, u64 in_lo, u64 in_hi) {
  typedef WordsTile<E, TR, TC, THREADS> W;
  constexpr int G = W::G, L = W::L, H = W::H, VE = W::VE, RSP = W::RSP, NP = W::NP, ROWS = W::ROWS, TV = W::TV,
                NV = W::NV, CP = W::CP;
  constexpr bool AIN = W::AIN;
  constexpr unsigned AM = 4 * L - 1;  // the loads' alignment, less one
  __shared__ __align__(16) byte s_static[W::DYNAMIC ? 16 : W::BYTES];
  extern __shared__ __align__(16) byte words_dynamic[];
  byte* const s = W::DYNAMIC ? words_dynamic : s_static;
  const i64 tiles_r = (rows + TR - 1) / TR, tiles_c = (cols + TC - 1) / TC;
  const i64 per_matrix = tiles_r * tiles_c, total = per_matrix * batch;
  // loads: words L*lane .. + L-1 of rows wrow + g (+ p*RSP)
  const int lane = threadIdx.x & 31, wrow = (threadIdx.x >> 5) * G;
  // whether this warp's rows of pass p are loaded (all but the last pass's always are)
  auto loaded = [&](int p) { return NP * RSP <= ROWS || p + 1 < NP || wrow + p * RSP < ROWS; };
  const u64 out_bytes = (u64)rows * E;
  const i64 ldb = ld * E;
  for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
    i64 b, r0, c0;
    tile_at<TR, TC>(t, tiles_r, per_matrix, b, r0, c0);
    {
      const byte* const first = in + (b * bstride + r0 * ld + c0) * E;  // the tile's first row segment
      // AIN: every row's shift is 0 (the host checks the input's alignment)
      const unsigned ph0 = AIN ? 0u : (unsigned)reinterpret_cast<u64>(first) & AM;
      const unsigned mr = AIN ? 0u : (unsigned)ldb & AM;
      const byte* x = first + 4 * L * lane + wrow * ldb;  // less its row's shift: the lane's aligned words
      const u64 e0 = reinterpret_cast<u64>(first), e1 = reinterpret_cast<u64>(first + (ROWS - 1) * ldb);
      const u64 lo = (min(e0, e1) & ~(u64)AM), hi = (max(e0, e1) & ~(u64)AM) + 128 * L;
      const bool plain = r0 + ROWS <= rows && lo >= in_lo && hi <= in_hi;
      unsigned v[NP][G][L];
      // two loops, not a test a load: the usual tile's loads run straight (a warp's words of a row
      // span two or three lines, whose other parts the neighbouring tile reads: whole lines from the L2)
      if (plain) {
#pragma unroll
        for (int p = 0; p < NP; ++p)
#pragma unroll
          for (int g = 0; g < G; ++g) {
            const byte* q = x + (p * RSP + g) * ldb - ((ph0 + (unsigned)(wrow + p * RSP + g) * mr) & AM);
            if constexpr (L == 1) {
              v[p][g][0] = loaded(p) ? load4_l2_128(q) : 0u;
            } else {
              const uint2 w = loaded(p) ? load8_l2_128(q) : make_uint2(0u, 0u);
              v[p][g][0] = w.x;
              v[p][g][1] = w.y;
            }
          }
      } else {
#pragma unroll
        for (int p = 0; p < NP; ++p)
#pragma unroll
          for (int g = 0; g < G; ++g) {
            const byte* q = x + (p * RSP + g) * ldb - ((ph0 + (unsigned)(wrow + p * RSP + g) * mr) & AM);
            const bool in_rows = loaded(p) && r0 + wrow + p * RSP + g < rows;
#pragma unroll
            for (int h = 0; h < L; ++h) v[p][g][h] = in_rows ? load4_guarded(q + 4 * h, in_lo, in_hi) : 0u;
          }
      }
      // row wrow of this lane's columns c = G*(L*lane + h) + u, each 4 * (c >> 5) bytes further: that
      // is the same for all of them (lane 31's: the spare ones)
      unsigned* const dst = reinterpret_cast<unsigned*>(s + G * L * lane * CP + 4 * ((G * L * lane) >> 5) + 32
                                                        + wrow * E);
#pragma unroll
      for (int p = 0; p < NP; ++p) {
        if (!loaded(p)) continue;  // the same for the whole warp
        unsigned w[L][G];
#pragma unroll
        for (int g = 0; g < G; ++g) {  // columns G*L*lane .. + G*L-1 of row i: this lane's words and the next's
          if constexpr (AIN) {  // no shift: the lane's own words
#pragma unroll
            for (int h = 0; h < L; ++h) w[h][g] = v[p][g][h];
          } else {
            const unsigned sh = (ph0 + (unsigned)(wrow + p * RSP + g) * mr) & AM;
            const unsigned next = __shfl_down_sync(0xffffffffu, v[p][g][0], 1);
            if constexpr (L == 1) {
              w[0][g] = __funnelshift_r(v[p][g][0], next, 8 * sh);
            } else {  // the row's shift is 0-7 bytes: from the lane's words 0, 1 and the next's 0, or 1 and 0, 1
              const unsigned next1 = __shfl_down_sync(0xffffffffu, v[p][g][1], 1);
              const bool far = sh & 4u;
              const unsigned a = far ? v[p][g][1] : v[p][g][0], m = far ? next : v[p][g][1], z = far ? next1 : next;
              w[0][g] = __funnelshift_r(a, m, 8 * sh);  // the shift is taken mod 32
              w[1][g] = __funnelshift_r(m, z, 8 * sh);
            }
          }
        }
        constexpr int step = RSP * E / 4, cw = CP / 4;  // words between passes in a column, between columns
#pragma unroll
        for (int h = 0; h < L; ++h) {
          if constexpr (G == 4) {  // 4 x 4 bytes: word t = column c + t, rows i .. i+3
            const unsigned lo01 = __byte_perm(w[h][0], w[h][1], 0x5140), hi01 = __byte_perm(w[h][0], w[h][1], 0x7362);
            const unsigned lo23 = __byte_perm(w[h][2], w[h][3], 0x5140), hi23 = __byte_perm(w[h][2], w[h][3], 0x7362);
            const unsigned col[4] = {__byte_perm(lo01, lo23, 0x5410), __byte_perm(lo01, lo23, 0x7632),
                                     __byte_perm(hi01, hi23, 0x5410), __byte_perm(hi01, hi23, 0x7632)};
#pragma unroll
            for (int u = 0; u < G; ++u) dst[(G * h + u) * cw + p * step] = col[u];
          } else {  // 2 x 2 halves
            const unsigned col[2] = {__byte_perm(w[h][0], w[h][1], 0x5410), __byte_perm(w[h][0], w[h][1], 0x7632)};
#pragma unroll
            for (int u = 0; u < G; ++u) dst[(G * h + u) * cw + p * step] = col[u];
          }
        }
      }
    }
    __syncthreads();
    // Output row c0 + j from element r0 on at obase + j * out_bytes (r0 is a multiple of TR, so of a
    // sector's elements: a row's phase is that of its address here). A vector of row j at byte fb
    // from element r0 (fb = d * E + 16 * vt: the row's first whole sector starts at element r0 + d,
    // d * E = (-address) & 31) reads column j's shared words from byte 32 + fb on. Where a thread's
    // vectors share one vt (THREADS % TV == 0) and lie JS rows apart with JS * E a multiple of 32
    // bytes, their rows start at the same phase: d, fb, the words' shift and whether the vectors are
    // clipped are the same for all of them, and the row pointer moves by a constant (computed for
    // each vector, a store took about 43 instructions, 21 this way). The first tile row's head
    // sectors after the rest.
    byte* const obase = out + ((b * cols + c0) * rows + r0) * E;
    const int rem = (int)min(rows - r0, (i64)(TR + H)) * E, cc = (int)min(cols - c0, (i64)TC);
    // one vector: `at` its output bytes, `words` its column's aligned shared words, z = d * E
    auto emit = [&](byte* at, const byte* words, int z, bool whole, int fb) {
      const uint4 w = words16(reinterpret_cast<const unsigned*>(words), 8 * (z & 3));
      if (whole) {
        store16<false>(at, w);
      } else {
        const u64 lo = reinterpret_cast<u64>(at) - fb - (u64)r0 * E;  // the whole output row
        store16_clipped<E, false>(at, w, lo, lo + out_bytes);
      }
    };
    constexpr int JS = THREADS / TV;
    if constexpr (THREADS % TV == 0 && JS * E % 32 == 0 && 32 % JS == 0) {
      const int j0 = threadIdx.x / TV, vt = threadIdx.x % TV;
      byte* row = obase + j0 * out_bytes;
      const int z = (int)(0u - (unsigned)reinterpret_cast<u64>(row)) & 31, fb = z + 16 * vt;
      if (fb - 16 * (vt & 1) < rem) {  // the vectors' sectors start inside their rows
        const bool whole = fb + 16 <= rem;
        const u64 step = (u64)JS * out_bytes;
        const byte* col = s + j0 * CP + 32 + fb - (z & 3);  // j0 < JS: column j0 + n*JS's bank offset
        row += fb;                                          // is known for each n
#pragma unroll
        for (int n = 0; n < NV; ++n, row += step) {
          if (j0 + n * JS >= cc) break;
          emit(row, col + n * JS * CP + 4 * ((n * JS) >> 5), z, whole, fb);
        }
      }
    } else {
#pragma unroll
      for (int n = 0; n < NV; ++n) {
        const int q = threadIdx.x + n * THREADS, j = q / TV, vt = q % TV;
        if (j >= cc) break;
        byte* const row = obase + j * out_bytes;
        const int z = (int)(0u - (unsigned)reinterpret_cast<u64>(row)) & 31, fb = z + 16 * vt;
        if (fb - 16 * (vt & 1) < rem)
          emit(row + fb, s + j * CP + 4 * (j >> 5) + 32 + fb - (z & 3), z, fb + 16 <= rem, fb);
      }
    }
    if (r0 == 0) {  // the sector holding each row's first elements, clipped below 0
#pragma unroll
      for (int n = 0; n < NV; ++n) {
        const int q = threadIdx.x + n * THREADS, j = q / TV, vt = q % TV;
        if (j >= cc) break;
        byte* const row = obase + j * out_bytes;
        const int a = (int)(reinterpret_cast<u64>(row) & 31), d = ((32 - a) & 31) / E, o = d * E + 16 * vt;
        if (d > 0 && vt < 2)
          store16_clipped<E, false>(row + (d - H + VE * vt) * E,
                                    words16(reinterpret_cast<const unsigned*>(s + j * CP + 4 * (j >> 5)
                                                                              + (o & ~3)),
                                            8 * (o & 3)),
                                    reinterpret_cast<u64>(row), reinterpret_cast<u64>(row) + out_bytes);
      }
    }
    if (t + gridDim.x < total) __syncthreads();
  }
}
