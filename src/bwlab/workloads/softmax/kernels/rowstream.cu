// Long rows read once, through shared memory, with the next row's reads overlapping this
// row's writes. A cluster of C blocks shares a row: each block copies its segment (K packs
// per thread) into shared memory with asynchronous copies, folds it in S groups as they land,
// and the C block states meet through distributed shared memory. Cluster c of G takes rows
// c, c + G, c + 2G, ...: as a thread writes out a pack of one row it refills that slot with
// the pack of the cluster's next row, so reads and writes stream together and no block
// barrier is needed (every thread only touches its own slots). Shared memory instead of
// registers lets several blocks share an SM, so one block's barriers and reductions hide
// behind another's traffic. 16-byte packs, aligned rows.
#include "softmax.cuh"

// Asynchronous copies of this thread's packs of a row (a, b: the row's inputs at this thread's
// first pack) into its slots (ua, ub: their shared addresses), the packs of `live` (bit k: pack
// k), committed as S groups of K / S packs (the fold waits for them one group at a time).
template <typename T, int V, int THREADS, int K, int S, class Op>
__device__ __forceinline__ void fetch_packs(unsigned ua, unsigned ub, const T* a, const T* b, unsigned live) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (live >> k & 1) {
      cp_async16_at(ua + k * THREADS * 16, a + k * THREADS * V);
      if (Op::IN == 2) cp_async16_at(ub + k * THREADS * 16, b + k * THREADS * V);
    }
    if ((k + 1) % (K / S) == 0) cp_async_commit();
  }
}

// How a row's block states meet, from the block's state in thread 0 (block_to_warp0) to the
// row's state in every thread. ClusterMeet: a cluster of C blocks through distributed shared
// memory. TeamMeet: a team of any number of blocks through global memory (each block's state
// and a count per row, zeroed before the launch); every block of the grid must be resident at
// once (the launch is cooperative), since a block waits for the other blocks of its row. In both,
// warp 0 alone merges the row's block states and one barrier hands the result to the block (in
// scratch[31]: block_to_warp0's slots are 0..WARPS-1, which warp 0 may still be reading).
template <class Op, int C>
struct ClusterMeet {
  static const bool TEAM = false;
  __device__ i64 rank() const { return cluster_rank(); }
  __device__ i64 size() const { return C; }
  __device__ i64 team() const { return blockIdx.x / C; }
  // j counts the block's rows: `part` is double-buffered by row parity, since a slow block may
  // still be reading the previous row's state
  __device__ State all(State s, State* part, State* scratch, i64, int j) const {
    static_assert(C <= 32, "a lane a block");
    constexpr int W = C <= 2 ? 2 : C <= 4 ? 4 : C <= 8 ? 8 : C <= 16 ? 16 : 32;  // lanes merged
    if (threadIdx.x == 0) part[j & 1] = s;
    cluster_sync();
    if (threadIdx.x < 32) {
      State t = threadIdx.x < C ? load_remote(&part[j & 1], threadIdx.x) : Op::empty();
      t = warp_merge<Op, W>(t);
      if (threadIdx.x == 0) scratch[31] = t;
    }
    __syncthreads();
    return scratch[31];
  }
  __device__ void done() const { cluster_sync(); }  // no block leaves while another may still read its `part`
};

template <class Op, int THREADS>
struct TeamMeet {
  static const bool TEAM = true;
  unsigned* count;  // [N] blocks of the row that have stored their state
  State* states;    // [N][size] their states
  i64 blocks;       // blocks a team
  __device__ i64 rank() const { return blockIdx.x % blocks; }
  __device__ i64 size() const { return blocks; }
  __device__ i64 team() const { return blockIdx.x / blocks; }
  // Thread 0 stores the block's state and counts it (count_release), then waits for the row's count.
  __device__ State all(State s, State*, State* scratch, i64 row, int) const {
    if (threadIdx.x < 32) {
      if (threadIdx.x == 0) {
        states[row * blocks + rank()] = s;
        count_release(count + row);
        while (ld_acquire(count + row) < (unsigned)blocks) asm volatile("nanosleep.u32 64;" ::: "memory");
      }
      __syncwarp();
      State t = Op::empty();
      for (i64 i = threadIdx.x; i < blocks; i += 32) t = Op::merge(t, ld_cg(states + row * blocks + i));
      t = warp_merge<Op, 32>(t);
      if (threadIdx.x == 0) scratch[31] = t;
    }
    __syncthreads();
    return scratch[31];
  }
  __device__ void done() const {}
};

