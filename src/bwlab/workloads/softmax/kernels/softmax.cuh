// What every softmax kernel shares: element types, 16-byte packs, the reductions
// (softmax, log-softmax and their backward passes as one "Op" interface), and the
// Hopper pieces (asynchronous copies, thread-block clusters) written as PTX, so that
// NVRTC needs no toolkit headers.
//
// Layout: the input is a C-contiguous [N, L, M] array reduced over L (M == 1: the last
// axis). Every kernel computes in float32 whatever the element type.
#pragma once
#include "common.cuh"

#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

// --- element types: float, and the 16-bit floats carried as raw bits ------------------
struct half16 { unsigned short u; };
struct bf16 { unsigned short u; };
template <typename T> struct IsBf16 { static const bool v = false; };
template <> struct IsBf16<bf16> { static const bool v = true; };

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(half16 v) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v.u));
  return f;
}
__device__ __forceinline__ float to_f(bf16 v) { return __uint_as_float((unsigned)v.u << 16); }

template <typename T> __device__ __forceinline__ T from_f(float f);
template <> __device__ __forceinline__ float from_f<float>(float f) { return f; }
template <> __device__ __forceinline__ half16 from_f<half16>(float f) {
  half16 r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r.u) : "f"(f));
  return r;
}
template <> __device__ __forceinline__ bf16 from_f<bf16>(float f) {
  bf16 r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r.u) : "f"(f));
  return r;
}

