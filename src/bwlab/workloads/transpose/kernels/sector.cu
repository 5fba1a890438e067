// tileSector: the transpose of bytes whose rows do not start on 16-byte boundaries, with
// every output write a whole, aligned 32-byte sector. The element tiles (tileScalar, tileStage)
// write each output row segment where it falls, so a misaligned segment's end sectors are
// written in parts by two blocks, and a warp's store of bytes covers one or two sectors; on
// the H200 L2 was then 93% busy with uint8 (Nsight Compute: 15.7 million write sectors and 9.6
// million write requests for a 268 MB output, against 8.4 and 2.1 million for whole 128-byte
// lines). Here each output sector belongs to one block and is stored whole, by two lanes of one
// instruction, and a row's sectors by neighbouring lanes: 8.6 million sectors, 5.5 million requests.
//
// A block walks one strip of TC input columns down a chunk of input rows, W rows a step. The
// output row of column j owns, in this step, the sectors whose first element lies among the
// step's W rows; those sectors reach up to H-1 rows further (H = elements a sector), so the
// block keeps a window of W + H rows in shared memory. Rows are read as the aligned 16-byte
// vectors covering each row segment, with asynchronous copies into raw buffers (units of W
// rows, two ahead of the step being stored), then realigned into the window (element c of
// window row i at i * PITCH + c * E): rows 0..H-1 from the previous unit, the rest from this
// one. A chunk reads H rows past its end (the next chunk's first rows): the only input read
// twice, besides the one vector a row segment shares with the next strip.
// Built for 1- to 4-byte elements, dispatched for bytes: on the H200 it took uint8 from 58% to
// 65% of memcpy, while 2- and 4-byte elements ran 1-15 points behind tileScalar (realigning and
// the window's steps cost more instructions than the whole sectors save).
// Loads never leave the input's byte span [in_lo, in_hi). The input has row stride ld and
// batch stride bstride (elements, negative allowed); the output is C-contiguous and aligned to
// its elements.
#include "tile.cuh"

