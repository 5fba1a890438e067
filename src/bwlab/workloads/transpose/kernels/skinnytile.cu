// skinnyTile: transposes with one short side S (2..64 elements, a runtime argument) through
// a padded shared-memory tile, both orientations: TALL (n x S -> S x n) and WIDE (S x n -> n x S).
//
// The "packed" side (input of TALL, output of WIDE) is one contiguous byte range; the "row"
// side is S long rows, row s starting at byte s*n*E, each at its own misalignment m_s =
// s*n*E mod 16. A block owns tile t: 32R aligned 16-byte vectors of every long row (local
// vector u = 0..32R-1 is the row's vector 32R*t + u, counted from the aligned vector holding
// the row's first byte) and, on the packed side, positions [P0, P0 + W) with W = 32R*VE,
// P0 = t*W (VE = 16/E elements per vector). Vector u of row s holds positions
// P0 + VE*u - d_s + k (k < VE, d_s = m_s/E).
//  - TALL: the row side is stored, each row vector exactly once (clipped only at the ends
//    of a row); the block loads packed positions [P0 - VE, P0 + W) (one group more than it
//    owns, read again from L2 by the previous tile's block).
//  - WIDE: the packed side is stored exactly once; the block loads vectors 0..32R of each
//    row (vector 32R, shared with the next tile, only when the row is misaligned).
// Every global access is an aligned 16-byte vector: loads guarded at the buffer's ends
// (load16_guarded), stores clipped (store16_clipped) at the ends of rows / of the output. TALL
// tiles away from the ends (inner_tile) take plain loads and stores, without the tests and
// 64-bit compares of a guarded or clipped access. skinnyWords' ASYNC form copies its packed side
// into shared memory by cp.async instead, 4 bytes a lane (tile_to_shared_async).
//
// Shared layout: the packed side in groups of VE positions (16*S bytes, one 16-byte vector
// per short index), each group followed by a pad: group pitch GP = 16*S + pad bytes, with
// GP / U odd, U = max(E, 4) the shared access unit (pad = U, or 32 for E = 16 and odd S).
// Element (position P0 + VE*g + i, short index s) lives at byte g*GP + i*S*E + s*E (TALL:
// g counts from P0 - VE, one group earlier).
//  - Row side: a warp takes 32 consecutive vectors of one row (task = row, 32-vector block);
//    for element k all lanes read (or write) the same offset in 32 consecutive groups: lane
//    stride GP, odd in units, so the 32 lanes hit 32 distinct banks (conflict-free). One
//    shared access of E bytes per element: 16/E per 16 bytes moved.
//  - Packed side: lane takes one 16-byte vector (consecutive lanes, consecutive vectors) and
//    moves it as 16/U units. The pads shift a lane's units by one unit per group boundary
//    crossed (e lanes past the warp's first group); lane l moves its unit (k + (l>>3) - e) mod
//    (16/U) in instruction k, which leaves at most 2 lanes per bank (tests/transpose model).
// Batches are not taken (the dispatcher sends them to skinny/tileAlign); both data pointers
// must be 16-byte aligned.
#include "vec.cuh"

constexpr int ST_THREADS = 256;
constexpr int ST_LOADS = 9;  // packed vectors per thread: all of a tile's loads in flight at once
constexpr int ST_LOADS_HALO = 13;  // the same for TALL tiles of H > 1 groups before their own (see skinnyTile)

template <int E> struct Piece;  // an element's bits in registers
template <> struct Piece<1> { typedef unsigned char T; };
template <> struct Piece<2> { typedef unsigned short T; };
template <> struct Piece<4> { typedef unsigned T; };
template <> struct Piece<8> { typedef uint2 T; };
template <> struct Piece<16> { typedef uint4 T; };

// Element k (of VE) of a 16-byte vector, with selects only: no local memory when k is known only
// at run time, and the same code as a direct pick when it is known after unrolling.
template <int E>
__device__ __forceinline__ typename Piece<E>::T elem_at(uint4 v, int k) {
  if constexpr (E == 16) {
    return v;
  } else if constexpr (E == 8) {
    return k == 0 ? make_uint2(v.x, v.y) : make_uint2(v.z, v.w);
  } else {
    const int b = k * E;
    const unsigned lo = b & 4 ? v.y : v.x, hi = b & 4 ? v.w : v.z;
    return (typename Piece<E>::T)((b & 8 ? hi : lo) >> (8 * (b & 3)));
  }
}

