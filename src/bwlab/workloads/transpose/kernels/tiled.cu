// Tiled transposes (seed 004): a block of 32 x BY threads moves a TR x TC tile, each
// thread (TR / BY) * (TC / 32) elements, staged in shared memory. Variants differ only in
// how a column of the tile avoids bank conflicts (nothing, PAD columns, or a swizzle)
// and in how much work a block does between barriers.
#include "common.cuh"

template <typename T, int TR, int TC, int BY, int PAD, bool SWZ>
struct Tile {
  static_assert(TR % 32 == 0 && TC % 32 == 0 && TR % BY == 0 && TC % BY == 0, "tile shape");
  static constexpr int LD = TC + PAD;  // row pitch of the shared tile, in elements
  static constexpr int ELEMS = TR * LD;

  // Swizzle: element (r, c) is stored in column (c + r) % TC of row r. A warp reading a
  // column then hits 32 different banks without padding; per row it is a rotation, so a
  // bijection.
  __device__ __forceinline__ static int col(int r, int c) { return SWZ ? (c + r) % TC : c; }

  // Coalesced read of rows r0.. and columns c0.. of the input into the shared tile.
  __device__ __forceinline__ static void load(T* s, const T* __restrict__ in, int rows, int cols,
                                              i64 r0, i64 c0) {
#pragma unroll
    for (int jj = 0; jj < TR / BY; ++jj) {
      const int j = jj * BY + threadIdx.y;
#pragma unroll
      for (int k = 0; k < TC / 32; ++k) {
        const int c = k * 32 + threadIdx.x;
        if (r0 + j < rows && c0 + c < cols) s[j * LD + col(j, c)] = in[(r0 + j) * cols + c0 + c];
      }
    }
  }

  // Coalesced write of the transposed tile: output row c0 + j is input column c0 + j.
  __device__ __forceinline__ static void store(const T* s, T* __restrict__ out, int rows, int cols,
                                               i64 r0, i64 c0) {
#pragma unroll
    for (int jj = 0; jj < TC / BY; ++jj) {
      const int j = jj * BY + threadIdx.y;
#pragma unroll
      for (int k = 0; k < TR / 32; ++k) {
        const int i = k * 32 + threadIdx.x;
        if (c0 + j < cols && r0 + i < rows) out[(c0 + j) * rows + r0 + i] = s[i * LD + col(i, j)];
      }
    }
  }
};

// One tile per block, one barrier.
template <typename T, int TR, int TC, int BY, int PAD, bool SWZ>
__global__ void __launch_bounds__(32 * BY)
tileTranspose(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  typedef Tile<T, TR, TC, BY, PAD, SWZ> Tl;
  __shared__ T s[Tl::ELEMS];
  const i64 r0 = (i64)blockIdx.y * TR, c0 = (i64)blockIdx.x * TC;
  Tl::load(s, in, rows, cols, r0, c0);
  __syncthreads();
  Tl::store(s, out, rows, cols, r0, c0);
}

// Each block walks up to `per_block` tiles, gridDim.x apart in row-major tile order (so
// blocks resident together work on neighbouring tiles), with two swizzled buffers: the
// load of tile i+1 is issued before the store of tile i, and one barrier per tile
// suffices because the buffer being loaded was last read before that barrier.
template <typename T, int TILE, int BY>
__global__ void __launch_bounds__(32 * BY)
tileDoubleBuffer(const T* __restrict__ in, T* __restrict__ out, int rows, int cols, int per_block) {
  typedef Tile<T, TILE, TILE, BY, 0, true> Tl;
  __shared__ T s[2][Tl::ELEMS];
  const i64 tiles_x = ((i64)cols + TILE - 1) / TILE;
  const i64 ntiles = tiles_x * (((i64)rows + TILE - 1) / TILE);
  i64 t = blockIdx.x;
  if (t >= ntiles) return;  // uniform over the block
  Tl::load(s[0], in, rows, cols, (t / tiles_x) * TILE, (t % tiles_x) * TILE);
  for (int i = 0;; ++i) {
    __syncthreads();
    const i64 next = t + gridDim.x;
    const bool more = i + 1 < per_block && next < ntiles;
    if (more) Tl::load(s[(i + 1) & 1], in, rows, cols, (next / tiles_x) * TILE, (next % tiles_x) * TILE);
    Tl::store(s[i & 1], out, rows, cols, (t / tiles_x) * TILE, (t % tiles_x) * TILE);
    if (!more) break;
    t = next;
  }
}
