// bwlab's own fastest transpose for 4-byte elements: a TR x TC tile moved with 16-byte
// global loads and stores. A warp always covers a patch of 4 rows x 32 words: 8 lanes
// per row, each lane one 16-byte vector, so each warp access is four full 128-byte
// lines. The shared tile has pitch TC + 1 words; with that pitch both the patch-shaped
// writes and the column reads of the store phase hit 32 different banks
// (bank = lane/8 + 4 * (lane%8) + const). Tiles cut by the matrix edge, and matrices
// whose rows or columns are not a multiple of 4 (16-byte alignment), take a scalar,
// bounds-checked path through the same shared layout. Elements are moved as raw 32-bit
// words, so NaN payloads and -0.0 survive.
#include "common.cuh"

typedef unsigned int word;

// Cache policy of the global side (HINT): 0 default (ld.global.nc via __ldg, st.global),
// 1 streaming both ways (.cs: evict first), 2 default load + streaming store,
// 3 streaming load + default store, 4 plain load + plain store, 5 last-use load + streaming
// store, 6 non-coherent load that skips L1 + streaming store, 7 L2-only load + streaming store.
template <int HINT>
__device__ __forceinline__ uint4 ld16(const word* p) {
  const uint4* q = reinterpret_cast<const uint4*>(p);
  if (HINT == 1 || HINT == 3) return __ldcs(q);
  if (HINT == 2 || HINT == 4) return *q;
  if (HINT == 5) return __ldlu(q);
  if (HINT == 6) {
    uint4 v;
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(q));
    return v;
  }
  if (HINT == 7) return __ldcg(q);
  return __ldg(q);
}
template <int HINT>
__device__ __forceinline__ void st16(word* p, uint4 v) {
  if (HINT == 0 || HINT == 3 || HINT == 4) *reinterpret_cast<uint4*>(p) = v;
  else __stcs(reinterpret_cast<uint4*>(p), v);
}

// Block order: consecutive blocks walk `group` tile-rows down before moving one tile to
// the right, so the blocks resident together write long runs of each output row (group =
// all tile-rows) or keep both sides' runs moderate (smaller groups); group = 1 is plain
// row-major order. A bijection from launch order to tiles for any grid.
__device__ __forceinline__ void grouped_tile(int group, i64& tr, i64& tc) {
  const i64 tiles_c = gridDim.x, tiles_r = gridDim.y;
  const i64 bid = (i64)blockIdx.x + tiles_c * blockIdx.y;
  const i64 per_group = (i64)group * tiles_c;
  const i64 first = (bid / per_group) * group;
  const i64 height = min((i64)group, tiles_r - first);
  const i64 in_group = bid % per_group;
  tr = first + in_group % height;
  tc = in_group / height;
}

template <typename T, int TR, int TC, int THREADS, int HINT>
__global__ void __launch_bounds__(THREADS)
tileVec(const T* __restrict__ in_, T* __restrict__ out_, int rows, int cols, int group) {
  static_assert(sizeof(T) == 4, "tileVec moves 4-byte words");
  static_assert(TR % 32 == 0 && TC % 32 == 0 && THREADS % 32 == 0, "tile shape");
  constexpr int LD = TC + 1;
  constexpr int WARPS = THREADS / 32;
  constexpr int LOAD_PATCHES = (TR / 4) * (TC / 32);   // 4 x 32 patches of the input tile
  constexpr int STORE_PATCHES = (TC / 4) * (TR / 32);  // 4 x 32 patches of the output tile
  static_assert(LOAD_PATCHES % WARPS == 0 && STORE_PATCHES % WARPS == 0, "threads per tile");
  constexpr int NL = LOAD_PATCHES / WARPS, NS = STORE_PATCHES / WARPS;
  __shared__ word s[TR * LD];
  const word* __restrict__ in = reinterpret_cast<const word*>(in_);
  word* __restrict__ out = reinterpret_cast<word*>(out_);

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int pr = lane >> 3;       // row within a patch
  const int pc = (lane & 7) * 4;  // first word within a patch
  i64 tr, tc;
  grouped_tile(group, tr, tc);
  const i64 r0 = tr * TR, c0 = tc * TC;
  const bool vec = (rows % 4 == 0) && (cols % 4 == 0) && r0 + TR <= rows && c0 + TC <= cols;

  if (vec) {
    uint4 v[NL];
#pragma unroll
    for (int i = 0; i < NL; ++i) {  // every load in flight before the first shared store
      const int p = warp + i * WARPS;
      const int r = (p / (TC / 32)) * 4 + pr, c = (p % (TC / 32)) * 32 + pc;
      v[i] = ld16<HINT>(in + (r0 + r) * cols + c0 + c);
    }
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      const int p = warp + i * WARPS;
      const int r = (p / (TC / 32)) * 4 + pr, c = (p % (TC / 32)) * 32 + pc;
      word* d = s + r * LD + c;
      d[0] = v[i].x; d[1] = v[i].y; d[2] = v[i].z; d[3] = v[i].w;
    }
  } else {
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      const int p = warp + i * WARPS;
      const int r = (p / (TC / 32)) * 4 + pr, c = (p % (TC / 32)) * 32 + pc;
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (r0 + r < rows && c0 + c + k < cols) s[r * LD + c + k] = in[(r0 + r) * cols + c0 + c + k];
    }
  }
  __syncthreads();

  // Output row j is input column c0 + j; its words i..i+3 are input rows r0 + i...
#pragma unroll
  for (int q = 0; q < NS; ++q) {
    const int p = warp + q * WARPS;
    const int j = (p / (TR / 32)) * 4 + pr, i = (p % (TR / 32)) * 32 + pc;
    const word* src = s + i * LD + j;
    if (vec) {
      st16<HINT>(out + (c0 + j) * rows + r0 + i, make_uint4(src[0], src[LD], src[2 * LD], src[3 * LD]));
    } else {
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (c0 + j < cols && r0 + i + k < rows) out[(c0 + j) * rows + r0 + i + k] = src[k * LD];
    }
  }
}
