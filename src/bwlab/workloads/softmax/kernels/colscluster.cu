// Softmax down a strided axis reading x from DRAM once: a cluster of C blocks owns a strip
// of W bytes of every row of one [L, M] slice (W / 16 packs wide). Each block copies its
// share of the rows (L / C of them) into shared memory with asynchronous copies, reduces its
// columns there (group by group as the copies land), and the C partial states per column meet
// through distributed shared memory; the output is then written from the copy on chip. The
// arithmetic between the copies is what limits it (a block's fold, meeting and write are
// latency-bound chains), so each is overlapped where it can be. The strip must fit: the
// launcher picks C so that ceil(L / C) * W * IN bytes fit in a block's shared memory.
// M % V == 0 and 16-byte aligned pointers (every pack whole).
#include "softmax.cuh"

// K consecutive elements from shared memory as floats (K == 1, or one 16-byte pack).
template <typename T, int K>
__device__ __forceinline__ void load_k(const T* p, float* out) {
  if constexpr (K == 1) {
    out[0] = to_f(*p);
  } else {
    Pack<T, K> pk;
    pk.raw = *reinterpret_cast<const typename Pack<T, K>::R*>(p);
#pragma unroll
    for (int i = 0; i < K; ++i) out[i] = pk[i];
  }
}

// One block's share of a strip: its geometry and the four steps of the kernel below. E (softmax
// on strips of 128 bytes or more): the fold stores each term over its element (stored_term),
// against the thread's max of its column in the group of rows, and an output is one multiply.
// LEAN (log-softmax gradients, colsTeam): only the gradient, all the fold reads, is held on chip
// (in sa), and the write reads y from global memory, which the meeting has prefetched into the L2:
// a block holds twice the rows of a strip in the same shared memory.
template <typename T, int W, int THREADS, class Op, bool E = false, bool LEAN = false>
struct Share {
  static constexpr int V = 16 / sizeof(T);   // elements per pack
  static constexpr int P = W / 16;           // packs per strip row
  static constexpr int COLS = P * V;         // columns per strip
  // The reduction reads K columns at a time from shared memory: a 16-byte pack on strips of 128
  // bytes or more, one element on narrower ones (each measured faster on the H200 there).
  static constexpr int K = P >= 8 ? V : 1;
  static constexpr int LANES = COLS / K;     // threads across a strip row in the reduction
  static constexpr int G = THREADS / LANES;  // row groups of the reduction
  static constexpr int WARPS = THREADS / 32;
  static constexpr int RS = THREADS / P;     // strip rows a step of the copies and the output
  static_assert(THREADS % 32 == 0 && 32 % LANES == 0 && THREADS % P == 0, "a warp holds whole strip rows");
  // E: a thread writes out the rows and columns it folded (LANES == P, G == RS)
  static_assert(!E || (Op::STORES && K == V), "stored terms: softmax, a pack of columns a thread");
  static_assert(!LEAN || (Op::G_ONLY && !E), "LEAN: a fold that reads the gradient alone");
  static constexpr int IN = LEAN ? 1 : Op::IN;  // inputs held on chip
  // LEAN: rows of y a thread loads at once at the write. On the H200 (benchmarks/h200/softmax/lean-depth,
  // forced, two rounds) float32 on 256-byte strips gained 0.7-3.0 points of a copy with 8 against 4
  // (16: level with 8); bfloat16 lost 0.3-2.1 with 8, at three blocks an SM (where it spills) and at two.
  static constexpr int LEAN_U = sizeof(T) == 4 ? 8 : 4;
  // shared memory: [WARPS][COLS] partials, 2 * COLS states (colsCluster: this block's states, read
  // by the cluster, then unused; colsTeam: the padded finished states), then the strip's rows of x
  // (and of the gradient)
  static constexpr int STATES = (WARPS + 2) * COLS;
  // The finished states: each pack's V, then 16 bytes of padding, so that the 8 packs a quarter
  // warp reads at once (a thread's pack of columns) fall in 8 different groups of banks;
  // unpadded, 64-byte (bfloat16) and 32-byte (float32) strides made those reads 4- and 2-way
  // conflicts (Nsight Compute: 27% of colsTeam's shared wavefronts excessive in bfloat16, 12% in
  // float32). colsTeam keeps them in the 2 * COLS states after the partials, colsCluster over the
  // partials, which the meeting has read by then. On the H200 (benchmarks/h200/softmax/team-pad,
  // alternately against the layout before) bfloat16 softmax and log-softmax gained 0.3-2.5 points
  // of a copy on teams and 0-3.0 on clusters; float32 and gradients moved by -2.5 to +1.6 (the
  // -2.5 in one run, +0.7 in the other).
  static constexpr int FIN_PACK = padded_state(V, V);  // a pack's states and its padding
  static_assert(P * FIN_PACK <= 2 * COLS, "padded finished states");
  static __device__ __forceinline__ int fin_at(int col) { return padded_state(col, V); }