// A group of N packs of this thread's slots, from k0, folded into acc (the packs of `live` only):
// 16-bit softmax and log-softmax as fold_pairs (one merge a group), the rest pack by pack.
template <typename T, int V, int THREADS, int N, class Op>
__device__ __forceinline__ void fold_group(State& acc, const Pack<T, V>* sa, const Pack<T, V>* sb, int k0,
                                           unsigned live) {
  const int p0 = threadIdx.x + k0 * THREADS;
  if constexpr (sizeof(T) == 2 && V > 1 && Op::KNOWN_MAX) {
    acc = Op::merge(acc, fold_pairs<T, V, N, Op>([&](int k) { return sa[p0 + k * THREADS]; },
                                                 [&](int k) { return (live >> (k0 + k) & 1) != 0; }));
  } else {
#pragma unroll
    for (int k = 0; k < N; ++k) {
      if (!(live >> (k0 + k) & 1)) continue;
      const Pack<T, V> pa = sa[p0 + k * THREADS];
      float va[V], vb[V];
#pragma unroll
      for (int i = 0; i < V; ++i) va[i] = pa[i];
      if (Op::IN == 2) {
        const Pack<T, V> pb = sb[p0 + k * THREADS];
#pragma unroll
        for (int i = 0; i < V; ++i) vb[i] = pb[i];
      }
      Op::template fold<V>(acc, va, vb);
    }
  }
}

// A row's output from this thread's slots (make(k, pa, pb): the output pack of slot k), each slot
// refilled as it is read with the same pack of the row `next` (the packs of `refill`), committed as
// the S groups of fetch_packs. Same thread, same slot, in program order: each refill lands after
// the slot's read.
template <typename T, int V, int THREADS, int K, int S, class Op, class Make>
__device__ __forceinline__ void emit_row(const Make& make, const Pack<T, V>* sa, const Pack<T, V>* sb, T* y,
                                         const T* a, const T* b, unsigned ua, unsigned ub, i64 off, i64 next,
                                         unsigned live, unsigned refill) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (live >> k & 1) {
      const int p = threadIdx.x + k * THREADS;
      const Pack<T, V> pa = sa[p];
      Pack<T, V> pb;
      if (Op::IN == 2) pb = sb[p];
      make(k, pa, pb).store(y + off + k * THREADS * V);
      if (refill >> k & 1) {
        cp_async16_at(ua + k * THREADS * 16, a + next + k * THREADS * V);
        if (Op::IN == 2) cp_async16_at(ub + k * THREADS * 16, b + next + k * THREADS * V);
      }
    }
    if ((k + 1) % (K / S) == 0) cp_async_commit();
  }
}