// The vector with element k set (k known after unrolling).
template <int E>
__device__ __forceinline__ void set_elem(uint4& v, int k, typename Piece<E>::T x) {
  if constexpr (E == 16) {
    v = x;
  } else if constexpr (E == 8) {
    if (k == 0) { v.x = x.x; v.y = x.y; } else { v.z = x.x; v.w = x.y; }
  } else {
    const int b = k * E;
    const unsigned p = (unsigned)x << (8 * (b & 3));  // v starts zeroed: or-ing is enough
    if (b < 4) v.x |= p; else if (b < 8) v.y |= p; else if (b < 12) v.z |= p; else v.w |= p;
  }
}

// Rotate the 16/U units of v by rho: unit k of the result is unit (k + rho) mod (16/U) of v.
template <int U>
__device__ __forceinline__ uint4 rotate_units(uint4 v, int rho) {
  if constexpr (U == 4) {
    if (rho & 1) v = make_uint4(v.y, v.z, v.w, v.x);
    if (rho & 2) v = make_uint4(v.z, v.w, v.x, v.y);
  } else if constexpr (U == 8) {
    if (rho & 1) v = make_uint4(v.z, v.w, v.x, v.y);
  }
  return v;
}

template <int U>
__device__ __forceinline__ void put_unit(byte* p, uint4 v, int k) {
  if constexpr (U == 4) {
    *reinterpret_cast<unsigned*>(p) = k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
  } else if constexpr (U == 8) {
    *reinterpret_cast<uint2*>(p) = k == 0 ? make_uint2(v.x, v.y) : make_uint2(v.z, v.w);
  } else {
    *reinterpret_cast<uint4*>(p) = v;
  }
}

template <int U>
__device__ __forceinline__ void get_unit(const byte* p, uint4& v, int k) {
  if constexpr (U == 4) {
    const unsigned w = *reinterpret_cast<const unsigned*>(p);
    if (k == 0) v.x = w; else if (k == 1) v.y = w; else if (k == 2) v.z = w; else v.w = w;
  } else if constexpr (U == 8) {
    const uint2 w = *reinterpret_cast<const uint2*>(p);
    if (k == 0) { v.x = w.x; v.y = w.y; } else { v.z = w.x; v.w = w.y; }
  } else {
    v = *reinterpret_cast<const uint4*>(p);
  }
}

// The packed side's unit rotation for group g: lanes past the warp's first group boundary
// shift by one unit per boundary (e = g - g of lane 0: the same for every step of 256 threads).
template <int UPV>
__device__ __forceinline__ int unit_rotation(int g) {
  return (((threadIdx.x & 31) >> 3) - (g - __shfl_sync(0xffffffffu, g, 0))) & (UPV - 1);
}

// TALL, packed side: the tile's packed vectors c0 .. min(NC, c0 + LOADS * 256) - 1 from cbase (all
// in flight at once), units rotated into their groups of shared memory. GUARD: some may lie
// outside the input [in_lo, in_hi) (the first and last tiles).
template <int E, int LOADS, bool GUARD>
__device__ __forceinline__ void packed_to_shared(const byte* in, byte* sm, i64 cbase, int NC, int S, int gp,
                                                 u64 in_lo, u64 in_hi, int c0 = 0) {
  constexpr int U = E < 4 ? 4 : E, UPV = 16 / U;
  const int first = c0 + (int)threadIdx.x;
  const unsigned step_g = ST_THREADS / (unsigned)S, step_s = ST_THREADS % (unsigned)S;
  const int g0 = first / S, s0 = first - (first / S) * S;
  uint4 v[LOADS];
#pragma unroll
  for (int i = 0; i < LOADS; ++i) {
    const int c = first + i * ST_THREADS;
    const i64 gi = cbase + c;
    v[i] = make_uint4(0u, 0u, 0u, 0u);
    if (!GUARD && c < NC) v[i] = *reinterpret_cast<const uint4*>(in + 16 * gi);
    if (GUARD && c < NC && gi >= 0) v[i] = load16_guarded(in + 16 * gi, in_lo, in_hi);
  }
  // every load issued before the first store (the guarded loads' branches keep that order anyway);
  // gp, a kernel argument, since the compiler cannot bound it (tile_to_shared's loop bounds NC)
  if (!GUARD) sm += after_all<4 * LOADS>(reinterpret_cast<const unsigned(&)[4 * LOADS]>(v), gp);
  int g = g0, s = s0;
#pragma unroll
  for (int i = 0; i < LOADS; ++i) {
    const int c = first + i * ST_THREADS;
    const int rho = unit_rotation<UPV>(g);  // warp-uniform call (the shuffle), before the bounds test
    if (c < NC) {
      const uint4 r = rotate_units<U>(v[i], rho);
      byte* base = sm + g * gp + s * 16;
#pragma unroll
      for (int k = 0; k < UPV; ++k) put_unit<U>(base + ((k + rho) & (UPV - 1)) * U, r, k);
    }
    g += step_g;
    s += step_s;
    if (s >= S) { s -= S; ++g; }
  }
}