// Two floats rounded to a 16-bit pair (lo in the low half) by one instruction.
__device__ __forceinline__ unsigned pair_of(float lo, float hi, bf16) {
  unsigned r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
__device__ __forceinline__ unsigned pair_of(float lo, float hi, half16) {
  unsigned r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// --- packs of V elements moved as one access (V * sizeof(T) = 16 bytes, or V = 1) ------
template <int B> struct Raw;
template <> struct Raw<2> { typedef unsigned short T; };
template <> struct Raw<4> { typedef unsigned int T; };
template <> struct Raw<8> { typedef uint2 T; };
template <> struct Raw<16> { typedef uint4 T; };

template <typename T, int V>
struct Pack {
  typedef typename Raw<V * sizeof(T)>::T R;
  union { R raw; T e[V]; };
  __device__ __forceinline__ void load(const T* p) { raw = *reinterpret_cast<const R*>(p); }
  __device__ __forceinline__ void store(T* p) const { *reinterpret_cast<R*>(p) = raw; }
  __device__ __forceinline__ void store_cs(T* p) const { __stcs(reinterpret_cast<R*>(p), raw); }  // evict first
  __device__ __forceinline__ void load_cs(const T* p) { raw = __ldcs(reinterpret_cast<const R*>(p)); }
  __device__ __forceinline__ void fill(float f) {
#pragma unroll
    for (int i = 0; i < V; ++i) e[i] = from_f<T>(f);
  }
  __device__ __forceinline__ float operator[](int i) const {
    if constexpr (V > 1 && IsBf16<T>::v) {  // from the pair's word: one shift or one mask
      const unsigned w = reinterpret_cast<const unsigned*>(e)[i / 2];
      return __uint_as_float(i & 1 ? w & 0xffff0000u : w << 16);
    } else {
      return to_f(e[i]);
    }
  }
  __device__ __forceinline__ void set(int i, float f) { e[i] = from_f<T>(f); }
  // elements i and i + 1 (i even): 16-bit pairs in one conversion
  __device__ __forceinline__ void set2(int i, float lo, float hi) {
    if constexpr (sizeof(T) == 2 && V > 1) {
      reinterpret_cast<unsigned*>(e)[i / 2] = pair_of(lo, hi, T{});
    } else {
      set(i, lo);
      set(i + 1, hi);
    }
  }
};

// --- exp through ex2: exp(d) = 2^(d * log2e), one multiply and one MUFU instruction --------
#define LOG2E 1.4426950408889634f
__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// max that propagates NaN (as torch's max does): a NaN anywhere makes the row NaN.
__device__ __forceinline__ float maxnan(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

// NaN-propagating maxima of 16-bit float pairs, two to an instruction.
__device__ __forceinline__ unsigned max2(unsigned a, unsigned b, bf16) {
  unsigned r;
  asm("max.NaN.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ unsigned max2(unsigned a, unsigned b, half16) {
  unsigned r;
  asm("max.NaN.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

// acc = the element-wise max of acc and p (NaN propagating); 16-bit elements two an instruction.
template <typename T, int V>
__device__ __forceinline__ void pack_max(Pack<T, V>& acc, const Pack<T, V>& p) {
  if constexpr (V == 1 || sizeof(T) == 4) {
#pragma unroll
    for (int i = 0; i < V; ++i) acc.set(i, maxnan(acc[i], p[i]));
  } else {
    unsigned* a = reinterpret_cast<unsigned*>(acc.e);
    const unsigned* b = reinterpret_cast<const unsigned*>(p.e);
#pragma unroll
    for (int j = 0; j < V / 2; ++j) a[j] = max2(a[j], b[j], T{});
  }
}

// log(1 + t) accurate for tiny t (Goldberg's trick: the rounding of 1 + t cancels out); the
// library's log1pf costs a stack frame in some kernels.
__device__ __forceinline__ float log1p_small(float t) {
  const float u = 1.f + t;
  return u == 1.f ? t : logf(u) * (t / (u - 1.f));
}

// --- the operations ------------------------------------------------------------------------
// A reduction state is two floats (softmax: running max and sum of exp; backward: one sum),
// so shuffles and shared-memory exchanges are written once. An Op says how many inputs it
// reads (IN), the value that pads a ragged pack (pad), how to fold values into a state,
// merge two states, finish the state once, and compute an output element.
struct State { float a, b; };

// Where column col's state sits in an array of states padded with 16 bytes after each PACK of
// them (PACK 0: unpadded), so that threads reading a pack each fall in different banks
// (colsCluster's and colsTeam's finished states, Share::fin_at).
__host__ __device__ constexpr int padded_state(int col, int pack) {
  return pack ? col / pack * (pack + 16 / (int)sizeof(State)) + col % pack : col;
}

// The forward state is (max m, t = sum of exp(x - m) - 1). Log-softmax keeps the max's own
// term, exactly 1, out of the sum, so log(sum) = log1p(t) keeps the tiny terms a float sum 1 + t
// would round away (log-softmax of a dominant element in 16-bit floats is then correctly
// rounded); softmax, whose 1 / (1 + t) is the same either way, sums every term (one compare and
// one add an element fewer). The empty state is (-inf, -1): (1 + t) is 0.
// TINY (bfloat16 log-softmax): t kept in units of 2^-64 (ONE = 2^64, the max's term). At a row's
// max the output is -log1p(t), about -t: a bfloat16 value down to 2^-133, while ex2 flushes terms
// (and rescales) below 2^-126 to zero, and many such terms can add up to t. Taken 2^64 larger, terms
// are kept down to 2^-189.5, so those dropped add up to less than 2^-158 in a row of 2^31, and a sum
// stays below 2^96. float32 and float16 need no such outputs (a float32 result's tolerance is
// absolute there; float16 rounds them to 0), and keep the form without the extra constant.
template <bool LOG, bool TINY = false>
struct Forward {
  static_assert(LOG || !TINY, "TINY: log-softmax");
  static const int IN = 1;
  static const bool G_ONLY = false;
  static constexpr float ONE = TINY ? 0x1p64f : 1.f;
  __device__ static float pad() { return -INFINITY; }
  __device__ static State empty() { return {-INFINITY, -ONE}; }
  // A state's 1 + t (in ONE's units), rescaled from its max a to m >= a; TINY: as e + (t / ONE) e,
  // e = ONE exp(a - m)
  __device__ static float rescaled(State s, float m) {
    if constexpr (TINY) {
      const float e = ex2(fmaf(s.a - m, LOG2E, 64.f));
      return fmaf(s.b * (1.f / ONE), e, e);
    } else {
      return (1.f + s.b) * ex2((s.a - m) * LOG2E);
    }
  }
  // Fold n values: the chunk's max first, then one rescale of the running sum.
  template <int n>
  __device__ static void fold(State& s, const float* x, const float*) {
    float m = s.a;
#pragma unroll
    for (int i = 0; i < n; ++i) m = maxnan(m, x[i]);
    if (m == -INFINITY) return;  // nothing but -inf so far
    float sum = 0.f, ones = 0.f;  // terms (log-softmax: below 1), and how many are exactly 1
    if constexpr (TINY && n >= 4) {  // term_low's terms, brought to ONE's units once (a multiply)
      const float low = lowered(m);
#pragma unroll
      for (int i = 0; i < n; ++i) term_low(sum, ones, x[i], m, low);
      sum = to_one(sum, m);
    } else {
#pragma unroll
      for (int i = 0; i < n; ++i) term(sum, ones, x[i] - m);
    }
    if (m == s.a) s.b += sum + ones * ONE;                         // the old max keeps the one
    else s = {m, rescaled(s, m) + sum + (ones - 1.f) * ONE};  // a new max brings it
  }
  // Folding values whose max m is known first (a pass over data on chip): each d = x - m adds to
  // `sum` or (log-softmax, terms exactly 1) `ones`, no rescaling; state() makes the State.
  // A max of -inf (nothing but -inf) is subtracted as 0, so that every term is exp(-inf) = 0.
  static const bool KNOWN_MAX = true;
  static const bool STORES = !LOG;  // softmax's terms may be stored over x on chip (fold_store)
  __device__ static float shift(float m) { return m == -INFINITY ? 0.f : m; }
  __device__ static void term(float& sum, float& ones, float d) {
    if (LOG && d == 0.f) ones += 1.f; else sum += ex2(TINY ? fmaf(d, LOG2E, 64.f) : d * LOG2E);
  }
  __device__ static State state(float m, float sum, float ones) { return {m, sum + (ones - 1.f) * ONE}; }
  // TINY's terms where a fold keeps sh (its max, shifted) and low = lowered(sh) in registers: term's
  // fma takes two constants, and NVRTC rematerializes one of them at every term; these are
  // exp(x - low), low 44 below sh (2^63.5 larger: kept down to 2^-189.5), brought to ONE's units
  // once a fold (to_one). x == sh finds the max's own terms. sh - 44 is exact for bfloat16 maxima
  // from 2^-11 to below 2^26 in magnitude (every one checked); past that every term but the max's own
  // is 0 (the next value is 2^18 or more below), and below 2^-11 the rounding of low moves the terms
  // by at most 2^-19.
  __device__ static float lowered(float sh) { return sh - 44.f; }
  __device__ static void term_low(float& sum, float& ones, float x, float sh, float low) {
    if (x == sh) ones += 1.f; else sum += ex2((x - low) * LOG2E);
  }
  // A sum of term_low's terms in ONE's units: times 2^(64 - 44 LOG2E), LOG2E the float the terms use
  // (as term's exponent); plus sh - sh, NaN for a max of
  // +inf (whose row is NaN, as torch's), where x == sh took it as the max's own term
  __device__ static float to_one(float sum, float sh) { return fmaf(sum, 0x1.6f742cp+0f, sh - sh); }
  // A known-max fold's term and its finished sum in either form: term_low and to_one where TINY
  // (low = lowered(sh), computed once a fold), else term on x - sh and the sum as it is.
  __device__ static void known_term(float& sum, float& ones, float x, float sh, float low) {
    if constexpr (TINY) term_low(sum, ones, x, sh, low); else term(sum, ones, x - sh);
  }
  __device__ static float known_sum(float sum, float sh) {
    if constexpr (TINY) return to_one(sum, sh); else return sum;
  }
  __device__ static State merge(State p, State q) {
    const float m = maxnan(p.a, q.a);
    if (m == -INFINITY) return {m, -ONE};
    if (p.a == q.a) return {m, p.b + q.b + ONE};
    if (p.a == m) return {m, p.b + rescaled(q, m)};
    if (q.a == m) return {m, q.b + rescaled(p, m)};
    return {m, __int_as_float(0x7fffffff)};  // a NaN max
  }
  // The merge of the states of the lanes whose indices differ only in the bits LO .. HI / 2 (powers
  // of two, LO < HI <= 32; 1 and WIDTH: groups of WIDTH adjacent lanes), in each of them: the
  // lanes' max first, then each lane's 1 + t rescaled to it once and the lanes' shares added
  // (log-softmax: a lane at the max adds its t and counts its one). 4-6 instructions a step where
  // merging states pairwise took about 30; every lane of the warp must call it.
  template <int LO, int HI>
  __device__ static State merge_lanes(State s) {
    if constexpr (LO >= HI) return s;
    float m = s.a;
#pragma unroll
    for (int o = LO; o < HI; o <<= 1) m = maxnan(m, __shfl_xor_sync(0xffffffffu, m, o));
    const bool at = LOG && s.a == m;
    float c = at ? s.b : rescaled(s, m), n = at ? 1.f : 0.f;
#pragma unroll
    for (int o = LO; o < HI; o <<= 1) {
      c += __shfl_xor_sync(0xffffffffu, c, o);
      if (LOG) n += __shfl_xor_sync(0xffffffffu, n, o);
    }
    if (m == -INFINITY) return {m, -ONE};  // every lane empty
    return {m, c + (n - 1.f) * ONE};
  }
  // Once per row: softmax keeps (max, 2^-16 / sum), log-softmax (max, log(sum)). x - max comes
  // first and is exact when they are close, so inputs of magnitude 1e4 lose nothing to a
  // rounded max * log2e. A probability is 2^(d log2e + 16) * (2^-16 / sum): ex2 flushes results
  // below 2^-126 to zero, and bfloat16 (like float32) has values down to 2^-133, which the final
  // multiply (not flushed) now reaches. The 16 costs nothing (a multiply became an fma); its
  // rounding moves the exponent by at most 2^-21 for results from 2^-32 up (3e-7 of the result),
  // and by no more than before below that.
  __device__ static State finish(State s) {
    return {s.a, LOG ? log1p_small(s.b * (1.f / ONE)) : 0x1p-16f / (1.f + s.b)};
  }
  __device__ static float out(State f, float x, float) {
    if (LOG) return (x - f.a) - f.b;
    return ex2(fmaf(x - f.a, LOG2E, 16.f)) * f.b;
  }
};

// Backward from the forward output y and the incoming gradient g:
// softmax: dx = y * (g - sum(y * g)); log-softmax: dx = g - exp(y) * sum(g).
template <bool LOG>
struct Backward {
  static const int IN = 2;
  static const bool KNOWN_MAX = false, STORES = false;
  static const bool G_ONLY = LOG;  // the fold reads the gradient alone (log-softmax's sum(g))
  __device__ static float pad() { return 0.f; }
  __device__ static State empty() { return {0.f, 0.f}; }
  template <int n>
  __device__ static void fold(State& s, const float* y, const float* g) {
#pragma unroll
    for (int i = 0; i < n; ++i) s.a += LOG ? g[i] : y[i] * g[i];
  }
  __device__ static State merge(State p, State q) { return {p.a + q.a, 0.f}; }
  template <int LO, int HI>  // as Forward's
  __device__ static State merge_lanes(State s) {
#pragma unroll
    for (int o = LO; o < HI; o <<= 1) s.a += __shfl_xor_sync(0xffffffffu, s.a, o);
    return s;
  }
  __device__ static State finish(State s) { return s; }
  __device__ static float out(State f, float y, float g) {
    if (LOG) return g - ex2(y * LOG2E) * f.a;
    return y * (g - f.a);
  }
};

// --- a thread's K packs, STEP apart: loaded (missing ones padded), folded, written out ------
// CS: evict-first loads and stores (.cs), for data read or written for the last time
template <typename T, int V, int K, int STEP, class Op, bool CS = false>
__device__ __forceinline__ void load_packs(const T* a, const T* b, i64 first, i64 packs, bool live,
                                           Pack<T, V> (&pa)[K], Pack<T, V> (&pb)[K]) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const i64 p = first + (i64)k * STEP;
    if (live && p < packs) {
      if (CS) {
        pa[k].load_cs(a + p * V);
        if (Op::IN == 2) pb[k].load_cs(b + p * V);
      } else {
        pa[k].load(a + p * V);
        if (Op::IN == 2) pb[k].load(b + p * V);
      }
    } else {
      pa[k].fill(Op::pad());
      if (Op::IN == 2) pb[k].fill(Op::pad());
    }
  }
}

// Softmax and log-softmax of N packs of 16-bit floats (get(k): pack k; live(k): whether it is
// there, pack 0 first): their max first, two elements an instruction (max.NaN on pairs), then
// their terms with the max known, so no term is rescaled and none branches (5 instructions a term,
// about 9 an element with the max and the merge, where the online fold took about 10). A padded
// pack (-inf) adds nothing.
template <typename T, int V, int N, class Op, class Get, class Live>
__device__ __forceinline__ State fold_pairs(const Get& get, const Live& live) {
  static_assert(sizeof(T) == 2 && V > 1 && Op::KNOWN_MAX, "softmax of 16-bit packs");
  if (!live(0)) return Op::empty();
  Pack<T, V> mx = get(0);
#pragma unroll
  for (int k = 1; k < N; ++k)
    if (live(k)) pack_max(mx, get(k));
  const unsigned* w = reinterpret_cast<const unsigned*>(mx.e);
  Pack<T, 2> top;
  top.raw = w[0];
#pragma unroll
  for (int i = 1; i < V / 2; ++i) top.raw = max2(top.raw, w[i], T{});
  const float m = maxnan(top[0], top[1]), sh = Op::shift(m);
  float sum[2] = {0.f, 0.f}, ones = 0.f;  // two chains of adds
  const float low = Op::lowered(sh);
#pragma unroll
  for (int k = 0; k < N; ++k) {
    if (!live(k)) continue;
    const Pack<T, V> p = get(k);
#pragma unroll
    for (int i = 0; i < V; ++i) Op::known_term(sum[i & 1], ones, p[i], sh, low);
  }
  return Op::state(m, Op::known_sum(sum[0] + sum[1], sh), ones);
}

// --- softmax of x held on chip, its terms stored over it -----------------------------------
// A kernel holding x in shared memory computes each term 2^B exp(x - m) in its fold (m: the max of
// the values folded together) and stores it over x, rounded to T; once the max M and the sum S of
// the row or column are known, an output is that term times one factor, 2^-B exp(m - M) / S, where
// computing it from x took a subtraction, an fma, an ex2 and a multiply. B = 16 keeps bfloat16's
// terms above ex2's flush to zero down to results of 2^-142 (as Forward::out does); float16, whose
// largest value is 65504, stores them unbiased (its smallest value is 2^-24: nothing is lost). A
// stored term carries half a unit in the last place of T, so a 16-bit output stays within one unit
// of the correctly rounded result. Softmax only: log-softmax's output, x - M - log(S), is cheaper.
template <typename T> struct Terms { static constexpr float B = 16.f, UNBIAS = 0x1p-16f; };
template <> struct Terms<half16> { static constexpr float B = 0.f, UNBIAS = 1.f; };

template <typename T>
__device__ __forceinline__ float stored_term(float d) { return ex2(fmaf(d, LOG2E, Terms<T>::B)); }

// The factor for terms stored against max m, from the finished state f (f.a = M, f.b = 2^-16 / S,
// as Forward<false>::finish makes it). TINY: 2^64 times larger, for scaled<true>. A factor below
// 2^-125 (m far below M) would lose precision, or be flushed, while its outputs may still be
// bfloat16 values (a term of up to 2^16): those take TINY (term_tiny; so does a max of -inf, whose
// terms are 0 either way). float16 never needs it: its terms are at most 1, so such outputs lie
// below 2^-125, and float16 rounds anything below 2^-25 to 0.
template <typename T, bool TINY>
__device__ __forceinline__ float term_factor(float m, State f) {
  return ex2(fmaf(m - f.a, LOG2E, (TINY ? 80.f : 16.f) - Terms<T>::B)) * f.b;
}
template <typename T>
__device__ __forceinline__ bool term_tiny(float m, State f) {
  if constexpr (Terms<T>::B == 0.f) return false;
  return term_factor<T, false>(m, f) < 0x1p-125f;
}

// The output pack of a pack of stored terms: element i times factor(i) (TINY: then times 2^-64,
// exact but below float32's normal range), rounded to T two at a time.
template <bool TINY, typename T, int V, class F>
__device__ __forceinline__ Pack<T, V> scaled(const Pack<T, V>& p, const F& factor) {
  static_assert(V % 2 == 0, "16-byte packs");
  Pack<T, V> o;
#pragma unroll
  for (int i = 0; i < V; i += 2) {
    float a = p[i] * factor(i), b = p[i + 1] * factor(i + 1);
    if (TINY) { a *= 0x1p-64f; b *= 0x1p-64f; }
    o.set2(i, a, b);
  }
  return o;
}

// fold_pairs for softmax over N packs in shared memory (at(k): pack k's address), each pack's
// terms stored over it (stored_term); m: their max (a T value, exactly), against which they are
// stored. float32 too: its max takes an element an instruction.
template <typename T, int V, int N, class At, class Live>
__device__ __forceinline__ State fold_store(const At& at, const Live& live, float& m) {
  static_assert(V % 2 == 0, "16-byte packs");
  typedef Forward<false> Op;
  m = -INFINITY;
  if (!live(0)) return Op::empty();
  Pack<T, V> mx, p;
  mx.raw = at(0)->raw;
#pragma unroll
  for (int k = 1; k < N; ++k)
    if (live(k)) {
      p.raw = at(k)->raw;
      pack_max(mx, p);
    }
  if constexpr (sizeof(T) == 2) {
    const unsigned* w = reinterpret_cast<const unsigned*>(mx.e);
    Pack<T, 2> top;
    top.raw = w[0];
#pragma unroll
    for (int i = 1; i < V / 2; ++i) top.raw = max2(top.raw, w[i], T{});
    m = maxnan(top[0], top[1]);
  } else {
    m = mx[0];
#pragma unroll
    for (int i = 1; i < V; ++i) m = maxnan(m, mx[i]);
  }
  const float sh = Op::shift(m);
  float sum[2] = {0.f, 0.f};
#pragma unroll
  for (int k = 0; k < N; ++k) {
    if (!live(k)) continue;
    p.raw = at(k)->raw;
    Pack<T, V> e;
#pragma unroll
    for (int i = 0; i < V; i += 2) {
      const float u = stored_term<T>(p[i] - sh), v = stored_term<T>(p[i + 1] - sh);
      sum[0] += u;
      sum[1] += v;
      e.set2(i, u, v);
    }
    at(k)->raw = e.raw;
  }
  return Op::state(m, (sum[0] + sum[1]) * Terms<T>::UNBIAS, 0.f);
}

template <typename T, int V, int K, class Op>
__device__ __forceinline__ State fold_packs(const Pack<T, V> (&pa)[K], const Pack<T, V> (&pb)[K]) {
  if constexpr (sizeof(T) == 2 && V > 1 && Op::KNOWN_MAX)
    return fold_pairs<T, V, K, Op>([&](int k) { return pa[k]; }, [](int) { return true; });
  State s = Op::empty();
#pragma unroll
  for (int k = 0; k < K; ++k) {
    float va[V], vb[V];
#pragma unroll
    for (int i = 0; i < V; ++i) { va[i] = pa[k][i]; vb[i] = Op::IN == 2 ? pb[k][i] : 0.f; }
    Op::template fold<V>(s, va, vb);
  }
  return s;
}

// Rows first, first + BY, ... below hi of one pack of columns (at `base`, rows M apart) folded into
// the V states of its columns, U packs in flight (the strided two-read kernels).
template <typename T, int V, int BY, class Op, int U = 4, bool CS = false>
__device__ __forceinline__ void fold_rows(State (&s)[V], const T* a, const T* b, i64 base, i64 M, i64 first,
                                          i64 hi) {
  i64 i = first;
  for (; i + (U - 1) * BY < hi; i += U * BY) {
    Pack<T, V> pa[U], pb[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (CS) {
        pa[u].load_cs(a + base + (i + u * BY) * M);
        if (Op::IN == 2) pb[u].load_cs(b + base + (i + u * BY) * M);
      } else {
        pa[u].load(a + base + (i + u * BY) * M);
        if (Op::IN == 2) pb[u].load(b + base + (i + u * BY) * M);
      }
    }
#pragma unroll
    for (int v = 0; v < V; ++v) {
      float va[U], vb[U];
#pragma unroll
      for (int u = 0; u < U; ++u) { va[u] = pa[u][v]; vb[u] = Op::IN == 2 ? pb[u][v] : 0.f; }
      Op::template fold<U>(s[v], va, vb);
    }
  }
  for (; i < hi; i += BY) {
    Pack<T, V> pa, pb;
    pa.load(a + base + i * M);
    if (Op::IN == 2) pb.load(b + base + i * M);
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const float va = pa[v], vb = Op::IN == 2 ? pb[v] : 0.f;
      Op::template fold<1>(s[v], &va, &vb);
    }
  }
}

// The outputs of the packs that exist (a thread whose row is not live writes nothing).
template <typename T, int V, int K, int STEP, class Op, bool CS = false>
__device__ __forceinline__ void store_out(T* y, i64 first, i64 packs, bool live, State f,
                                          const Pack<T, V> (&pa)[K], const Pack<T, V> (&pb)[K]) {
  if (!live) return;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const i64 p = first + (i64)k * STEP;
    if (p >= packs) continue;
    Pack<T, V> o;
#pragma unroll
    for (int i = 0; i < V; ++i) o.set(i, Op::out(f, pa[k][i], Op::IN == 2 ? pb[k][i] : 0.f));
    if (CS)
      o.store_cs(y + p * V);
    else
      o.store(y + p * V);
  }
}

// --- warp and block reductions of states -----------------------------------------------
template <class Op, int WIDTH>  // merge across groups of WIDTH lanes (a power of two <= 32)
__device__ __forceinline__ State warp_merge(State s) {
  return Op::template merge_lanes<1, WIDTH>(s);
}

// Warp 0 gets the merge of all threads' states (the other warps' result is their own warp's).
// scratch: 32 States, slots 0..WARPS-1 written; the caller's next barrier must come before they
// are written again.
template <class Op, int THREADS>
__device__ __forceinline__ State block_to_warp0(State s, State* scratch) {
  s = warp_merge<Op, 32>(s);
  if (THREADS == 32) return s;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) scratch[warp] = s;
  __syncthreads();
  if (warp == 0) s = warp_merge<Op, 32>(lane < THREADS / 32 ? scratch[lane] : Op::empty());
  return s;
}

// Every thread of the block gets the merge of all threads' states. scratch: 32 States.
template <class Op, int THREADS>
__device__ __forceinline__ State block_merge(State s, State* scratch) {
  s = warp_merge<Op, 32>(s);
  if (THREADS == 32) return s;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();  // scratch may still be read from a previous call
  if (lane == 0) scratch[warp] = s;
  __syncthreads();
  s = lane < THREADS / 32 ? scratch[lane] : Op::empty();
  return warp_merge<Op, 32>(s);
}

// --- tasks handing states to each other through global memory (rowRelay) ---------------
__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
// Add 1 to a count other blocks wait on, ordered after this thread's writes before it: a release
// reduction (on sm_90 a lighter fence and a reduction, where __threadfence then atomicAdd gave a
// sequentially consistent fence and an atomic).
__device__ __forceinline__ void count_release(unsigned* p) {
  asm volatile("red.release.gpu.global.add.u32 [%0], 1;" :: "l"(p) : "memory");
}
__device__ __forceinline__ State ld_cg(const State* p) {  // past L1: another SM wrote it
  State s;
  asm volatile("ld.global.cg.v2.f32 {%0, %1}, [%2];" : "=f"(s.a), "=f"(s.b) : "l"(p) : "memory");
  return s;
}

// --- Hopper: clusters (shared-memory addresses and asynchronous copies: common.cuh) ------

// 16 bytes global -> shared at a shared-window address (smem_addr, taken once): from a generic
// pointer, every copy cost its own conversion.
__device__ __forceinline__ void cp_async16_at(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src) : "memory");
}
// The same, writing 16 zero bytes instead when pred is false (src is then not read). L2_256: on a
// miss the L2 fetches the whole 256-byte pair of lines around src from DRAM.
template <bool L2_256 = false>
__device__ __forceinline__ void cp_async16_at(unsigned dst, const void* src, bool pred) {
  if constexpr (L2_256)
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;" :: "r"(dst), "l"(src), "r"(pred ? 16 : 0)
                 : "memory");
  else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(dst), "l"(src), "r"(pred ? 16 : 0)
                 : "memory");
}