// The 16 bytes of output row jj from window row f on: element e from window row f + e, column
// jj (f + e may be negative for the matrix's first sectors when clamp: those elements are
// clipped away, so any window row will do).
template <int E, int PITCH>
__device__ __forceinline__ uint4 gather_column(const byte* win, int jj, int f, bool clamp) {
  typedef typename Elem<E>::T T;
  constexpr int VE = 16 / E;
  unsigned x[VE];
#pragma unroll
  for (int e = 0; e < VE; ++e) x[e] = *reinterpret_cast<const T*>(win + (clamp ? max(f + e, 0) : f + e) * PITCH + jj * E);
  unsigned w[4];
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    if (E == 4) w[t] = x[t];
    else if (E == 2) w[t] = __byte_perm(x[2 * t], x[2 * t + 1], 0x5410);
    else w[t] = __byte_perm(__byte_perm(x[4 * t], x[4 * t + 1], 0x0040), __byte_perm(x[4 * t + 2], x[4 * t + 3], 0x0040),
                            0x5410);
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// The store phase of a step whose window starts at input row r0 (a multiple of H): each of the
// TC output rows from dst on (output row c0 + jj at dst + jj * rows * E) gets the sectors whose
// first element lies in [r0, r0 + W) and before rb (the chunk's end), two lanes a sector and
// a row's sectors on neighbouring lanes; at r0 = 0 also the sector holding the row's first
// elements when it starts before them. Stores are clipped only at the ends of output rows.
template <int E, int W, int TC, int THREADS, int PITCH>
__device__ __forceinline__ void store_sectors(const byte* win, byte* dst, i64 r0, i64 rb, i64 rows, i64 cols,
                                              i64 c0) {
  constexpr int H = 32 / E, VE = 16 / E, NS = 2 * TC * (W / H) / THREADS;
  static_assert(2 * TC * (W / H) % THREADS == 0, "threads must divide a step's stores");
  const u64 out_bytes = (u64)rows * E;
#pragma unroll 1
  for (int n = 0; n < NS; ++n) {
    const int q = threadIdx.x + n * THREADS, h = q & 1, m = (q >> 1) % (W / H), jj = (q >> 1) / (W / H);
    byte* const row = dst + (unsigned)jj * out_bytes;
    const int d = (int)((32 - (reinterpret_cast<u64>(row) & 31)) & 31) / E;  // the row's first whole sector
    const i64 f = r0 + d + H * m;  // this sector's first element
    if (c0 + jj >= cols || f >= rb) continue;  // past the matrix, or the next chunk's
    const uint4 v = gather_column<E, PITCH>(win, jj, d + H * m + VE * h, false);
    byte* p = row + (f + VE * h) * E;
    if (f + VE * h + VE <= rows) __stcs(reinterpret_cast<uint4*>(p), v);
    else store16_clipped<E>(p, v, reinterpret_cast<u64>(row), reinterpret_cast<u64>(row) + out_bytes);
  }
  if (r0 == 0) {
    for (int q = threadIdx.x; q < 2 * TC; q += THREADS) {
      const int h = q & 1, jj = q >> 1;
      byte* const row = dst + (unsigned)jj * out_bytes;
      const int d = (int)((32 - (reinterpret_cast<u64>(row) & 31)) & 31) / E;
      if (c0 + jj >= cols || d == 0) continue;
      store16_clipped<E>(row + (d - H + VE * h) * E, gather_column<E, PITCH>(win, jj, d - H + VE * h, true),
                         reinterpret_cast<u64>(row), reinterpret_cast<u64>(row) + out_bytes);
    }
  }
}

template <int E, int W, int TC>
struct SectorShape {
  static constexpr int H = 32 / E;          // elements a sector
  static constexpr int VE = 16 / E;         // elements a vector
  static constexpr int PV = TC * E / 16;    // vectors a realigned row
  static constexpr int RAW = 16 * (PV + 1); // bytes a row as read: the aligned vectors covering it
  static constexpr int UNIT = W * RAW;      // a step's new rows as read
  static constexpr int STAGES = 3;          // units: two being realigned (the window's) and one in flight
  static constexpr int PITCH = TC * E + 4;  // bytes a window row: consecutive rows one bank apart
  static constexpr int BYTES = STAGES * UNIT + (W + H) * PITCH;
  static_assert(E <= 4 && W % H == 0 && TC * E % 16 == 0, "1- to 4-byte elements, steps of whole sectors");
};

template <int E, int W, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
tileSector(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 batch, i64 ld,
           i64 bstride, u64 in_lo, u64 in_hi, i64 chunk) {
  typedef SectorShape<E, W, TC> S;
  constexpr int H = S::H, PV = S::PV, RAW = S::RAW, UNIT = S::UNIT, PITCH = S::PITCH;
  constexpr int L = PV + 1 <= 16 ? 16 : 32;  // lanes a row as read (those past its vectors idle)
  constexpr int RPP = THREADS / L, NI = W / RPP;  // rows a pass, passes a unit
  constexpr int NR = ((W + H) * PV + THREADS - 1) / THREADS;   // vectors a thread realigns a step
  static_assert(THREADS % 32 == 0 && (PV & (PV - 1)) == 0 && PV + 1 <= 32 && W % RPP == 0,
                "strips of 2^n vectors, at most 31; whole passes of rows");
  __shared__ __align__(16) byte s[S::BYTES];
  byte* const win = s + S::STAGES * UNIT;
  const i64 strips = (cols + TC - 1) / TC, chunks = (rows + chunk - 1) / chunk;
  const i64 total = strips * chunks * batch, ldb = ld * E, pass = RPP * ldb;
  const int lk = threadIdx.x % L, li = threadIdx.x / L;  // this thread's vector and first row in every unit

  for (i64 item = blockIdx.x; item < total; item += gridDim.x) {
    i64 b, rest, ci, si;
    divmod(item, strips * chunks, b, rest);
    divmod(rest, strips, ci, si);  // strips first: neighbouring blocks share row segments' end vectors
    const i64 c0 = si * TC, ra = ci * chunk, rb = min(rows, ra + chunk);
    const int steps = (int)((rb - ra + W - 1) / W);
    const byte* src = in + (b * bstride + c0) * E;
    // input row r's byte offset from 16-byte alignment: (s16 + r * m16) mod 16
    const unsigned s16 = (unsigned)reinterpret_cast<u64>(src), m16 = (unsigned)ldb;
    byte* const dst = out + (b * cols + c0) * rows * E;  // output row c0 of matrix b
    // Unit u: input rows ra + u*W + H .. + W-1 (the new rows of step u's window), as read,
    // into raw buffer (u + 1) % STAGES; rows before the chunk (u = -1) or past the matrix are
    // not read. One commit group a unit, empty or not.
    auto issue = [&](int u) {
      if (u < steps && lk <= PV) {
        byte* const buf = s + ((u + 1) % S::STAGES) * UNIT + li * RAW + 16 * lk;
        const i64 r0 = ra + (i64)u * W + H;  // the unit's first row
        const byte* row = src + (r0 + li) * ldb;
        // the unit's byte span, from its first and last rows' covers: inside the input's span
        // (the usual case), no load needs guarding
        const u64 ends[2] = {reinterpret_cast<u64>(src + r0 * ldb), reinterpret_cast<u64>(src + (r0 + W - 1) * ldb)};
        const u64 lo = (min(ends[0], ends[1]) & ~(u64)15), hi = (max(ends[0], ends[1]) & ~(u64)15) + RAW;
        const bool plain = r0 >= ra && r0 + W <= rows && lo >= in_lo && hi <= in_hi;
#pragma unroll
        for (int n = 0; n < NI; ++n, row += pass) {
          const int sft = (int)(reinterpret_cast<u64>(row) & 15);
          const byte* p = row - sft + 16 * lk;
          byte* d = buf + n * RPP * RAW;
          if (lk == PV && !sft) continue;  // an aligned row needs no extra vector
          if (plain) {
            cp_async16(d, p, true);
          } else {
            const i64 r = r0 + li + n * RPP;
            if (r < ra || r >= rows) continue;
            const u64 a = reinterpret_cast<u64>(p);
            if (a >= in_lo && a + 16 <= in_hi) cp_async16(d, p, true);
            else *reinterpret_cast<uint4*>(d) = load16_guarded(p, in_lo, in_hi);  // at the input's ends
          }
        }
      }
      cp_async_commit();
    };
    issue(-1);
    issue(0);
    issue(1);
    for (int k = 0; k < steps; ++k) {
      const i64 r0 = ra + (i64)k * W;  // the window's first input row
      cp_async_wait<1>();  // units k-1 and k have landed (unit k+1 may still fly)
      __syncthreads();     // ... for every thread; the previous step's stores are done with the window
      // Step k's window, realigned: rows 0..H-1 from the last H rows of unit k-1, rows H.. from unit k.
      const byte* prev = s + (k % S::STAGES) * UNIT + (W - H) * RAW;
      const byte* cur = s + ((k + 1) % S::STAGES) * UNIT - H * RAW;
      const unsigned sr0 = s16 + (unsigned)r0 * m16;
#pragma unroll 1
      for (int n = 0; n < NR; ++n) {
        const int q = threadIdx.x + n * THREADS, wr = q / PV, v = q % PV;
        if (((W + H) * PV) % THREADS && wr >= W + H) continue;
        const byte* raw = (wr < H ? prev : cur) + wr * RAW + 16 * v;
        // with sft 0 the second vector is not read (nor loaded)
        const uint4 w = realign(*reinterpret_cast<const uint4*>(raw), *reinterpret_cast<const uint4*>(raw + 16),
                                (int)((sr0 + (unsigned)wr * m16) & 15));
        unsigned* d = reinterpret_cast<unsigned*>(win + wr * PITCH + 16 * v);
        d[0] = w.x; d[1] = w.y; d[2] = w.z; d[3] = w.w;
      }
      __syncthreads();
      issue(k + 2);        // into unit k-1's buffer, in flight during this step's stores and the next
      store_sectors<E, W, TC, THREADS, PITCH>(win, dst, r0, rb, rows, cols, c0);
    }
    cp_async_wait<0>();  // the last (empty) groups: the next item's loads reuse the buffers
  }
}