// TALL: all NC packed vectors of a tile into shared memory, in rounds of LOADS vectors a thread (a
// tile of more than LOADS * 256 takes several; skinnyWords' tiles of 17 and 33 uint8 columns two
// and a bit), the last 256 or fewer in a round of one vector a thread; then the block's barrier.
// INNER: an inner tile, every load inside the input (no guards).
template <int E, int LOADS, bool INNER>
__device__ __forceinline__ void tile_to_shared(const byte* in, byte* sm, i64 cbase, int NC, int S, int gp, u64 in_lo,
                                               u64 in_hi) {
  int c0 = 0;
  for (; c0 + ST_THREADS < NC; c0 += LOADS * ST_THREADS)
    packed_to_shared<E, LOADS, !INNER>(in, sm, cbase, NC, S, gp, in_lo, in_hi, c0);
  if (c0 < NC) packed_to_shared<E, 1, !INNER>(in, sm, cbase, NC, S, gp, in_lo, in_hi, c0);
  __syncthreads();
}

// TALL, the same through cp.async: the packed vectors go to their groups without passing through
// registers, so all of a tile's loads are in flight at once whatever its size (tile_to_shared holds
// LOADS vectors a thread a round, and a round waits for the one before). 1- and 2-byte elements
// (skinnyWords), whose pad is one 4-byte unit: a thread copies units w, w + 256, ...; a warp copies
// 128 contiguous bytes, its shared stores at most two to a bank (a group's pad shifts the lanes
// past it by one unit). Unit w of group g = w / (4S) lands at byte 4w + 4g. Not INNER: bytes
// outside the input [in_lo, in_hi) are not read and land as zeros.
template <int E, bool INNER>
__device__ __forceinline__ void tile_to_shared_async(const byte* in, byte* sm, i64 cbase, int NC, int S, int gp,
                                                     u64 in_lo, u64 in_hi) {
  static_assert(E < 4, "4-byte units: the pad of 1- and 2-byte tiles");
  constexpr int U = 4;
  const int tid = threadIdx.x, per_group = S * (16 / U), units = NC * (16 / U), pad = gp - 16 * S;
  const int step_g = ST_THREADS / per_group, step_r = ST_THREADS - step_g * per_group;
  int r = tid % per_group;
  u64 a = reinterpret_cast<u64>(in) + 16 * cbase + U * tid;  // an address, not a pointer: may lie before `in`
  unsigned dst = smem_addr(sm) + U * tid + (tid / per_group) * pad;
  for (int w = tid; w < units; w += ST_THREADS) {
    if (INNER) {
      cp_async_word(dst, reinterpret_cast<const void*>(a));
    } else {
      const int valid = a < in_lo || a >= in_hi ? 0 : (int)min((u64)U, in_hi - a);
      cp_async_word(dst, valid ? reinterpret_cast<const void*>(a) : in, valid);
    }
    a += U * ST_THREADS;
    dst += U * ST_THREADS + step_g * pad;
    r += step_r;
    if (r >= per_group) { r -= per_group; dst += pad; }
  }
  cp_async_wait_all();
  __syncthreads();
}