// `bytes` (a multiple of 16, at a 16-byte aligned address) from global memory into the L2, with
// nothing to wait for: a bulk prefetch, whatever the line boundaries.
__device__ __forceinline__ void prefetch_l2(const void* p, unsigned bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(p), "r"(bytes) : "memory");
}

// Wait until at most n of this thread's committed groups are in flight (n < 8, uniform).
__device__ __forceinline__ void cp_async_wait_upto(int n) {
  switch (n) {
    case 0: cp_async_wait<0>(); break;
    case 1: cp_async_wait<1>(); break;
    case 2: cp_async_wait<2>(); break;
    case 3: cp_async_wait<3>(); break;
    case 4: cp_async_wait<4>(); break;
    case 5: cp_async_wait<5>(); break;
    case 6: cp_async_wait<6>(); break;
    default: cp_async_wait<7>(); break;
  }
}

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// All threads of all blocks of the cluster: shared-memory writes before it are visible after.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// The two halves of cluster_sync, for work between them: arrive releases this thread's
// shared-memory accesses so far; wait returns once every thread of the cluster has arrived.
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// A State in the shared memory of another block of the cluster (distributed shared memory).
__device__ __forceinline__ State load_remote(const State* local, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_addr(local)), "r"(rank));
  State s;
  asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(s.a), "=f"(s.b) : "r"(remote) : "memory");
  return s;
}
// u[0] = the merge of u[0..N): pairwise, log2(N) steps deep rather than a chain of N - 1 (a
// forward merge is a dependent ex2, multiply and compares).
template <class Op, int N>
__device__ __forceinline__ State merge_tree(State (&u)[N]) {
#pragma unroll
  for (int w = 1; w < N; w <<= 1)
#pragma unroll
    for (int i = 0; i + w < N; i += 2 * w) u[i] = Op::merge(u[i], u[i + w]);
  return u[0];
}