  // Rows [lo, hi) of the share (at `base`, the strip's first column) into shared memory, as
  // asynchronous copies; packs past the last column read as zeros. A thread keeps one pack column
  // (THREADS % P == 0) and carries its offsets from row to row: recomputed for every copy, with a
  // generic-to-shared conversion each, they took about 38 instructions a copy. PF256: each copy
  // asks the L2 for the 256 bytes around it, on 128-byte strips its strip's row segment and the
  // neighbouring strip's, which another cluster reads at about the same time (see cols_cluster).
  template <bool PF256 = false>
  static __device__ __forceinline__ void copy_in(T* sa, T* sb, const T* a, const T* b, i64 base, i64 col0,
                                                 i64 M, int lo, int hi) {
    const int p = threadIdx.x % P;
    const bool ok = col0 + p * V < M;
    int r = lo + threadIdx.x / P;
    const i64 off = ok ? base + (i64)r * M + p * V : 0;  // a missing pack reads nothing, from x itself
    const i64 step = ok ? (i64)RS * M : 0;
    const T *ga = a + off, *gb = b + off;
    unsigned da = smem_addr(sa) + (r * P + p) * 16;
    const unsigned gap = (unsigned)((sb - sa) * sizeof(T));
    for (; r < hi; r += RS, ga += step, gb += step, da += THREADS * 16) {
      cp_async16_at<PF256>(da, LEAN ? gb : ga, ok);
      if (IN == 2) cp_async16_at<PF256>(da + gap, gb, ok);
    }
  }

  // Rows [0, rows) of the share as S committed groups of `per` rows, all copies in flight at once.
  template <bool PF256 = false>
  static __device__ __forceinline__ void copy_groups(T* sa, T* sb, const T* a, const T* b, i64 base, i64 col0,
                                                     i64 M, int rows, int per, int S) {
    for (int s = 0; s < S; ++s) {
      copy_in<PF256>(sa, sb, a, b, base, col0, M, min(rows, s * per), min(rows, (s + 1) * per));
      cp_async_commit();
    }
  }

  // The S groups folded into fresh states as they land (the thread's last S committed groups).
  // gm: E's maxima of the thread's columns, a pack a group (unused without E).
  template <int S>
  static __device__ __forceinline__ void fold_groups(State (&st)[K], T* sa, const T* sb, int rows, int per,
                                                     Pack<T, K> (&gm)[S]) {
#pragma unroll
    for (int k = 0; k < K; ++k) st[k] = Op::empty();
    if constexpr (E) {  // unrolled: gm[s] in registers
#pragma unroll
      for (int s = 0; s < S; ++s) {
        cp_async_wait_upto(S - 1 - s);
        __syncthreads();
        fold(st, sa, sb, min(rows, s * per), min(rows, (s + 1) * per), gm[s]);
      }
    } else {
      for (int s = 0; s < S; ++s) {
        cp_async_wait_upto(S - 1 - s);
        __syncthreads();
        fold(st, sa, sb, min(rows, s * per), min(rows, (s + 1) * per), gm[0]);
      }
    }
  }