// WIDE, packed side: the tile's NC packed vectors from cbase, units rotated out of shared
// memory, stores clipped to the output [o_lo, o_hi).
template <int E>
__device__ __forceinline__ void shared_to_packed(const byte* sm, byte* out, i64 cbase, int NC, int S, int gp,
                                                 u64 o_lo, u64 o_hi) {
  constexpr int U = E < 4 ? 4 : E, UPV = 16 / U;
  const int tid = threadIdx.x;
  const unsigned step_g = ST_THREADS / (unsigned)S, step_s = ST_THREADS % (unsigned)S;
  int g = tid / S, s = tid - (tid / S) * S;
  for (int c = tid; c < ((NC + 31) & ~31); c += ST_THREADS) {  // whole warps: the rotation shuffles
    const int rho = unit_rotation<UPV>(g);
    if (c < NC) {
      uint4 r;
      const byte* base = sm + g * gp + s * 16;
#pragma unroll
      for (int k = 0; k < UPV; ++k) get_unit<U>(base + ((k + rho) & (UPV - 1)) * U, r, k);
      store16_clipped<E, false>(out + 16 * (cbase + c), rotate_units<U>(r, (UPV - rho) & (UPV - 1)), o_lo, o_hi);
    }
    g += step_g;
    s += step_s;
    if (s >= S) { s -= S; ++g; }
  }
}

// TALL: whether every packed vector tile t loads lies inside the input and every row vector it
// stores inside its row (all tiles but the first and the last): such a tile takes no guards and
// no clipping. Block-uniform.
__device__ __forceinline__ bool inner_tile(const byte* in, i64 t, int V, i64 rowbytes, i64 cbase, int NC, u64 in_lo,
                                           u64 in_hi) {
  const u64 a = reinterpret_cast<u64>(in);
  return t > 0 && (t + 1) * V <= (rowbytes >> 4) && a + 16 * (u64)cbase >= in_lo && a + 16 * (u64)(cbase + NC) <= in_hi;
}

// TALL: tile blockIdx.x (INNER: an inner tile, no guards or clipping). H: see skinnyTile.
template <int E, bool INNER, int H>
__device__ __forceinline__ void tall_tile(const byte* __restrict__ in, byte* __restrict__ out, byte* sm, i64 n, int S,
                                          int rlog, int gp, u64 in_lo, u64 in_hi) {
  constexpr int VE = 16 / E;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int R = 1 << rlog, V = 32 << rlog, SE = S * E, pad = gp - 16 * S;
  const i64 t = blockIdx.x, rowbytes = n * E;
  const int NC = (V + H) * S;
  const i64 cbase = (t * V - H) * S;
  const u64 o16 = reinterpret_cast<u64>(out) >> 4;
  tile_to_shared<E, (H > 1 ? ST_LOADS_HALO : ST_LOADS), INNER>(in, sm, cbase, NC, S, gp, in_lo, in_hi);
  // Row side: task q = (row, block of 32 vectors); lane u gathers VE elements, one store.
  for (int q = warp; q < S * R; q += ST_THREADS / 32) {
    const int row = q >> rlog, u = ((q & (R - 1)) << 5) + lane;
    const i64 rs = row * rowbytes;  // the row's first byte (relative to out)
    const int d = (int)(rs & 15) / E;
    // z: the row's first vector's place in its 16H-byte span of memory (0 for H = 1)
    const int z = (int)((o16 + (u64)(rs >> 4)) & (H - 1));
    const i64 vi = (rs >> 4) - z + t * V + u;  // global vector index
    const int a0 = (u - z + H) * gp - pad + row * E - d * SE;
    uint4 x = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
    for (int k = 0; k < VE; ++k) {
      const int a = a0 + k * SE + (k >= d ? pad : 0);
      set_elem<E>(x, k, *reinterpret_cast<const typename Piece<E>::T*>(sm + a));
    }
    if (INNER) store16<false>(out + 16 * vi, x);
    else store16_clipped<E, false>(out + 16 * vi, x, reinterpret_cast<u64>(out) + rs, reinterpret_cast<u64>(out) + rs + rowbytes);
  }
}

