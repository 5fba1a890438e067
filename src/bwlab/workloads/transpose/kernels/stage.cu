// tileStage: tileScalar's tile with 16-byte loads, for rows that do not start on 16-byte
// boundaries. Each input row segment is read as the aligned vectors that cover it (one more
// than the segment's when it is misaligned) and staged in shared memory as read; the store
// phase (store_columns, as tileScalar's) reads each element at its row's byte shift. A warp's
// loads become whole 16-byte vectors (tileScalar's were one element a lane, 32 to 128 bytes a
// request), with no shuffles or realigning in registers (tileAlign's cost). Loads never leave
// the input's byte span [in_lo, in_hi): vectors that cross its ends are read byte by byte.
// The staged rows are 4 bytes longer than their vectors, so that consecutive rows fall in
// consecutive banks for the store phase; each vector is staged as four 4-byte words.
// Compiled for bytes only (the element loads cost most there; 2- and 4-byte elements, measured
// once, ran slower than tileScalar on the H200): a `bwlab tune transpose` candidate beside
// tileSector. The input has row stride ld and batch stride bstride (elements, negative
// allowed); the output is C-contiguous.
#include "tile.cuh"

template <int E, int TR, int TC>
struct StageTile {
  static constexpr int PV = TC * E / 16 + 1;  // vectors a staged row
  static constexpr int PITCH = 16 * PV + 4;
  static constexpr int BYTES = TR * PITCH;
};

template <int E, int TR, int TC, int THREADS>
__global__ void __launch_bounds__(THREADS)
tileStage(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 batch, i64 ld,
          i64 bstride, u64 in_lo, u64 in_hi) {
  static_assert(E <= 4 && TC * E % 16 == 0, "1- to 4-byte elements, tile rows of whole vectors");
  static_assert(THREADS % TR == 0 && TR * TC % THREADS == 0, "store_columns' thread layout");
  typedef StageTile<E, TR, TC> S;
  typedef typename Elem<E>::T T;
  constexpr int SLOTS = TR * S::PV, NL = (SLOTS + THREADS - 1) / THREADS;
  __shared__ __align__(16) byte s[S::BYTES];
  each_tile<TR, TC>(rows, cols, batch, [&](i64 b, i64 r0, i64 c0) {
    const byte* src = in + (b * bstride + r0 * ld + c0) * E;
    const int rr = (int)min(rows - r0, (i64)TR), cc = (int)min(cols - c0, (i64)TC);
    uint4 v[NL];
#pragma unroll
    for (int i = 0; i < NL; ++i) {  // every load in flight before the first shared store
      const int q = threadIdx.x + i * THREADS, r = q / S::PV, k = q % S::PV;
      const byte* seg = src + r * ld * E;
      const int sft = (int)(reinterpret_cast<u64>(seg) & 15);
      const byte* p = seg - sft + 16 * k;
      v[i] = make_uint4(0u, 0u, 0u, 0u);  // slots past the tile: staged as zeros, never read
      if ((SLOTS % THREADS == 0 || q < SLOTS) && r < rr && 16 * k < sft + cc * E) {
        const u64 a = reinterpret_cast<u64>(p);
        v[i] = a >= in_lo && a + 16 <= in_hi ? *reinterpret_cast<const uint4*>(p) : load16_guarded(p, in_lo, in_hi);
      }
    }
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      const int q = threadIdx.x + i * THREADS;
      if (SLOTS % THREADS == 0 || q < SLOTS) {
        unsigned* w = reinterpret_cast<unsigned*>(s + (q / S::PV) * S::PITCH + 16 * (q % S::PV));
        w[0] = v[i].x; w[1] = v[i].y; w[2] = v[i].z; w[3] = v[i].w;
      }
    }
    __syncthreads();
    const int li = threadIdx.x % TR;
    const int shift = (int)(reinterpret_cast<u64>(src + li * ld * E) & 15);
    store_columns<E, TR, TC, THREADS, S::PITCH>(s, shift, reinterpret_cast<T*>(out) + b * rows * cols + c0 * rows + r0,
                                                rows, rr, cc);
  });
}