  // Fold rows [lo, hi) into the thread's states: K adjacent columns and every G-th row
  // (lo a multiple of G), four rows a fold.
  static __device__ __forceinline__ void fold(State (&s)[K], T* sa, const T* sb, int lo, int hi, Pack<T, K>& gm) {
    if constexpr (Op::KNOWN_MAX && (sizeof(T) == 2 || E)) {
      fold_known(s, sa, lo, hi, gm);
      return;
    }
    const int c = (threadIdx.x % LANES) * K;
    int r = lo + threadIdx.x / LANES;
    for (; r + 3 * G < hi; r += 4 * G) {
      float va[4][K], vb[4][K];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        load_k<T, K>(sa + (r + u * G) * COLS + c, va[u]);
        if (IN == 2) load_k<T, K>(sb + (r + u * G) * COLS + c, vb[u]);
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const float xa[4] = {va[0][k], va[1][k], va[2][k], va[3][k]};
        const float xb[4] = {vb[0][k], vb[1][k], vb[2][k], vb[3][k]};
        Op::template fold<4>(s[k], xa, LEAN ? xa : xb);  // LEAN: the gradient, in sa
      }
    }
    for (; r < hi; r += G) {
      float va[K], vb[K];
      load_k<T, K>(sa + r * COLS + c, va);
      if (IN == 2) load_k<T, K>(sb + r * COLS + c, vb);
#pragma unroll
      for (int k = 0; k < K; ++k) Op::template fold<1>(s[k], va + k, (LEAN ? va : vb) + k);
    }
  }

  // The 16-bit forward fold in two passes over the rows on chip: their max first (two columns
  // an instruction), then their terms with the max known, so that no term is rescaled and no
  // row branches: 8 instructions an element where the online fold took 13 (bfloat16). float32,
  // whose max takes an instruction an element, measured level or slower this way, but takes it
  // to store its terms (E; gm: the max they are stored against).
  static __device__ __forceinline__ void fold_known(State (&s)[K], T* sa, int lo, int hi, Pack<T, K>& gm) {
    const int c = (threadIdx.x % LANES) * K, first = lo + threadIdx.x / LANES;
    Pack<T, K> mx;
    mx.fill(-INFINITY);
    int r = first;
    for (; r + 3 * G < hi; r += 4 * G) {
      Pack<T, K> p[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) p[u].load(sa + (r + u * G) * COLS + c);
#pragma unroll
      for (int u = 0; u < 4; ++u) pack_max(mx, p[u]);
    }
    for (; r < hi; r += G) {
      Pack<T, K> p;
      p.load(sa + r * COLS + c);
      pack_max(mx, p);
    }
    float sub[K], sum[K], ones[K];  // sub: the max subtracted (0 for a max of -inf)
#pragma unroll
    for (int k = 0; k < K; ++k) { sub[k] = Op::shift(mx[k]); sum[k] = 0.f; ones[k] = 0.f; }
    if constexpr (E) {
      auto store = [&](int row) {  // the row's terms over its pack
        Pack<T, K> p, e;
        p.load(sa + row * COLS + c);
#pragma unroll
        for (int k = 0; k < K; k += 2) {
          const float u = stored_term<T>(p[k] - sub[k]), v = stored_term<T>(p[k + 1] - sub[k + 1]);
          sum[k] += u;
          sum[k + 1] += v;
          e.set2(k, u, v);
        }
        e.store(sa + row * COLS + c);
      };
      for (r = first; r + G < hi; r += 2 * G) {  // two rows a step (four spilled in some)
        store(r);
        store(r + G);
      }
      if (r < hi) store(r);
      gm = mx;
#pragma unroll
      for (int k = 0; k < K; ++k) s[k] = Op::merge(s[k], Op::state(mx[k], sum[k] * Terms<T>::UNBIAS, 0.f));
      return;
    }
    float low[K];  // as fold_pairs' (softmax.cuh)
#pragma unroll
    for (int k = 0; k < K; ++k) low[k] = Op::lowered(sub[k]);
    for (r = first; r + 3 * G < hi; r += 4 * G) {
      float v[4][K];
#pragma unroll
      for (int u = 0; u < 4; ++u) load_k<T, K>(sa + (r + u * G) * COLS + c, v[u]);
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int k = 0; k < K; ++k) Op::known_term(sum[k], ones[k], v[u][k], sub[k], low[k]);
    }
    for (; r < hi; r += G) {
      float v[K];
      load_k<T, K>(sa + r * COLS + c, v);
#pragma unroll
      for (int k = 0; k < K; ++k) Op::known_term(sum[k], ones[k], v[k], sub[k], low[k]);
    }