// n: the long side; S: the short side (2..64); rlog: log2 of R (32R vectors per row per
// tile); gp: the group pitch in bytes; in_lo / in_hi: the input's bytes (loads stay inside).
// H (TALL, a power of two): a tile's 32R vectors of a row start on a 16H-byte boundary of memory
// (H = 16: 256 bytes), so that no 16H-byte span is written by two blocks; its packed side then
// starts H groups before P0 instead of one. H = 1: the row's own vectors, 32R*t on.
template <int E, bool TALL, int H = 1>
// WIDE: 4 blocks of 256 threads per SM (<= 64 registers); TALL holds 9 vectors per thread (13 for H > 1): 3 blocks
__global__ void __launch_bounds__(ST_THREADS, TALL ? 3 : 4)
skinnyTile(const byte* __restrict__ in, byte* __restrict__ out, i64 n, int S, int rlog, int gp, u64 in_lo,
           u64 in_hi) {
  static_assert(H >= 1 && (H & (H - 1)) == 0 && (TALL || H == 1), "H: a power of two, tall only");
  constexpr int VE = 16 / E;
  extern __shared__ __align__(16) byte sm[];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int R = 1 << rlog, V = 32 << rlog;  // V: vectors per row per tile
  const int SE = S * E, pad = gp - 16 * S;
  const i64 t = blockIdx.x;
  const i64 rowbytes = n * E;
  const int NC = (V + (TALL ? H : 0)) * S;  // packed vectors of the tile
  // global index of the tile's first packed vector (TALL: H groups before P0; may be < 0)
  const i64 cbase = (t * V - (TALL ? H : 0)) * S;

  if (TALL) {
    // 16-byte elements keep the guarded path everywhere: holding all 9 plain loads at once spills
    if (E < 16 && inner_tile(in, t, V, rowbytes, cbase, NC, in_lo, in_hi))
      tall_tile<E, true, H>(in, out, sm, n, S, rlog, gp, in_lo, in_hi);
    else
      tall_tile<E, false, H>(in, out, sm, n, S, rlog, gp, in_lo, in_hi);
  } else {
    // Row side: vectors 0..V-1 of each row (tasks of 32), and vector V of the misaligned rows.
    uint4 v[ST_LOADS - 1];
    const int tasks = S * R;
#pragma unroll
    for (int i = 0; i < ST_LOADS - 1; ++i) {
      const int q = warp + i * (ST_THREADS / 32);
      v[i] = make_uint4(0u, 0u, 0u, 0u);
      if (q < tasks) {
        const int row = q >> rlog, u = ((q & (R - 1)) << 5) + lane;
        const i64 rs = row * rowbytes;
        v[i] = load16_guarded(in + 16 * ((rs >> 4) + t * V + u), in_lo, in_hi);
      }
    }
    const i64 xrs = tid * rowbytes;  // the extra vector: thread tid < S takes row tid's
    const int xd = (int)(xrs & 15) / E;
    const bool extra = tid < S && xd > 0;
    uint4 xv = make_uint4(0u, 0u, 0u, 0u);
    if (extra) xv = load16_guarded(in + 16 * ((xrs >> 4) + t * V + V), in_lo, in_hi);
#pragma unroll
    for (int i = 0; i < ST_LOADS - 1; ++i) {
      const int q = warp + i * (ST_THREADS / 32);
      if (q < tasks) {
        const int row = q >> rlog, u = ((q & (R - 1)) << 5) + lane;
        const int d = (int)((row * rowbytes) & 15) / E;
        const int a0 = u * gp - pad + row * E - d * SE;
#pragma unroll
        for (int k = 0; k < VE; ++k) {
          const int a = a0 + k * SE + (k >= d ? pad : 0);
          if (u > 0 || k >= d)
            *reinterpret_cast<typename Piece<E>::T*>(sm + a) = elem_at<E>(v[i], k);
        }
      }
    }
    // its elements k < xd, last first: in step k every lane writes element xd-1-k of its row,
    // at the same offset in the group (the lanes' rows are consecutive: conflict-free)
#pragma unroll
    for (int k = 0; k < VE - 1; ++k)
      if (extra && k < xd)
        *reinterpret_cast<typename Piece<E>::T*>(sm + V * gp - pad + tid * E - (k + 1) * SE) = elem_at<E>(xv, xd - 1 - k);
    __syncthreads();
    const u64 o_lo = reinterpret_cast<u64>(out);
    shared_to_packed<E>(sm, out, cbase, NC, S, gp, o_lo, o_lo + (u64)(rowbytes * S));
  }
}

// skinnyWords: skinnyTile's TALL tile for 1- and 2-byte elements whose short side fills 4-byte
// shared words (S*E a multiple of 4), rows taken in bundles of Q = 4/E: one shared word holds
// one position's elements of a bundle, so a lane gathers Q row vectors with 16/E word loads
// and a register transpose (byte or half-word permutes), where skinnyTile makes one shared
// load per element. A row vector not on the position grid (the row misaligned by m bytes)
// is realigned in registers from the previous lane's vector (one shuffle per word).
// Tiles of V = 31R vectors per row: a task (bundle, block k) spans 32 lanes but emits 31
// vectors, lane 0 supplying only its neighbour's first half. Packed side and shared layout as
// skinnyTile's TALL (groups counted from P0 - VE). A (every long row a whole number of vectors:
// nothing to realign): tiles of V = 32R, a task's 32 lanes each emit their own vector and the
// tile loads no group before P0, so a warp's store of 512 bytes lies on a 512-byte boundary of
// its row. Tall only: wide 1- and 2-byte matrices take widePerm (skinnyperm.cu).