// A cluster's meeting: the warps' partial states (red, [WARPS][COLS]; written before a
// __syncthreads) to one finished state per column in `fin`, through `part` (this block's
// states, read by the cluster's C blocks). Every thread of every block of the cluster calls it;
// it arrives at the cluster barrier that the caller waits on (cluster_wait) before `part` is
// rewritten or the block exits. A forward merge is a dependent ex2 and compares; on a cluster
// of 16, F = THREADS / COLS adjacent threads take a column: each merges every F-th warp partial
// and every F-th block's state, then their lanes merge by shuffles (on the H200, bfloat16
// softmax down [16, 8192, 1024] dim 1 went from 54-55% of a copy to 57-58%, where one thread a
// column merged 7 and then 15 states in a row). On clusters of 2 and 4 the forward lost up to
// 2.7 points that way (within those cases' spread from run to run), and a gradient's merge (one
// add) lost up to 5, so those keep one thread a column (its states merged as a tree).
// PACK > 0: `fin` padded (padded_state). `fin` may overlap `red` (every read of `red` is before
// the cluster barrier that precedes its writes), never `part`, which the cluster reads remotely.
template <class Op, int C, int WARPS, int COLS, int THREADS, int PACK = 0>
__device__ __forceinline__ void meet(const State* red, State* part, State* fin) {
  constexpr int F = Op::IN == 1 && C > 8 ? THREADS / COLS : 1;
  constexpr int FW = F < WARPS ? F : WARPS, FC = F < C ? F : C;  // lanes holding something
  static_assert(F * COLS <= THREADS && 32 % F == 0, "F adjacent lanes a column");
  const int col = threadIdx.x / F, j = threadIdx.x % F;
  if (col < COLS) {  // every thread when F > 1: the shuffles' lanes are all here
    State u[(WARPS + F - 1) / F];
#pragma unroll
    for (int i = 0; i < (WARPS + F - 1) / F; ++i)
      u[i] = j + i * F < WARPS ? red[(j + i * F) * COLS + col] : Op::empty();
    const State mine = warp_merge<Op, FW>(merge_tree<Op, (WARPS + F - 1) / F>(u));
    if (j == 0) part[col] = mine;
  }
  cluster_sync();
  if (col < COLS) {
    State v[(C + F - 1) / F];
#pragma unroll
    for (int i = 0; i < (C + F - 1) / F; ++i)
      v[i] = j + i * F < C ? load_remote(part + col, j + i * F) : Op::empty();
    const State all = warp_merge<Op, FC>(merge_tree<Op, (C + F - 1) / F>(v));
    if (j == 0) fin[padded_state(col, PACK)] = Op::finish(all);
  }
  cluster_arrive();  // done reading the others' `part`
  __syncthreads();   // `fin` for every thread
}