#pragma unroll
    for (int k = 0; k < K; ++k) s[k] = Op::merge(s[k], Op::state(mx[k], Op::known_sum(sum[k], sub[k]), ones[k]));
  }

  // The threads' states to one finished state per column in `fin`: the warp's row groups by
  // shuffles, the warps' partials through shared memory, the cluster's C blocks through
  // distributed shared memory. Every thread of every block of the cluster calls it.
  template <int C>
  static __device__ __forceinline__ void finish(State (&s)[K], State* red, State* part, State* fin) {
    partials(s, red);
    meet<Op, C, WARPS, COLS, THREADS, V>(red, part, fin);
  }

  // The threads' states to the warps' partials per column in `red` ([WARPS][COLS]), by shuffles
  // between the lanes holding the same columns; then a barrier.
  static __device__ __forceinline__ void partials(State (&s)[K], State* red) {
    const int t = threadIdx.x, c = (t % LANES) * K;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      s[k] = Op::template merge_lanes<LANES, 32>(s[k]);
      if ((t & 31) < LANES) red[(t / 32) * COLS + c + k] = s[k];
    }
    __syncthreads();
  }

  // A team's meeting through global memory: F = THREADS / COLS adjacent threads a column (at most
  // a warp) merge every F-th warp partial into the block's state, stored in slot `rank` of
  // `states` (this strip's [blocks][COLS]); thread 0 counts the block with a release reduction
  // once the block's stores are behind a barrier, and waits until the count reaches `target`
  // (every thread calls pre() in between); then each column's F threads merge every F-th block's
  // state into `fin` (padded: fin_at), NL loads in flight (then four, then one at a time).
  template <int NL, class Pre>
  static __device__ __forceinline__ void team_meet(const State* red, State* fin, State* states, unsigned* count,
                                                   i64 blocks, i64 rank, unsigned target, const Pre& pre) {
    static_assert(THREADS >= COLS, "a thread or more a column");
    constexpr int F = THREADS / COLS < 32 ? THREADS / COLS : 32;
    const int col = threadIdx.x / F, j = threadIdx.x % F;
    if (col < COLS) {  // whole warps in or out: F divides 32
      State u = Op::empty();
      for (int w = j; w < WARPS; w += F) u = Op::merge(u, red[w * COLS + col]);
      u = warp_merge<Op, F>(u);
      if (j == 0) states[rank * COLS + col] = u;
    }
    __syncthreads();
    if (threadIdx.x == 0) count_release(count);
    pre();  // after thread 0's release, whose fence would wait for it
    if (threadIdx.x == 0)
      while (ld_acquire(count) < target) asm volatile("nanosleep.u32 64;" ::: "memory");
    __syncthreads();
    // (16-byte loads of two columns' states, eight in flight, and a poll backing off from 32 to
    // 512 ns measured slower or level on the H200: benchmarks/h200/softmax/cols-team/meet.txt)
    static_assert(NL == 4 || NL == 16, "four or sixteen loads in flight");
    if (col < COLS) {
      State u = Op::empty();
      i64 i = j;
      for (; i + (NL - 1) * F < blocks; i += NL * F) {  // NL loads in flight
        State v[NL];
#pragma unroll
        for (int k = 0; k < NL; ++k) v[k] = ld_cg(states + (i + k * F) * COLS + col);
        u = Op::merge(u, merge_tree<Op, NL>(v));
      }
      if constexpr (NL > 4) {
        for (; i + 3 * F < blocks; i += 4 * F) {
          State v[4];
#pragma unroll
          for (int k = 0; k < 4; ++k) v[k] = ld_cg(states + (i + k * F) * COLS + col);
          u = Op::merge(u, merge_tree<Op, 4>(v));
        }
      }
      for (; i < blocks; i += F) u = Op::merge(u, ld_cg(states + i * COLS + col));
      u = warp_merge<Op, F>(u);
      if (j == 0) fin[fin_at(col)] = Op::finish(u);
    }
    __syncthreads();
  }

  // This block's `rows` rows of a strip (at `base`, its first column col0) into the L2, a bulk
  // prefetch of the strip's row segment each, so that its copies into shared memory hit the L2.
  static __device__ __forceinline__ void prefetch_rows(const T* a, const T* b, i64 base, i64 col0, i64 M, int rows) {
    const unsigned bytes = (unsigned)min((i64)W, (M - col0) * (i64)sizeof(T));
    for (int r = threadIdx.x; r < rows; r += THREADS) {
      prefetch_l2(a + base + (i64)r * M, bytes);
      if (IN == 2) prefetch_l2(b + base + (i64)r * M, bytes);
    }
  }

  // Rows [lo, hi) of the output from the copy on chip (make(pa, pb): a pack's output), this thread's
  // packs of them (lo a multiple of RS), streaming 16-byte stores.
  template <class Make>
  static __device__ __forceinline__ void emit(T* y, i64 base, i64 M, const T* sa, const T* sb, int lo, int hi,
                                              const Make& make) {
    const int t = threadIdx.x;
    T* out = y + base + (i64)(lo + t / P) * M + (t % P) * V;  // row q / P, moving RS rows a step
    const i64 step = (i64)RS * M;
    for (int q = lo * P + t; q < hi * P; q += THREADS, out += step) {
      Pack<T, V> pa, pb;
      pa.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sa + q * V);
      if (Op::IN == 2) pb.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sb + q * V);
      make(pa, pb).store_cs(out);
    }
  }

  // E: the factors of a group's stored terms (s), from its maxima gm and the finished states of its
  // columns in `fin` (read here, not kept in registers through the write); true where any needs the
  // small factors' form (term_tiny), in which all are then given.
  static __device__ __forceinline__ bool factors(const Pack<T, K>& gm, const State* fin, float (&s)[V]) {
    bool tiny = false;
#pragma unroll
    for (int v = 0; v < V; ++v) tiny |= term_tiny<T>(gm[v], fin[v]);
    if (!tiny) {
#pragma unroll
      for (int v = 0; v < V; ++v) s[v] = term_factor<T, false>(gm[v], fin[v]);
    } else {
#pragma unroll
      for (int v = 0; v < V; ++v) s[v] = term_factor<T, true>(gm[v], fin[v]);
    }
    return tiny;
  }

  // The output of `rows` rows from the copy on chip, 16-byte stores; a thread's packs share
  // one column pack (THREADS % P == 0), so its V finished states are read once. The stores are
  // streaming (evict-first): on the H200, [16, 8192, 1024] float32 went from 66% of a copy to 73%.
  // E: the S groups of `per` rows, each with its maxima gm.
  template <int S>
  static __device__ __forceinline__ void write_out(const State* fin, const T* sa, const T* sb, T* y, i64 base,
                                                   i64 col0, i64 M, int rows, int per, const Pack<T, K> (&gm)[S]) {
    const int t = threadIdx.x;
    if constexpr (E) {
      if (col0 + (t % P) * V >= M) return;
#pragma unroll
      for (int g = 0; g < S; ++g) {
        const int lo = min(rows, g * per), hi = min(rows, (g + 1) * per);
        float s[V];
        if (!factors(gm[g], fin + (t % P) * FIN_PACK, s))
          emit(y, base, M, sa, sb, lo, hi, [&](const Pack<T, V>& pa, const Pack<T, V>&) {
            return scaled<false>(pa, [&](int i) { return s[i]; });
          });
        else
          emit(y, base, M, sa, sb, lo, hi, [&](const Pack<T, V>& pa, const Pack<T, V>&) {
            return scaled<true>(pa, [&](int i) { return s[i]; });
          });
      }
    } else {  // as before stored terms (the same code, so the same registers)
      State f[V];
#pragma unroll
      for (int v = 0; v < V; ++v) f[v] = fin[(t % P) * FIN_PACK + v];
      if (col0 + (t % P) * V >= M) return;
      T* out = y + base + (i64)(t / P) * M + (t % P) * V;  // row q / P, moving RS rows a step
      const i64 step = (i64)RS * M;
      for (int q = t; q < rows * P; q += THREADS, out += step) {
        Pack<T, V> pa, pb, o;
        pa.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sa + q * V);
        if (Op::IN == 2) pb.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sb + q * V);
#pragma unroll
        for (int v = 0; v < V; ++v) o.set(v, Op::out(f[v], pa[v], Op::IN == 2 ? pb[v] : 0.f));
        o.store_cs(out);
      }
    }
  }

  // write_refill's rows [lo, hi) (lo a multiple of RS): this thread's outputs by make(pa, pb) where
  // `live`, each slot refilled as soon as it is read from the next strip's input at `in` (the
  // row lo's), when `more`; then the group committed.
  template <class Make>
  static __device__ __forceinline__ void refill_rows(const Make& make, T* sa, T* sb, const T* a, const T* b, T* y,
                                                     i64 base, i64 next_base, i64 M, bool live, bool more, bool ok,
                                                     int lo, int hi) {
    const int t = threadIdx.x, p = t % P, c = p * V;
    const unsigned ua = smem_addr(sa), ub = smem_addr(sb);
    int r = lo + t / P;  // as in copy_in: one pack column, offsets carried from row to row
    i64 out = base + (i64)r * M + c, in = ok ? next_base + (i64)r * M + c : 0;
    const i64 step = (i64)RS * M, in_step = ok ? step : 0;
    for (; r < hi; r += RS, out += step, in += in_step) {
      const int q = r * P + p;
      if (live) {
        Pack<T, V> pa, pb;
        pa.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sa + q * V);
        if (Op::IN == 2) pb.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sb + q * V);
        make(pa, pb).store_cs(y + out);
      }
      if (more) {
        cp_async16_at(ua + q * 16, a + in, ok);
        if (Op::IN == 2) cp_async16_at(ub + q * 16, b + in, ok);
      }
    }
    cp_async_commit();
  }

  // write_out's stores, each slot refilled as soon as it is read with the same pack of the next
  // strip (at next_base, next_col0; when `more`), in copy_in's S groups of `per` rows so that the
  // fold can wait for them group by group. Same thread, same slot, in program order: the refill
  // lands after the read. E: each group's stored terms with its maxima gm.
  template <int S>
  static __device__ __forceinline__ void write_refill(const State* fin, T* sa, T* sb, const T* a, const T* b,
                                                      T* y, i64 base, i64 col0, i64 next_base, i64 next_col0,
                                                      bool more, i64 M, int rows, int per, const Pack<T, K> (&gm)[S]) {
    const int t = threadIdx.x, p = t % P, c = p * V;
    if constexpr (E) {
      const bool live = col0 + c < M, ok = more && next_col0 + c < M;
#pragma unroll
      for (int s = 0; s < S; ++s) {
        const int lo = min(rows, s * per), hi = min(rows, (s + 1) * per);
        float k[V];
        if (!factors(gm[s], fin + p * FIN_PACK, k))
          refill_rows([&](const Pack<T, V>& pa, const Pack<T, V>&) {
            return scaled<false>(pa, [&](int i) { return k[i]; });
          }, sa, sb, a, b, y, base, next_base, M, live, more, ok, lo, hi);
        else
          refill_rows([&](const Pack<T, V>& pa, const Pack<T, V>&) {
            return scaled<true>(pa, [&](int i) { return k[i]; });
          }, sa, sb, a, b, y, base, next_base, M, live, more, ok, lo, hi);
      }
      return;
    }
    // as before stored terms (the same code, so the same registers)
    State f[V];
#pragma unroll
    for (int v = 0; v < V; ++v) f[v] = fin[p * FIN_PACK + v];
    const bool live = col0 + c < M, ok = more && next_col0 + c < M;
    const unsigned ua = smem_addr(sa), ub = smem_addr(sb);
    if constexpr (LEAN) {  // the gradient on chip (sa), y from global memory, LEAN_U rows' loads in flight
      for (int s = 0; s < S; ++s) {
        const int lo = min(rows, s * per), hi = min(rows, (s + 1) * per);
        int r = lo + t / P;
        i64 out = base + (i64)r * M + c, in = ok ? next_base + (i64)r * M + c : 0;
        const i64 step = (i64)RS * M, in_step = ok ? step : 0;
        for (; r < hi; r += LEAN_U * RS, out += LEAN_U * step, in += LEAN_U * in_step) {
          Pack<T, V> yv[LEAN_U];
#pragma unroll
          for (int u = 0; u < LEAN_U; ++u)
            if (live && r + u * RS < hi) yv[u].load_cs(a + out + u * step);  // y, read for the last time
#pragma unroll
          for (int u = 0; u < LEAN_U; ++u) {
            if (r + u * RS >= hi) break;
            const int q = (r + u * RS) * P + p;
            if (live) {
              Pack<T, V> g, o;
              g.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sa + q * V);
#pragma unroll
              for (int v = 0; v < V; ++v) o.set(v, Op::out(f[v], yv[u][v], g[v]));
              o.store_cs(y + out + u * step);
            }
            if (more) cp_async16_at(ua + q * 16, b + in + u * in_step, ok);
          }
        }
        cp_async_commit();
      }
      return;
    }
    for (int s = 0; s < S; ++s) {
      const int lo = min(rows, s * per), hi = min(rows, (s + 1) * per);
      int r = lo + t / P;  // as in copy_in: one pack column, offsets carried from row to row
      i64 out = base + (i64)r * M + c, in = ok ? next_base + (i64)r * M + c : 0;
      const i64 step = (i64)RS * M, in_step = ok ? step : 0;
      for (; r < hi; r += RS, out += step, in += in_step) {
        const int q = r * P + p;
        if (live) {
          Pack<T, V> pa, pb, o;
          pa.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sa + q * V);
          if (Op::IN == 2) pb.raw = *reinterpret_cast<const typename Pack<T, V>::R*>(sb + q * V);
#pragma unroll
          for (int v = 0; v < V; ++v) o.set(v, Op::out(f[v], pa[v], Op::IN == 2 ? pb[v] : 0.f));
          o.store_cs(y + out);
        }
        if (more) {
          cp_async16_at(ua + q * 16, a + in, ok);
          if (Op::IN == 2) cp_async16_at(ub + q * 16, b + in, ok);
        }
      }
      cp_async_commit();
    }
  }
};