// Row vectors a skinnyWords task emits: all 32 lanes' in the aligned form, 31 where lane 0 only feeds
// its neighbour's realignment.
__host__ __device__ constexpr int words_emitted(bool A) { return A ? 32 : 31; }

// 4x4 bytes (or 2x2 half-words) of 4 (2) words transposed in place: word i's byte r <-> word r's byte i.
__device__ __forceinline__ void swap4(unsigned& a, unsigned& b, unsigned& c, unsigned& d) {
  const unsigned t0 = __byte_perm(a, b, 0x5140), t1 = __byte_perm(a, b, 0x7362);
  const unsigned t2 = __byte_perm(c, d, 0x5140), t3 = __byte_perm(c, d, 0x7362);
  a = __byte_perm(t0, t2, 0x5410);
  b = __byte_perm(t0, t2, 0x7632);
  c = __byte_perm(t1, t3, 0x5410);
  d = __byte_perm(t1, t3, 0x7632);
}

__device__ __forceinline__ void swap2(unsigned& a, unsigned& b) {
  const unsigned t = __byte_perm(a, b, 0x5410);
  b = __byte_perm(a, b, 0x7632);
  a = t;
}

// Word j of a vector (j known after unrolling).
__device__ __forceinline__ unsigned& word(uint4& v, int j) { return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w; }

// a[i]'s element r <-> a[r]'s element i, for the Q = 4/E words of a block.
template <int E>
__device__ __forceinline__ void swap_block(unsigned (&a)[4 / E]) {
  if constexpr (E == 1) swap4(a[0], a[1], a[2], a[3]);
  else swap2(a[0], a[1]);
}

// w[i]: position i's elements of the Q rows of a bundle; y[r]: row r's 16/E positions, from w.
template <int E>
__device__ __forceinline__ void exchange(unsigned (&w)[16 / E], uint4 (&y)[4 / E]) {
  constexpr int Q = 4 / E;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    unsigned a[Q];
#pragma unroll
    for (int r = 0; r < Q; ++r) a[r] = w[Q * j + r];
    swap_block<E>(a);
#pragma unroll
    for (int r = 0; r < Q; ++r) word(y[r], j) = a[r];
  }
}

// Word i of a bundle at p (4-byte aligned): position i's elements of its rows, at byte i*SE.
// With M = SE % 4 != 0 the word of position i starts (i*M) % 4 bytes past a word
// boundary, known once i is unrolled: two aligned loads and a funnel shift.
template <int M>
__device__ __forceinline__ unsigned word_at(const byte* p, int i, int SE) {
  const int k = (i * M) & 3;
  const unsigned* a = reinterpret_cast<const unsigned*>(p + i * SE - k);
  return k == 0 ? a[0] : __funnelshift_r(a[0], a[1], 8 * k);
}