// One block's share of rows team, team + G, ...: its segment of each row landing in S groups,
// folded as they land, the row's state from the meeting, then the output written while the
// slots refill with the next row. E (softmax): each group's terms stored over its packs
// (fold_store), so that an output is one multiply (scaled), not an ex2.
template <typename T, int V, int THREADS, int K, int S, class Op, bool E, class Meet>
__device__ __forceinline__ void row_stream(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y,
                                           i64 N, i64 L, i64 G, const Meet& meet, State* part) {
  static_assert(V * sizeof(T) == 16, "rowStream moves 16-byte packs");
  static_assert(K % S == 0 && S <= 8 && K <= 32, "S groups of whole packs; a bit a pack");
  static_assert(THREADS % 32 == 0 && THREADS / 32 < 32, "scratch[31] is the meeting's own");
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ State scratch[32];
  Pack<T, V>* sa = reinterpret_cast<Pack<T, V>*>(smem);
  Pack<T, V>* sb = sa + K * THREADS;
  const i64 packs = L / V, parts = meet.size(), seg = (packs + parts - 1) / parts;
  const i64 first = meet.rank() * seg, last = min(packs, first + seg);
  const i64 row0 = meet.team();
  // this thread's packs of its block's segment, and where its slots are: the same for every row
  const i64 mine = first + threadIdx.x;
  const int room = (int)max((i64)0, min(last - mine, (i64)K * THREADS));  // 32-bit compares below
  unsigned live = 0;
#pragma unroll
  for (int k = 0; k < K; ++k) live |= (k * THREADS < room ? 1u : 0u) << k;
  // 16-bit rows on teams: `live` kept whole in a register (taken apart into predicates beside the
  // team's pointers, it spilled 8 bytes)
  if constexpr (Meet::TEAM && sizeof(T) == 2) asm("mov.b32 %0, %0;" : "+r"(live));
  const unsigned ua = smem_addr(sa) + threadIdx.x * 16, ub = smem_addr(sb) + threadIdx.x * 16;
  if (row0 < N) fetch_packs<T, V, THREADS, K, S, Op>(ua, ub, a + row0 * L + mine * V, b + row0 * L + mine * V, live);
  static_assert(!E || Op::STORES, "stored terms: softmax");
  constexpr int PG = K / S;  // packs a group
  int j = 0;
  for (i64 row = row0; row < N; row += G, ++j) {
    const i64 off = row * L + mine * V;
    // bfloat16 gradients: even and odd groups in two chains (float32 and float16 have no registers
    // to spare for a second within 3 blocks of 512 an SM: 40 a thread)
    constexpr int A = IsBf16<T>::v && Op::IN == 2 ? 2 : 1;
    State acc[A];
    float gm[S];  // E: each group's max, against which its terms are stored
#pragma unroll
    for (int i = 0; i < A; ++i) acc[i] = Op::empty();
#pragma unroll
    for (int g = 0; g < S; ++g) {
      cp_async_wait_upto(S - 1 - g);  // this thread's copies of group g have landed
      if constexpr (E) {
        const int p0 = threadIdx.x + g * PG * THREADS;
        acc[0] = Op::merge(acc[0], fold_store<T, V, PG>([&](int k) { return &sa[p0 + k * THREADS]; },
                                                        [&](int k) { return (live >> (g * PG + k) & 1) != 0; },
                                                        gm[g]));
      } else if constexpr (A == 2) {  // pack by pack, alternating chains
#pragma unroll
        for (int k = g * (K / S); k < (g + 1) * (K / S); ++k)
          fold_group<T, V, THREADS, 1, Op>(acc[k % 2], sa, sb, k, live);
      } else {
        fold_group<T, V, THREADS, K / S, Op>(acc[0], sa, sb, g * (K / S), live);
      }
    }
    // the block's state to warp 0, then the row's state to every thread
    const State s = block_to_warp0<Op, THREADS>(A == 2 ? Op::merge(acc[0], acc[A - 1]) : acc[0], scratch);
    const State f = Op::finish(meet.all(s, part, scratch, row, j));
    const unsigned refill = row + G < N ? live : 0u;
    const i64 next = off + G * L;
    if constexpr (E) {
      bool tiny = false;
#pragma unroll
      for (int g = 0; g < S; ++g) tiny |= term_tiny<T>(gm[g], f);
      float s[S];
      if (!tiny) {
#pragma unroll
        for (int g = 0; g < S; ++g) s[g] = term_factor<T, false>(gm[g], f);
        emit_row<T, V, THREADS, K, S, Op>([&](int k, const Pack<T, V>& pa, const Pack<T, V>&) {
          return scaled<false>(pa, [&](int) { return s[k / PG]; });
        }, sa, sb, y, a, b, ua, ub, off, next, live, refill);
      } else {
#pragma unroll
        for (int g = 0; g < S; ++g) s[g] = term_factor<T, true>(gm[g], f);
        emit_row<T, V, THREADS, K, S, Op>([&](int k, const Pack<T, V>& pa, const Pack<T, V>&) {
          return scaled<true>(pa, [&](int) { return s[k / PG]; });
        }, sa, sb, y, a, b, ua, ub, off, next, live, refill);
      }
    } else {  // as before stored terms (the same code, so the same registers)
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (live >> k & 1) {
          const int p = threadIdx.x + k * THREADS;
          const Pack<T, V> pa = sa[p];
          Pack<T, V> pb, o;
          if (Op::IN == 2) pb = sb[p];
#pragma unroll
          for (int i = 0; i < V; ++i) o.set(i, Op::out(f, pa[i], Op::IN == 2 ? pb[i] : 0.f));
          o.store(y + off + k * THREADS * V);
          if (refill >> k & 1) {
            cp_async16_at(ua + k * THREADS * 16, a + next + k * THREADS * V);
            if (Op::IN == 2) cp_async16_at(ub + k * THREADS * 16, b + next + k * THREADS * V);
          }
        }
        if ((k + 1) % (K / S) == 0) cp_async_commit();
      }
    }
  }
  meet.done();
}

// The forward is held to 40 registers a thread (3 blocks of 512 an SM, as shared memory allows).
template <typename T, int V, int C, int THREADS, int K, int S, class Op, bool E = false>
__global__ void __cluster_dims__(C, 1, 1) __launch_bounds__(THREADS, Op::IN == 1 ? 1536 / THREADS : 1)
rowStream(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, i64 N, i64 L, i64 G) {
  __shared__ __align__(8) State part[2];  // by row parity (a slow block may still read the previous
                                          // row's); 8-aligned for load_remote's 8-byte access
  row_stream<T, V, THREADS, K, S, Op, E>(a, b, y, N, L, G, ClusterMeet<Op, C>{}, part);
}

// rowStream on a team of `blocks` blocks a row meeting through global memory, G teams: rows
// longer than a cluster holds. ws: N counts (zeroed before the launch; 16-byte aligned), then
// N * blocks states.
template <typename T, int V, int THREADS, int K, int S, class Op, bool E = false>
__global__ void __launch_bounds__(THREADS, Op::IN == 1 ? 1536 / THREADS : 1)
rowTeam(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, unsigned* ws, i64 N, i64 L,
        i64 blocks, i64 G) {
  const TeamMeet<Op, THREADS> meet{ws, reinterpret_cast<State*>(ws + (N + 3) / 4 * 4), blocks};
  row_stream<T, V, THREADS, K, S, Op, E>(a, b, y, N, L, G, meet, nullptr);
}