// S: the block's rows land in S groups, each folded as soon as it is on chip while the later
// ones are still on their way (S == 1: fold after the whole share has landed).
template <typename T, int C, int W, int THREADS, int S, class Op, bool E>
__device__ __forceinline__ void cols_cluster(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y,
                                             i64 N, i64 L, i64 M) {
  typedef Share<T, W, THREADS, Op, E> Sh;
  static_assert(S >= 1 && S <= 8, "at most 8 groups of copies in flight");
  extern __shared__ __align__(16) unsigned char smem[];
  State* red = reinterpret_cast<State*>(smem);
  State* part = red + Sh::WARPS * Sh::COLS;
  State* fin = red;  // padded (Sh::fin_at), written once the meeting has read the partials
  static_assert(Sh::P * Sh::FIN_PACK <= Sh::WARPS * Sh::COLS, "the finished states over the partials");
  T* sa = reinterpret_cast<T*>(red + Sh::STATES);        // [rows][COLS] x (or y)
  const i64 lc = (L + C - 1) / C;
  T* sb = sa + lc * Sh::COLS;                             // [rows][COLS] the gradient (IN == 2)
  const i64 r0 = cluster_rank() * lc;
  const int rows = (int)max((i64)0, min(L, r0 + lc) - r0);
  // rows a group: a multiple of G, so that a thread's rows (every G-th) are the same in each
  const int per = ((rows + S - 1) / S + Sh::G - 1) / Sh::G * Sh::G;
  const i64 col0 = (blockIdx.x / C) * Sh::COLS;
  for (i64 n = blockIdx.y; n < N; n += gridDim.y) {
    const i64 base = (n * L + r0) * M + col0;
    // 1. the block's rows of the strip into shared memory, all copies in flight at once; on
    // 128-byte strips the L2 fetches 256 bytes a miss: on the H200 float32 [16, 8192, 1024] and
    // [8192, 8192] gained 1.3 and 1.7 points of a copy, bfloat16 0.4 and 1.0, where colsTeam with
    // the same copies lost up to 3.7 (benchmarks/h200/l2-prefetch; narrower strips not measured)
    Sh::template copy_groups<W == 128>(sa, sb, a, b, base, col0, M, rows, per, S);
    // 2. folded group by group as they land
    State st[Sh::K];
    Pack<T, Sh::K> gm[S];  // E: each group's maxima of the thread's columns
    Sh::fold_groups(st, sa, sb, rows, per, gm);
    // 3. the cluster's states per column
    Sh::template finish<C>(st, red, part, fin);
    // 4. the output from the copy on chip
    Sh::write_out(fin, sa, sb, y, base, col0, M, rows, per, gm);
    cluster_wait();   // every block has read this one's `part`
    __syncthreads();  // the shared copy is overwritten by the next n
  }
}