// skinnyWords' tile blockIdx.x (INNER: an inner tile, no guards or clipping; ASYNC: the tile copied
// in by cp.async; A: rows in whole vectors, tiles of 32R).
template <int E, int M, bool ASYNC, bool A, bool INNER>
__device__ __forceinline__ void words_tile(const byte* __restrict__ in, byte* __restrict__ out, byte* sm, i64 n, int S,
                                           int rlog, int gp, u64 in_lo, u64 in_hi) {
  constexpr int VE = 16 / E, Q = 4 / E;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  constexpr int L = words_emitted(A);
  const int R = 1 << rlog, V = L << rlog;
  const int SE = S * E, NB = S / Q;  // bundles; then S - NB*Q single rows (M != 0)
  const int tasks = (M == 0 ? NB : NB + S - NB * Q) << rlog;
  const i64 t = blockIdx.x;
  const i64 rowbytes = n * E;
  const int NC = (A ? V : V + 1) * S;  // packed vectors of the tile
  const i64 cbase = (t * V - !A) * S;  // the tile's first packed vector: one group before P0 (may be < 0) but for A
  const bool aligned = A || (rowbytes & 15) == 0;  // every row on the position grid: no realignment

  if constexpr (ASYNC) tile_to_shared_async<E, INNER>(in, sm, cbase, NC, S, gp, in_lo, in_hi);
  else tile_to_shared<E, ST_LOADS - 1, INNER>(in, sm, cbase, NC, S, gp, in_lo, in_hi);
  // Lane > 0 stores vector G - 1 of row `row` from y (the row's positions of group G): group
  // G - 1's last m bytes (from the previous lane) and group G's first 16 - m. A: every lane stores
  // vector G (shared group G is the tile's vector G).
  auto emit = [&](int row, int G, uint4 y) {
    const i64 rs = row * rowbytes;
    const int m = (int)(rs & 15);
    uint4 x = y;
    if (!aligned) {
      const uint4 prev = shfl(y, (lane + 31) & 31);
      if (m) x = realign(prev, y, 16 - m);
    }
    byte* p = out + 16 * ((rs >> 4) + t * V + G - !A);
    const u64 lo = reinterpret_cast<u64>(out) + rs;
    if (!A && lane == 0) return;
    if (INNER) store16<false>(p, x);
    else store16_clipped<E, false>(p, x, lo, lo + rowbytes);
  };
  // task q = (unit u, block k): lane's group G = Lk + lane; unit u < NB is bundle u, the
  // others single rows.
  for (int q = warp; q < tasks; q += ST_THREADS / 32) {
    const int u = q >> rlog, G = L * (q & (R - 1)) + lane;
    if (M == 0 || u < NB) {
      const byte* p = sm + G * gp + 4 * u;
      unsigned w[VE];
#pragma unroll
      for (int i = 0; i < VE; ++i) w[i] = word_at<M>(p, i, SE);
      uint4 y[Q];
      exchange<E>(w, y);
#pragma unroll
      for (int r = 0; r < Q; ++r) emit(Q * u + r, G, y[r]);
    } else {
      const int row = Q * NB + u - NB;
      const byte* p = sm + G * gp + row * E;
      uint4 y = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
      for (int i = 0; i < VE; ++i) set_elem<E>(y, i, *reinterpret_cast<const typename Piece<E>::T*>(p + i * SE));
      emit(row, G, y);
    }
  }
}

// M: S*E % 4. M = 0: every row in a bundle. M != 0 (1-byte elements): the first S/4*4 rows
// in bundles through word_at, the S % 4 left one by one (one shared access per element).
// TALL must be true (the parameter keeps the expressions skinnyWords<E,true[,M[,ASYNC[,A]]]>).
// ASYNC: the packed side copied in by cp.async (tile_to_shared_async), for tiles whose loads
// through registers would be few a thread or take several rounds (plans.words_async). A: every
// long row n*E a multiple of 16 bytes (tiles of 32R vectors, above).
// Four blocks an SM: at most 64 registers (through registers 58 for uint8 and 63 for uint16, by
// cp.async 42-64; no spills; all 8 loads of a round still issued before the first shared store).
// Against three (72 registers) on the H200: up to 5 points of a copy faster on some tall uint8
// short sides, at most 1.8 slower on others.
template <int E, bool TALL, int M = 0, bool ASYNC = false, bool A = false>
__global__ void __launch_bounds__(ST_THREADS, 4)
skinnyWords(const byte* __restrict__ in, byte* __restrict__ out, i64 n, int S, int rlog, int gp, u64 in_lo,
            u64 in_hi) {
  static_assert(TALL, "skinnyWords is tall only: wide 1- and 2-byte matrices take widePerm (skinnyperm.cu)");
  static_assert(E == 1 || E == 2, "words of 4 bytes hold 4 or 2 elements");
  static_assert(M == 0 || (E == 1 && M < 4), "short sides not filling words: uint8 only");
  extern __shared__ __align__(16) byte sm[];
  const int V = words_emitted(A) << rlog, NC = (A ? V : V + 1) * S;
  const i64 t = blockIdx.x, cbase = (t * V - !A) * S;
  if (inner_tile(in, t, V, n * E, cbase, NC, in_lo, in_hi))
    words_tile<E, M, ASYNC, A, true>(in, out, sm, n, S, rlog, gp, in_lo, in_hi);
  else
    words_tile<E, M, ASYNC, A, false>(in, out, sm, n, S, rlog, gp, in_lo, in_hi);
}
