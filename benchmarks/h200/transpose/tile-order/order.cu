// tileAny (any.cu) with the tile order as a run-time choice, for the tile-order probe: the
// production kernel walks each matrix's tile columns first (MODE 0, g = 1). MODE 0: tile columns
// in groups of g, each group walked tile row by tile row, the group's g columns of a row
// together (g = 1: the production order); MODE 1: tile rows in groups of g, each group walked
// column by column (g = 1: row-major order); MODE 2: blocks of gc x gr tiles, walked down each
// band of gc tile columns, the tiles of a block column by column.
#include "tile.cuh"  // probe.py compiles this beside copies of the transpose kernels' headers

template <int E, int TR, int TC, int THREADS, int MODE>
__global__ void __launch_bounds__(THREADS)
tileOrder(const byte* __restrict__ in, byte* __restrict__ out, i64 rows, i64 cols, i64 batch, i64 g) {
  __shared__ __align__(16) byte s[TileShape<E, TR, TC>::BYTES];
  typedef typename Elem<E>::T T;
  const i64 tiles_r = (rows + TR - 1) / TR, tiles_c = (cols + TC - 1) / TC;
  const i64 per_matrix = tiles_r * tiles_c, total = per_matrix * batch;
  for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
    i64 b, k, grp, idx, tr, tc, j;
    divmod(t, per_matrix, b, k);
    if constexpr (MODE == 0) {
      divmod(k, g * tiles_r, grp, idx);
      const i64 first = grp * g, w = tiles_c - first < g ? tiles_c - first : g;
      divmod(idx, w, tr, j);
      tc = first + j;
    } else if constexpr (MODE == 1) {
      divmod(k, g * tiles_c, grp, idx);
      const i64 first = grp * g, h = tiles_r - first < g ? tiles_r - first : g;
      divmod(idx, h, tc, j);
      tr = first + j;
    } else {  // MODE 2: blocks of gc tile columns x gr tile rows (g = gc | gr << 32), both walked column-major
      const i64 gc = g & 0xffffffff, gr = g >> 32;
      i64 band, inb, sr, jr, w, h;
      divmod(k, gc * tiles_r, band, inb);  // band: gc tile columns, all tile rows
      const i64 c_first = band * gc;
      w = tiles_c - c_first < gc ? tiles_c - c_first : gc;
      divmod(inb, w * gr, sr, jr);  // sr: the block of gr tile rows within the band
      const i64 r_first = sr * gr;
      h = tiles_r - r_first < gr ? tiles_r - r_first : gr;
      divmod(jr, h, tc, tr);
      tc += c_first;
      tr += r_first;
    }
    const i64 r0 = tr * TR, c0 = tc * TC, base = b * rows * cols;
    tile_vec<E, TR, TC, THREADS>(reinterpret_cast<const T*>(in) + base + r0 * cols + c0, [=](int r) { return r * cols; },
                                 reinterpret_cast<T*>(out) + base + c0 * rows + r0, [=](int j) { return j * rows; },
                                 rows - r0, cols - c0, s);
    if (t + gridDim.x < total) __syncthreads();
  }
}