template <typename T, int C, int W, int THREADS, int S, class Op, bool E = false>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(THREADS)
colsCluster(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, i64 N, i64 L, i64 M) {
  cols_cluster<T, C, W, THREADS, S, Op, E>(a, b, y, N, L, M);
}

// NVRTC 13.0 settles this one (float16 log-softmax, a strip on one block) at 64 registers and
// spills; told two blocks an SM it takes 96, so at most two blocks share an SM where a short axis
// would have let more in. Told the same, the others took 20-60% more registers than they need.
template <>
__global__ void __cluster_dims__(1, 1, 1) __launch_bounds__(256, 2)
colsCluster<half16, 1, 128, 256, 1, Forward<true> >(const half16* __restrict__ a, const half16* __restrict__ b,
                                                    half16* __restrict__ y, i64 N, i64 L, i64 M) {
  cols_cluster<half16, 1, 128, 256, 1, Forward<true>, false>(a, b, y, N, L, M);
}

// colsTeam's teams start out of phase: team g's thread 0 waits (g % 3) * TEAM_PHASE_NS before the
// block's first copies. Started together, the teams fetched, folded and met in step, so DRAM idled
// while every team waited at its meeting; started 3 us apart (a round of bfloat16 strips takes
// about 18 us), one team's fold and meeting overlap the others' traffic. On the H200
// (benchmarks/h200/softmax/team-l2, alternately against starting together, with the prefetch
// below) every colsTeam case gained 1.9-8.2 points of a copy at 3 us (without the prefetch, in
// another run, 0.1-6.7); 1.5 us gave -1.6 to +1.2 points against that, 4.5 us -3.3 to +0.5
// (rowTeam, whose teams of 3-16 blocks meet every row, gained nothing from the same wait and
// starts together).
constexpr unsigned TEAM_PHASE_NS = 3000;
__device__ __forceinline__ void team_phase(unsigned team) {
  if (team % 3 == 0) return;
  if (threadIdx.x == 0) {
    const unsigned wait = team % 3 * TEAM_PHASE_NS;
    unsigned t0, now;  // the timer's low 32 bits: differences up to 4 s
    asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(t0));
    do {
      asm volatile("nanosleep.u32 256;");
      asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(now));
    } while (now - t0 < wait);
  }
  __syncthreads();
}

// colsTeam: colsCluster's strips on a team of `blocks` ordinary blocks meeting through global
// memory, so a strip's rows may span any number of blocks, each holding as few as keeps several
// blocks on an SM. Gradients gain most: two inputs on a cluster of 16 filled an SM's shared
// memory with one block, whose load, fold, meeting and write then barely overlapped. G teams; team
// g takes strips g, g + G, ... (strip t: slice t / strips-a-slice, its (t % strips-a-slice)-th
// COLS columns), and as a block writes one strip out it refills its slots with the next one's rows.
// A block waits for the rest of its team, so every block must be resident (a cooperative launch).
// ws: G counts 128 bytes apart (zeroed before the launch), then [G][2][blocks][COLS] states
// (by strip parity: a slow block may still read the previous strip's). MINB blocks an SM: gradients
// 2 (96 KiB of strip rows each; told so, NVRTC gives them up to 128 registers a thread, where left
// to choose, 13.5 settled two at 64 and spilled), softmax and log-softmax 3 (64 KiB each; told 2,
// 16-bit forward took 90-101 registers, which left room for two blocks of 256 an SM, not three).
// E: stored terms (Share). NL: the team's states a thread loads at once in the meeting, 4 or 16.
// 16-bit gradients on teams of more than 64 blocks take 16 (plans.cols_team): on the H200
// (benchmarks/h200/softmax/team-gather, four rounds alternately against 4) bfloat16 gradients down
// 32768 rows (teams of 86 blocks, 22 states a thread) went from 68.6% of a copy to 72.2% at [4,
// 32768, 1024] and from 65.1% to 68.5% at [32768, 4096]; down 24576 rows (64 blocks) they were level
// (+0.4), as were softmax on teams of 64 (-0.6) and float32 (whose 8 threads a column load 11 of 86).
// float16 gradients run the same code (not timed with 16 loads). LEAN: log-softmax gradients hold
// only the gradient on chip (Share), and each block prefetches its rows of y into the L2 while it
// waits at the meeting (prefetched before the fold instead, they lost 2.5-6.6 points of a copy on the
// H200: lean-depth).
template <typename T, int W, int THREADS, int S, class Op, int MINB, bool E = false, int NL = 4, bool LEAN = false>
__global__ void __launch_bounds__(THREADS, MINB)
colsTeam(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, unsigned* ws, i64 N, i64 L, i64 M,
         i64 blocks, i64 G) {
  typedef Share<T, W, THREADS, Op, E, LEAN> Sh;
  static_assert(S >= 1 && S <= 8, "at most 8 groups of copies in flight");
  // 16-bit softmax and log-softmax: while the block waits at a meeting, the next strip's rows go
  // into the L2 (Sh::prefetch_rows), so that its refill copies hit there. On the H200 (team-l2, as
  // above) bfloat16 gained 0.6-2.8 points of a copy with the teams in step and 0.3-2.7 more out of
  // phase; float32 lost 0.8-3.1 and gradients 1.1-6.0 (teams in step), so they fetch as before.
  constexpr bool PREFETCH = sizeof(T) == 2 && Op::IN == 1;
  extern __shared__ __align__(16) unsigned char smem[];
  State* red = reinterpret_cast<State*>(smem);
  State* fin = red + Sh::WARPS * Sh::COLS;
  T* sa = reinterpret_cast<T*>(red + Sh::STATES);        // [rows][COLS] x (or y)
  const i64 lc = (L + blocks - 1) / blocks;
  T* sb = sa + lc * Sh::COLS;                             // [rows][COLS] the gradient (IN == 2)
  const i64 rank = blockIdx.x % blocks, team = blockIdx.x / blocks;
  const i64 r0 = rank * lc;
  const int rows = (int)max((i64)0, min(L, r0 + lc) - r0);
  const int per = ((rows + S - 1) / S + Sh::G - 1) / Sh::G * Sh::G;
  const i64 across = (M + Sh::COLS - 1) / Sh::COLS, strips = N * across;
  unsigned* count = ws + team * 32;  // a 128-byte line each
  State* states = reinterpret_cast<State*>(ws + G * 32) + team * 2 * blocks * Sh::COLS;
  i64 t = team;
  if (t >= strips) return;  // no other team waits on this one
  team_phase((unsigned)team);
  i64 col0 = (t % across) * Sh::COLS, base = ((t / across) * L + r0) * M + col0;
  Sh::copy_groups(sa, sb, a, b, base, col0, M, rows, per, S);
  for (unsigned j = 0; t < strips; t += G, ++j) {
    const i64 next = t + G, ncol0 = (next % across) * Sh::COLS, nbase = ((next / across) * L + r0) * M + ncol0;
    State st[Sh::K];
    Pack<T, Sh::K> gm[S];  // E: each group's maxima of the thread's columns
    Sh::fold_groups(st, sa, sb, rows, per, gm);
    Sh::partials(st, red);
    Sh::template team_meet<NL>(red, fin, states + (j & 1) * blocks * Sh::COLS, count, blocks, rank,
                               (j + 1) * (unsigned)blocks,
                               [&] {
                                 if (PREFETCH && next < strips) Sh::prefetch_rows(a, b, nbase, ncol0, M, rows);
                                 if (LEAN) Sh::prefetch_rows(a, b, base, col0, M, rows);  // this strip's y
                               });
    Sh::write_refill(fin, sa, sb, a, b, y, base, col0, nbase, ncol0, next < strips, M, rows, per, gm);
    col0 = ncol0;
    base = nbase;
  }
}
