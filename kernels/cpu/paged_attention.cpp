// Decode attention over the paged KV cache for CPUs: one query token per sequence, read straight from the
// cache blocks named by the block table (no gathered copy), float32 accumulation, grouped-query heads sharing
// each key/value row they load. Same math as kernels/reference/paged_attention.py's decode path. bfloat16 caches on
// AVX512-BF16 CPUs take a faster path of their own (decode_attention_bf16, below); bfloat16 and float16 caches on
// other AVX2 CPUs another (decode_attention_avx2).
//
// Prefill chunks with bfloat16 caches on AVX512-BF16 CPUs (no window, no soft-cap) take prefill_attention_bf16: each
// chunk's queries against its whole cached context, causal, from the cache blocks in place (kernels/cpu/__init__.py
// sends them here; other chunks keep the reference path).
//
// int8 caches (each row's codes, then its float32 scale: kernels/reference/kv_int8.py) take decode_attention_int8 and
// the prefill kernel (rows dequantized to bf16 as they are laid out) on AVX512-BF16 CPUs; the store quantizes them.
//
// Also the KV-cache store (this step's keys and values scattered into their slots): one call per layer instead of
// the reference's two index_copy_ with their views and casts, whose dispatch cost adds up at every layer and step.
//
// Sliding windows and soft-capping (Mistral, Gemma 2) are per call: a row of context length len with window W > 0
// reads only the keys len - W .. len - 1 (transformers' convention: the query at p sees p - W < k <= p), so blocks
// wholly before the window are never touched (the block manager may have handed them to another sequence); with
// softcap c > 0 every score s becomes c * tanh(s / c) before the softmax.
//
// Built at run time by kernels/cpu/__init__.py (torch.utils.cpp_extension, -O3 -march=native); registered as
// torch.ops.warden_cpu.decode_attention, torch.ops.warden_cpu.prefill_attention and torch.ops.warden_cpu.store_kvcache;
// and the compiled decoder's per-layer op, torch.ops.warden_cpu.attend_step, with the step state it reads
// (set_attention_step, clear_attention_step): at the end of this file.

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "widen_bf16.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace {

using FloatVec = at::vec::Vectorized<float>;

// ATen's vector types are AVX-512 / AVX2 code where CPU_CAPABILITY_* is defined (the loader passes the flag for
// this machine), a portable scalar fallback otherwise.
template <typename scalar_t>
inline void to_float(const scalar_t* src, float* dst, int64_t n) {
  if constexpr (std::is_same_v<scalar_t, float>) {
    std::memcpy(dst, src, n * sizeof(float));
  } else if constexpr (!at::vec::is_reduced_floating_point_v<scalar_t>) {
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
  } else {
    using Vec = at::vec::Vectorized<scalar_t>;
    int64_t i = 0;
    for (; i + Vec::size() <= n; i += Vec::size()) {
      auto [low, high] = at::vec::convert_to_float(Vec::loadu(src + i));
      low.store(dst + i);
      high.store(dst + i + Vec::size() / 2);
    }
    for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
  }
}

// s[i] = exp(s[i] - m), returning the sum.
inline float exp_shifted(float* s, int64_t n, float m) {
  const FloatVec shift(m);
  FloatVec total(0.f);
  int64_t i = 0;
  for (; i + FloatVec::size() <= n; i += FloatVec::size()) {
    const FloatVec e = (FloatVec::loadu(s + i) - shift).exp_u20();
    e.store(s + i);
    total = total + e;
  }
  float lanes[FloatVec::size()];
  total.store(lanes);
  float sum = 0.f;
  for (int64_t j = 0; j < FloatVec::size(); ++j) sum += lanes[j];
  for (; i < n; ++i) {
    s[i] = std::exp(s[i] - m);
    sum += s[i];
  }
  return sum;
}

// s[0..n) -> softmax(s), in place (all zeros stay zeros for an empty context).
inline void softmax(float* s, int64_t n) {
  float m = -std::numeric_limits<float>::infinity();
  for (int64_t t = 0; t < n; ++t) m = std::max(m, s[t]);
  const float total = exp_shifted(s, n, m);
  const float inv = n > 0 ? 1.f / total : 0.f;
  for (int64_t t = 0; t < n; ++t) s[t] *= inv;
}

// The first key a row of context length len sees: len - window with a window, else 0.
inline int64_t first_key(int64_t len, int64_t window) { return window > 0 ? std::max<int64_t>(0, len - window) : 0; }

// s[0..n) -> c * tanh(s / c) (Gemma 2's attention-logit soft-capping); nothing when c <= 0.
inline void soft_cap(float* s, int64_t n, float cap) {
  if (cap <= 0.f) return;
  const float inv = 1.f / cap;
  for (int64_t i = 0; i < n; ++i) s[i] = cap * std::tanh(s[i] * inv);
}

inline float dot(const float* a, const float* b, int64_t n) {
  FloatVec acc(0.f);
  int64_t i = 0;
  for (; i + FloatVec::size() <= n; i += FloatVec::size()) {
    acc = at::vec::fmadd(FloatVec::loadu(a + i), FloatVec::loadu(b + i), acc);
  }
  float s = at::vec::vec_reduce_all<float>([](FloatVec& x, FloatVec& y) { return x + y; }, acc);
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

// Token t of a sequence -> its row in the paged cache, through the sequence's block-table row. block_size is a
// power of two (EngineConfig checks): shifts and masks instead of two divisions per row.
class SlotMap {
 public:
  explicit SlotMap(int64_t block_size) : mask_(block_size - 1) {
    TORCH_CHECK(block_size > 0 && (block_size & (block_size - 1)) == 0, "block_size must be a power of two");
    shift_ = __builtin_ctzll(static_cast<unsigned long long>(block_size));
  }
  int64_t operator()(const int32_t* table, int64_t t) const {
    return (static_cast<int64_t>(table[t >> shift_]) << shift_) | (t & mask_);
  }

 private:
  int64_t shift_ = 0, mask_;
};

// One decode call's inputs as raw pointers and sizes, with what every kernel does per (sequence, kv head) task the
// same way: its query heads into float32, scaled; its cache rows; its float32 outputs back in the output dtype.
template <typename scalar_t>
struct DecodeBatch {
  DecodeBatch(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
              const at::Tensor& block_tables, const at::Tensor& seq_lens, double scale, int64_t window,
              double softcap, at::Tensor& out)
      : num_seqs(q.size(0)), heads(q.size(1)), head_dim(q.size(2)), kv_heads(k_cache.size(2)),
        group(q.size(1) / k_cache.size(2)), table_stride(block_tables.stride(0)), q_ptr(q.data_ptr<scalar_t>()),
        k_ptr(k_cache.data_ptr<scalar_t>()), v_ptr(v_cache.data_ptr<scalar_t>()),
        tables(block_tables.data_ptr<int32_t>()), lens(seq_lens.data_ptr<int32_t>()),
        out_ptr(out.data_ptr<scalar_t>()), scale(static_cast<float>(scale)), window(window),
        softcap(static_cast<float>(softcap)), row_slot(k_cache.size(1)) {}

  const int32_t* table(int64_t b) const { return tables + b * table_stride; }
  const scalar_t* key_row(const int32_t* table, int64_t t, int64_t h) const {
    return k_ptr + (row_slot(table, t) * kv_heads + h) * head_dim;
  }
  const scalar_t* value_row(const int32_t* table, int64_t t, int64_t h) const {
    return v_ptr + (row_slot(table, t) * kv_heads + h) * head_dim;
  }
  // qf[g * head_dim + d] = scale * q of the group's query head g.
  void load_queries(int64_t b, int64_t h, float* qf) const {
    for (int64_t g = 0; g < group; ++g) {
      to_float(q_ptr + (b * heads + h * group + g) * head_dim, qf + g * head_dim, head_dim);
      for (int64_t d = 0; d < head_dim; ++d) qf[g * head_dim + d] *= scale;
    }
  }
  void store_outputs(int64_t b, int64_t h, const float* acc) const {
    for (int64_t g = 0; g < group; ++g) {
      scalar_t* o = out_ptr + (b * heads + h * group + g) * head_dim;
      for (int64_t d = 0; d < head_dim; ++d) o[d] = static_cast<scalar_t>(acc[g * head_dim + d]);
    }
  }

  const int64_t num_seqs, heads, head_dim, kv_heads, group, table_stride;
  const scalar_t *q_ptr, *k_ptr, *v_ptr;
  const int32_t *tables, *lens;
  scalar_t* out_ptr;
  const float scale;
  const int64_t window;
  const float softcap;
  const SlotMap row_slot;
};

template <typename scalar_t>
void decode_attention_kernel(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                             const at::Tensor& block_tables, const at::Tensor& seq_lens, double scale,
                             int64_t window, double softcap, at::Tensor& out) {
  const DecodeBatch<scalar_t> in(q, k_cache, v_cache, block_tables, seq_lens, scale, window, softcap, out);
  const int64_t group = in.group, head_dim = in.head_dim;

  // One task per (sequence, kv head): its query heads share every key/value row loaded.
  at::parallel_for(0, in.num_seqs * in.kv_heads, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> qf(group * head_dim), row(head_dim), acc(group * head_dim), scores;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / in.kv_heads, h = task % in.kv_heads;
      const int64_t len = in.lens[b], first = first_key(len, in.window), n = len - first;
      const int32_t* table = in.table(b);
      in.load_queries(b, h, qf.data());
      scores.assign(group * n, 0.f);
      for (int64_t t = first; t < len; ++t) {
        to_float(in.key_row(table, t, h), row.data(), head_dim);
        for (int64_t g = 0; g < group; ++g)
          scores[g * n + t - first] = dot(qf.data() + g * head_dim, row.data(), head_dim);
      }
      soft_cap(scores.data(), group * n, in.softcap);
      for (int64_t g = 0; g < group; ++g) softmax(scores.data() + g * n, n);
      std::fill(acc.begin(), acc.end(), 0.f);
      for (int64_t t = first; t < len; ++t) {
        to_float(in.value_row(table, t, h), row.data(), head_dim);
        for (int64_t g = 0; g < group; ++g) {
          const float w = scores[g * n + t - first];
          float* a = acc.data() + g * head_dim;
#pragma omp simd
          for (int64_t d = 0; d < head_dim; ++d) a[d] += w * row[d];
        }
      }
      in.store_outputs(b, h, acc.data());
    }
  });
}

#if defined(__AVX512F__) && defined(__AVX512BF16__)
#define WARDEN_BF16_ATTENTION 1

// bfloat16 caches on AVX512-BF16 CPUs (the compiled serving path): the generic kernel above spends most of its time
// on one horizontal reduction per (token, head) and on converting every key to float32. Here a key row is dotted
// with the query straight from bfloat16 (vdpbf16ps: products exact, float32 sums), 16 tokens' partial sums held in
// registers and reduced together by one shuffle tree. The probabilities exp(s - max) are rounded to bf16 and the
// weighted sum of values runs on vdpbf16ps too, two tokens per instruction (their rows interleaved word by word), for
// all heads of the group at once, whose outputs stay in registers (blocks of 4 heads x 64 dims) and are normalised
// by the float32 sums at the end. Same math as the generic kernel up to float32 summation order and the bf16
// rounding of the probabilities (relative 2^-9 each, below the bf16 output's own rounding).
constexpr int64_t kTile = 16;

// Sixteen vectors of partial sums -> one vector whose lane i is the sum of vector i.
inline __m512 sum_sixteen(const __m512 (&v)[kTile]) {
  __m512 pairs[8], quads[4];
  for (int i = 0; i < 8; ++i) {
    // per 128-bit lane: [a0+a2, b0+b2, a1+a3, b1+b3]
    pairs[i] = _mm512_add_ps(_mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]), _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]));
  }
  for (int i = 0; i < 4; ++i) {
    // per 128-bit lane: the four vectors' sums within that lane
    quads[i] = _mm512_add_ps(_mm512_shuffle_ps(pairs[2 * i], pairs[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_ps(pairs[2 * i], pairs[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  }
  // across the four 128-bit lanes
  const __m512 a = _mm512_add_ps(_mm512_shuffle_f32x4(quads[0], quads[1], 0x44),
                                 _mm512_shuffle_f32x4(quads[0], quads[1], 0xEE));
  const __m512 b = _mm512_add_ps(_mm512_shuffle_f32x4(quads[2], quads[3], 0x44),
                                 _mm512_shuffle_f32x4(quads[2], quads[3], 0xEE));
  return _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0x88), _mm512_shuffle_f32x4(a, b, 0xDD));
}

// A decode task reads the slices of its kv heads of each cache row (the rows interleave every head's) from blocks
// scattered over the pool: the hardware prefetchers follow that poorly, and at a decode batch's contexts the cache
// does not fit in L2, so the loads wait on memory. The kernel requests the slices of heads [h, h + count) of rows
// [from, to) ahead of use.
template <int kHint>
inline void prefetch_rows(const uint16_t* cache, const int32_t* table, int64_t from, int64_t to, int64_t h,
                          int64_t count, int64_t kv_heads, int64_t head_dim, const SlotMap& row_slot) {
  for (int64_t t = from; t < to; ++t) {
    const char* row = reinterpret_cast<const char*>(cache + (row_slot(table, t) * kv_heads + h) * head_dim);
    for (int64_t byte = 0; byte < count * head_dim * 2; byte += 64)
      _mm_prefetch(row + byte, static_cast<_mm_hint>(kHint));
  }
}

// The largest of s[0..n) (n >= 1).
inline float max_of(const float* s, int64_t n) {
  __m512 m = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) m = _mm512_max_ps(m, _mm512_loadu_ps(s + i));
  if (i < n) {
    const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1);
    m = _mm512_mask_max_ps(m, tail, m, _mm512_maskz_loadu_ps(tail, s + i));
  }
  return _mm512_reduce_max_ps(m);
}

// Lanes [0, n) of 16 set, n clamped to 0..16.
inline __mmask16 first_lanes(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xFFFF) : n <= 0 ? 0 : static_cast<__mmask16>((1u << n) - 1);
}

// 16 floats rounded to bf16 as c10 rounds (to nearest even, NaN as 0x7FC0), what vcvtneps2bf16 gives for finite
// values, from AVX-512F integer operations (SIMDe, under which tests/kernels/test_avx512_emulated.py builds these
// paths, lacks the bf16 conversions).
inline __m256i round_to_bf16(__m512 v) {
  const __m512i bits = _mm512_castps_si512(v);
  const __m512i bias =
      _mm512_add_epi32(_mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1)), _mm512_set1_epi32(0x7FFF));
  const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(bits, bias), 16);
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return _mm512_cvtepi32_epi16(_mm512_mask_mov_epi32(rounded, nan, _mm512_set1_epi32(0x7FC0)));
}

// p[0..to) = bf16 of s[0..n) and zeros after (to a multiple of 32; masked loads never touch s past n).
inline void probabilities_to_bf16(const float* s, int64_t n, int64_t to, uint16_t* p) {
  for (int64_t i = 0; i < to; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + i),
                        round_to_bf16(_mm512_maskz_loadu_ps(first_lanes(n - i), s + i)));
}

// One query head's scores against a tile of 16 key rows (head_dim = 32 * C; rows past the context point at a row of
// zeros): the partial sums of each row stay in registers and are reduced together.
template <int C>
inline __m512 tile_scores(const uint16_t* query, const uint16_t* const (&keys)[kTile]) {
  __m512bh qv[C];
  for (int c = 0; c < C; ++c) qv[c] = (__m512bh)_mm512_loadu_si512(query + 32 * c);
  __m512 partial[kTile];
#pragma GCC unroll 16
  for (int i = 0; i < kTile; ++i) {
    partial[i] = _mm512_dpbf16_ps(_mm512_setzero_ps(), qv[0], (__m512bh)_mm512_loadu_si512(keys[i]));
    for (int c = 1; c < C; ++c)
      partial[i] = _mm512_dpbf16_ps(partial[i], qv[c], (__m512bh)_mm512_loadu_si512(keys[i] + 32 * c));
  }
  return sum_sixteen(partial);
}

// The same for any head_dim that is a multiple of 32 (chunks of 32 dims at run time).
inline __m512 tile_scores_any(const uint16_t* query, const uint16_t* const (&keys)[kTile], int64_t chunks) {
  __m512 partial[kTile];
  for (int i = 0; i < kTile; ++i) {
    partial[i] = _mm512_setzero_ps();
    for (int64_t c = 0; c < chunks; ++c)
      partial[i] = _mm512_dpbf16_ps(partial[i], (__m512bh)_mm512_loadu_si512(query + 32 * c),
                                    (__m512bh)_mm512_loadu_si512(keys[i] + 32 * c));
  }
  return sum_sixteen(partial);
}

// Four query heads of one kv head against a tile of 16 key rows at once (head_dim 64): where tile_scores reduces 16
// partial sums per (token, head), here each 128-bit lane holds one head, so a key row's 8-dim slices are broadcast to
// the four lanes and a token's sums for the four heads need only the two in-lane levels of the shuffle tree (the
// lanes become the heads' output vectors by a 4x4 transpose of 128-bit blocks). Fewer shuffles and adds per score,
// and each key row is loaded once for the heads of its group instead of once per head. `packed` holds vector c =
// dims 8c .. 8c + 7 of head k in lane k (heads past the group zero), from pack_quarters.
constexpr int64_t kQuarterDim = 64;

inline void pack_quarters(const uint16_t* const (&queries)[4], uint16_t* packed) {
  for (int c = 0; c < 8; ++c)
    for (int k = 0; k < 4; ++k) {
      uint16_t* lane = packed + 32 * c + 8 * k;
      if (queries[k] != nullptr) {
        std::memcpy(lane, queries[k] + 8 * c, 8 * sizeof(uint16_t));
      } else {
        std::fill(lane, lane + 8, uint16_t(0));
      }
    }
}

inline void tile_scores_quarters(const uint16_t* packed, const uint16_t* const (&keys)[kTile], __m512 (&out)[4]) {
  __m512bh qv[8];
  for (int c = 0; c < 8; ++c) qv[c] = (__m512bh)_mm512_loadu_si512(packed + 32 * c);
  __m512 partial[kTile];
#pragma GCC unroll 16
  for (int i = 0; i < kTile; ++i) {
    const auto* key = reinterpret_cast<const __m128i*>(keys[i]);
    partial[i] = _mm512_dpbf16_ps(_mm512_setzero_ps(), qv[0], (__m512bh)_mm512_broadcast_i32x4(_mm_loadu_si128(key)));
    for (int c = 1; c < 8; ++c)
      partial[i] = _mm512_dpbf16_ps(partial[i], qv[c], (__m512bh)_mm512_broadcast_i32x4(_mm_loadu_si128(key + c)));
  }
  // sum_sixteen's two in-lane levels: quads[m] lane k element l = the score of token 4m + l for head k
  __m512 pairs[8], quads[4];
  for (int i = 0; i < 8; ++i)
    pairs[i] = _mm512_add_ps(_mm512_unpacklo_ps(partial[2 * i], partial[2 * i + 1]),
                             _mm512_unpackhi_ps(partial[2 * i], partial[2 * i + 1]));
  for (int i = 0; i < 4; ++i)
    quads[i] = _mm512_add_ps(_mm512_shuffle_ps(pairs[2 * i], pairs[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_ps(pairs[2 * i], pairs[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  const __m512 low0 = _mm512_shuffle_f32x4(quads[0], quads[1], 0x44), low1 = _mm512_shuffle_f32x4(quads[2], quads[3], 0x44);
  const __m512 high0 = _mm512_shuffle_f32x4(quads[0], quads[1], 0xEE), high1 = _mm512_shuffle_f32x4(quads[2], quads[3], 0xEE);
  out[0] = _mm512_shuffle_f32x4(low0, low1, 0x88);
  out[1] = _mm512_shuffle_f32x4(low0, low1, 0xDD);
  out[2] = _mm512_shuffle_f32x4(high0, high1, 0x88);
  out[3] = _mm512_shuffle_f32x4(high0, high1, 0xDD);
}

// decode_attention_bf16 reads a task's context in spans of kSpan tokens (a span's key and value rows, 3 kv heads x 64
// dims: 96 KB each at 256, stay in the L2 between its score and value passes). The score pass streams a span's key
// rows and (prefetched) value rows from memory while the value pass and the softmax read only what is already in L2:
// the memory bus would idle through a third of the span. The next span's key rows (the next task's first span's
// after a task's last) are therefore requested into L2 during this span's value pass, a row per pair of tokens
// weighed, so its score pass finds them there and the two passes' memory traffic overlaps.
constexpr int64_t kSpan = 256;

struct KeyLookahead {
  const uint16_t* cache = nullptr;
  const int32_t* table = nullptr;
  int64_t next = 0, end = 0, h0 = 0, count = 0, kv_heads = 0, head_dim = 0;
  const SlotMap* row_slot = nullptr;
  void step() {
    if (next >= end) return;
    prefetch_rows<_MM_HINT_T1>(cache, table, next, next + 1, h0, count, kv_heads, head_dim, *row_slot);
    ++next;
  }
};

// What weigh_value_pairs reads for one decode task: its kv head's value rows through the block table, each query
// head's probabilities as bf16 pairs (token first + 2j and the next: 32-bit word j), and where its outputs go.
struct ValueRows {
  const uint16_t* cache;
  const int32_t* table;
  int64_t first, len, h, kv_heads, head_dim;
  const SlotMap& row_slot;
  const uint16_t* zeros;  // a row of zeros standing for the token after an odd context's last
  KeyLookahead* lookahead;  // the next span's key rows, requested as the pairs are weighed
  const uint16_t* row(int64_t t) const {
    return t < len ? cache + (row_slot(table, t) * kv_heads + h) * head_dim : zeros;
  }
};

// acc[g][d0 .. d0 + 32 * CH) = alpha[g] * acc[g][..] + sum over the rows of p[g][t] * value row t (rows in.first ..
// in.len - 1: one span of the context, whose probabilities are relative to a running maximum that alpha[g] carries
// the earlier spans' sums to), for H query heads, two tokens
// per vdpbf16ps: the two rows' 32-dim chunks interleaved word by word (unpacklo/hi per 128-bit lane: lo holds dims
// 8L + 0..3 of lane L, hi dims 8L + 4..7) meet the pair of probabilities broadcast; the dims are put back in order
// at the end.
template <int H, int CH>
inline void weigh_value_pairs(const ValueRows& in, int64_t d0, const uint32_t* const* p, const float* alpha,
                              float* const* acc) {
  __m512 a[H][2 * CH];
  for (int g = 0; g < H; ++g)
    for (int c = 0; c < 2 * CH; ++c) a[g][c] = _mm512_setzero_ps();
  int64_t j = 0;
  for (int64_t t = in.first; t < in.len; t += 2, ++j) {
    // The rows are scattered over the cache's blocks, which the hardware prefetchers do not follow: requested a
    // tile ahead.
    if (t + kTile < in.len) {
      for (int64_t ahead = t + kTile; ahead < std::min(t + kTile + 2, in.len); ++ahead)
        for (int c = 0; c < CH; ++c)
          _mm_prefetch(reinterpret_cast<const char*>(in.row(ahead) + d0 + 32 * c), _MM_HINT_T0);
    }
    in.lookahead->step();
    const uint16_t* even = in.row(t) + d0;
    const uint16_t* odd = in.row(t + 1) + d0;
    __m512bh lo[CH], hi[CH];
    for (int c = 0; c < CH; ++c) {
      const __m512i x = _mm512_loadu_si512(even + 32 * c), y = _mm512_loadu_si512(odd + 32 * c);
      lo[c] = (__m512bh)_mm512_unpacklo_epi16(x, y);
      hi[c] = (__m512bh)_mm512_unpackhi_epi16(x, y);
    }
    for (int g = 0; g < H; ++g) {
      const __m512bh w = (__m512bh)_mm512_set1_epi32(static_cast<int>(p[g][j]));
      for (int c = 0; c < CH; ++c) {
        a[g][2 * c] = _mm512_dpbf16_ps(a[g][2 * c], w, lo[c]);
        a[g][2 * c + 1] = _mm512_dpbf16_ps(a[g][2 * c + 1], w, hi[c]);
      }
    }
  }
  const __m512i first_half = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i second_half = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  for (int g = 0; g < H; ++g) {
    const __m512 rescale = _mm512_set1_ps(alpha[g]);
    for (int c = 0; c < CH; ++c) {
      const __m512 dims0 = _mm512_permutex2var_ps(a[g][2 * c], first_half, a[g][2 * c + 1]);
      const __m512 dims16 = _mm512_permutex2var_ps(a[g][2 * c], second_half, a[g][2 * c + 1]);
      float* o = acc[g] + d0 + 32 * c;
      _mm512_storeu_ps(o, _mm512_fmadd_ps(_mm512_loadu_ps(o), rescale, dims0));
      _mm512_storeu_ps(o + 16, _mm512_fmadd_ps(_mm512_loadu_ps(o + 16), rescale, dims16));
    }
  }
}

template <int H>
inline void weigh_value_pairs_dims(const ValueRows& in, int64_t d0, int64_t chunks, const uint32_t* const* p,
                                   const float* alpha, float* const* acc) {
  if (chunks == 2) {
    weigh_value_pairs<H, 2>(in, d0, p, alpha, acc);
  } else {
    weigh_value_pairs<H, 1>(in, d0, p, alpha, acc);
  }
}

// `tokens` > 1 (short_query_attention_bf16): each sequence's query heads are those of up to `tokens` consecutive
// query tokens, laid out per kv head token after token ([kv head][token][group head]), so a task's pass over its cache
// rows serves all of them; token i of sequence b (query_lens[b] tokens, the last seeing all seq_lens[b] keys) sees
// the keys before its own position only, and the heads of tokens past query_lens[b] (padding) see every key.
void decode_attention_bf16(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                           const at::Tensor& block_tables, const at::Tensor& seq_lens, double scale, int64_t window,
                           double softcap, at::Tensor& out, int64_t tokens = 1, const int32_t* query_lens = nullptr) {
  const int64_t num_seqs = q.size(0), heads = q.size(1), head_dim = q.size(2);
  const int64_t block_size = k_cache.size(1), kv_heads = k_cache.size(2);
  const int64_t group = heads / kv_heads, chunks = head_dim / 32;  // 32 bf16 = one vdpbf16ps operand
  const int64_t table_stride = block_tables.stride(0);
  const auto* q_ptr = reinterpret_cast<const uint16_t*>(q.data_ptr<at::BFloat16>());
  const auto* k_ptr = reinterpret_cast<const uint16_t*>(k_cache.data_ptr<at::BFloat16>());
  const auto* v_ptr = reinterpret_cast<const uint16_t*>(v_cache.data_ptr<at::BFloat16>());
  const int32_t* tables = block_tables.data_ptr<int32_t>();
  const int32_t* lens = seq_lens.data_ptr<int32_t>();
  at::BFloat16* out_ptr = out.data_ptr<at::BFloat16>();
  const __m512 scale_v = _mm512_set1_ps(static_cast<float>(scale));
  const SlotMap row_slot(block_size);

  // A task takes all kv heads of a sequence while there are enough sequences for the threads: a tile's key and value
  // rows are then read whole (all heads, one stretch of a block) instead of a slice per task; with fewer sequences
  // than threads, one kv head of one sequence.
  const int64_t heads_per_task = num_seqs >= at::get_num_threads() ? kv_heads : 1;
  const int64_t tasks_per_seq = kv_heads / heads_per_task;
  // head_dim 64 with groups of 3 or more query heads: four heads per vector (tile_scores_quarters); one or two heads
  // a kv head would leave most lanes idle, so those keep a vector per head.
  const bool quarters = head_dim == kQuarterDim && group >= 3;
  const int64_t quads = (group + 3) / 4;
  at::parallel_for(0, num_seqs * tasks_per_seq, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> scores, acc, running_max, running_sum, alpha(heads_per_task * group);
    std::vector<uint16_t> probs, zeros(head_dim, 0);
    std::vector<uint16_t> packed(heads_per_task * quads * 8 * 32);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / tasks_per_seq, h0 = task % tasks_per_seq * heads_per_task;
      const int64_t len = lens[b], first = first_key(len, window), context = len - first;
      const int64_t vectors = heads_per_task * group;  // query heads h0 * group .. : one after another
      const int32_t* table = tables + b * table_stride;
      at::BFloat16* rows = out_ptr + (b * heads + h0 * group) * head_dim;
      if (context <= 0) {  // a padding row (graph-style launches): zeros
        std::fill(rows, rows + vectors * head_dim, at::BFloat16(0.f));
        continue;
      }
      scores.resize(vectors * kSpan);
      probs.resize(vectors * kSpan);
      acc.assign(vectors * head_dim, 0.f);
      running_max.assign(vectors, -std::numeric_limits<float>::infinity());
      running_sum.assign(vectors, 0.f);
      if (quarters) {
        for (int64_t hh = 0; hh < heads_per_task; ++hh)
          for (int64_t g0 = 0; g0 < group; g0 += 4) {
            const uint16_t* queries[4];
            for (int64_t k = 0; k < 4; ++k)
              queries[k] = g0 + k < group ? q_ptr + (b * heads + (h0 + hh) * group + g0 + k) * head_dim : nullptr;
            pack_quarters(queries, packed.data() + (hh * quads + g0 / 4) * 8 * 32);
          }
      }
      // The context in spans of kSpan tokens: a span's scores, softmax and weighted values before the next span's
      // scores, so its value rows (requested into L2 as its keys are dotted) are still there for the value pass. One
      // pass over the whole context would have the score pass stream every key and value row through the L2 first:
      // at the agentic trace's 3-4K keys a sequence's rows are 2.4-3 MB, past the L2, and the value pass then reads
      // every row again from the L3 once per kv head. Each span's probabilities are relative to the running maximum
      // of its head's scores; the accumulated sums are carried over by exp(old max - new max) (one span: the same
      // operations as one pass).
      for (int64_t s0 = first; s0 < len; s0 += kSpan) {
        const int64_t s1 = std::min(len, s0 + kSpan), span = s1 - s0;
        const int64_t padded = (span + 31) / 32 * 32;  // whole tiles of scores, whole bf16 vectors of pairs
        // Scores, a tile of 16 tokens per head at a time (the tile's key rows stay in L1 across the heads).
        for (int64_t t0 = s0; t0 < s1; t0 += kTile) {
          const int64_t n = std::min(kTile, s1 - t0);
          const uint16_t* row_of[kTile];  // key row i of the tile, its first head
          for (int64_t i = 0; i < n; ++i) row_of[i] = k_ptr + (row_slot(table, t0 + i) * kv_heads + h0) * head_dim;
          // The next tile's keys into L1 while this one is dotted, and a tile's keys into L2 four tiles ahead: one
          // tile's work is shorter than a DRAM round trip for its scattered rows, so the L1 request alone arrives
          // late (cold caches past the L3: ~1.35x the bandwidth, bench.cpu_attention's long decode cases); this
          // tile's values into L2 for the weighted sum.
          prefetch_rows<_MM_HINT_T0>(k_ptr, table, t0 + kTile, std::min(t0 + 2 * kTile, len), h0, heads_per_task,
                                     kv_heads, head_dim, row_slot);
          prefetch_rows<_MM_HINT_T1>(k_ptr, table, t0 + 4 * kTile, std::min(t0 + 5 * kTile, len), h0,
                                     heads_per_task, kv_heads, head_dim, row_slot);
          prefetch_rows<_MM_HINT_T1>(v_ptr, table, t0, t0 + n, h0, heads_per_task, kv_heads, head_dim, row_slot);
          for (int64_t hh = 0; hh < heads_per_task; ++hh) {
            const uint16_t* keys[kTile];
            for (int64_t i = 0; i < kTile; ++i) keys[i] = i < n ? row_of[i] + hh * head_dim : zeros.data();
            if (quarters) {
              for (int64_t g0 = 0; g0 < group; g0 += 4) {
                __m512 s[4];
                tile_scores_quarters(packed.data() + (hh * quads + g0 / 4) * 8 * 32, keys, s);
                for (int64_t k = 0; k < std::min<int64_t>(4, group - g0); ++k)
                  _mm512_storeu_ps(scores.data() + (hh * group + g0 + k) * kSpan + t0 - s0,
                                   _mm512_mul_ps(s[k], scale_v));
              }
              continue;
            }
            for (int64_t g = 0; g < group; ++g) {
              const uint16_t* qg = q_ptr + (b * heads + (h0 + hh) * group + g) * head_dim;
              __m512 s;
              switch (chunks) {
                case 1: s = tile_scores<1>(qg, keys); break;
                case 2: s = tile_scores<2>(qg, keys); break;
                case 4: s = tile_scores<4>(qg, keys); break;
                default: s = tile_scores_any(qg, keys, chunks);
              }
              _mm512_storeu_ps(scores.data() + (hh * group + g) * kSpan + t0 - s0, _mm512_mul_ps(s, scale_v));
            }
          }
        }
        // exp(s - max) per head, rounded to bf16 for the weighted sum; the float32 sums normalise its outputs. A head
        // of an earlier query token than the last weighs only the keys it sees: its probabilities past them are
        // zeros, so it gets exactly what a pass over its own context alone gives.
        const int64_t asked = tokens > 1 ? query_lens[b] : 1;
        for (int64_t v = 0; v < vectors; ++v) {
          float* s = scores.data() + v * kSpan;
          const int64_t token = v % group / (group / tokens);
          const int64_t seen = (token < asked ? context - (asked - 1 - token) : context) - (s0 - first);
          const int64_t here = std::clamp<int64_t>(seen, 0, span);
          if (here == 0) {  // every key of this span is past this head's own context
            alpha[v] = 1.f;
            std::fill(probs.data() + v * kSpan, probs.data() + v * kSpan + padded, uint16_t(0));
            continue;
          }
          soft_cap(s, here, static_cast<float>(softcap));
          const float top = std::max(running_max[v], max_of(s, here));
          alpha[v] = std::exp(running_max[v] - top);  // 0 at the first span (-inf)
          running_max[v] = top;
          running_sum[v] = running_sum[v] * alpha[v] + exp_shifted(s, here, top);
          probabilities_to_bf16(s, here, padded, probs.data() + v * kSpan);
        }
        KeyLookahead lookahead;
        if (s1 < len) {  // this task's next span
          lookahead = {k_ptr, table, s1, std::min(len, s1 + kSpan), h0, heads_per_task, kv_heads, head_dim,
                       &row_slot};
        } else if (task + 1 < end) {  // the next task's first span
          const int64_t next_b = (task + 1) / tasks_per_seq, next_len = lens[next_b];
          const int64_t next_first = first_key(next_len, window);
          lookahead = {k_ptr, tables + next_b * table_stride, next_first,
                       std::min<int64_t>(next_len, next_first + kSpan), (task + 1) % tasks_per_seq * heads_per_task,
                       heads_per_task, kv_heads, head_dim, &row_slot};
        }
        for (int64_t hh = 0; hh < heads_per_task; ++hh) {
          const ValueRows in{v_ptr, table, s0, s1, h0 + hh, kv_heads, head_dim, row_slot, zeros.data(), &lookahead};
          // Values: up to 4 heads x 64 dims in registers per pass over the span.
          for (int64_t g0 = 0; g0 < group; g0 += 4) {
            const int64_t here = std::min<int64_t>(4, group - g0);
            const uint32_t* p[4];
            float* o[4];
            for (int64_t g = 0; g < here; ++g) {
              const int64_t v = hh * group + g0 + g;
              p[g] = reinterpret_cast<const uint32_t*>(probs.data() + v * kSpan);
              o[g] = acc.data() + v * head_dim;
            }
            const float* rescale = alpha.data() + hh * group + g0;
            for (int64_t d0 = 0; d0 < head_dim; d0 += 64) {
              const int64_t dims = std::min<int64_t>(2, (head_dim - d0) / 32);
              switch (here) {
                case 4: weigh_value_pairs_dims<4>(in, d0, dims, p, rescale, o); break;
                case 3: weigh_value_pairs_dims<3>(in, d0, dims, p, rescale, o); break;
                case 2: weigh_value_pairs_dims<2>(in, d0, dims, p, rescale, o); break;
                default: weigh_value_pairs_dims<1>(in, d0, dims, p, rescale, o);
              }
            }
          }
        }
      }
      for (int64_t v = 0; v < vectors; ++v) {
        const __m512 inv = _mm512_set1_ps(1.f / running_sum[v]);
        for (int64_t d = 0; d < head_dim; d += 16)
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows + v * head_dim + d),
                              round_to_bf16(_mm512_mul_ps(_mm512_loadu_ps(acc.data() + v * head_dim + d), inv)));
      }
    }
  });
}

// Short queries (draft verification: a sequence's last token and its drafts; forced tokens) of sequences
// [first_seq, seq_lens.size(0)), whose tokens are rows query_start[b] .. query_start[b + 1] of q, into the same rows of
// out. One row per token (token_rows) would read a sequence's cache rows once per token; here its tokens' query heads
// become one decode row of tokens x group heads per kv head (decode_attention_bf16's `tokens`), so every cache row is
// read once for all of them. Each token's output is bitwise what its own decode row gives: the same per-head scores,
// its probabilities over its own context, zeros past it.
void short_query_attention_bf16(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                                const at::Tensor& block_tables, const at::Tensor& seq_lens,
                                const at::Tensor& query_start, int64_t first_seq, double scale, double softcap,
                                at::Tensor& out) {
  const int64_t heads = q.size(1), head_dim = q.size(2), kv_heads = k_cache.size(2), group = heads / kv_heads;
  const int64_t num_seqs = seq_lens.size(0) - first_seq;
  if (num_seqs <= 0) return;
  const int32_t* start = query_start.data_ptr<int32_t>();
  std::vector<int32_t> query_lens(num_seqs);
  int64_t tokens = 1;
  for (int64_t b = 0; b < num_seqs; ++b) {
    query_lens[b] = start[first_seq + b + 1] - start[first_seq + b];
    tokens = std::max<int64_t>(tokens, query_lens[b]);
  }
  // [seq][kv head][token][group head]: a kv head's heads of every token adjacent; tokens past a sequence's own are 0.
  at::Tensor packed = at::zeros({num_seqs, kv_heads * tokens * group, head_dim}, q.options());
  const int64_t run = group * head_dim;  // one token's query heads of one kv head
  const auto* from = q.data_ptr<at::BFloat16>();
  auto* to = packed.data_ptr<at::BFloat16>();
  for (int64_t b = 0; b < num_seqs; ++b)
    for (int64_t i = 0; i < query_lens[b]; ++i)
      for (int64_t h = 0; h < kv_heads; ++h)
        std::memcpy(to + ((b * kv_heads + h) * tokens + i) * run, from + (start[first_seq + b] - start[0] + i) * heads
                    * head_dim + h * run, run * sizeof(at::BFloat16));
  at::Tensor packed_out = at::empty_like(packed);
  decode_attention_bf16(packed, k_cache, v_cache, block_tables.narrow(0, first_seq, num_seqs),
                        seq_lens.narrow(0, first_seq, num_seqs), scale, 0, softcap, packed_out, tokens,
                        query_lens.data());
  const auto* back = packed_out.data_ptr<at::BFloat16>();
  auto* rows = out.data_ptr<at::BFloat16>();
  for (int64_t b = 0; b < num_seqs; ++b)
    for (int64_t i = 0; i < query_lens[b]; ++i)
      for (int64_t h = 0; h < kv_heads; ++h)
        std::memcpy(rows + (start[first_seq + b] - start[0] + i) * heads * head_dim + h * run,
                    back + ((b * kv_heads + h) * tokens + i) * run, run * sizeof(at::BFloat16));
}

// int8 caches (EngineConfig.kv_cache_dtype = "int8"; the layout of kernels/reference/kv_int8.py: each (slot, kv head)
// row holds head_dim int8 codes, then the row's float32 scale). Decode attention is memory-bound at serving contexts
// (the rows of every layer scattered over a pool far larger than the caches), and an int8 row is 68 bytes where a
// bf16 one is 128. Scores: each scaled query vector is held as int16 (per vector absmax / 32767: 2^-16 of its
// largest element, far below the bfloat16 query's own rounding) and a key tile's 16 rows are widened to int16 once
// for the group's query heads (vpmovsxbw); vpdpwssd sums 32 exact products per instruction in int32, 16 tokens'
// partial sums reduced together as in decode_attention_bf16, then multiplied by the query's and each row's scale.
// Values: each row widened to float32 once per 64 dims for up to 4 query heads, weighted by its probability times its
// scale (float32 throughout: no bf16 rounding of the probabilities). Same math as the reference (which dequantizes
// each row to the query's dtype first) up to those roundings and the summation order.
constexpr int64_t kScaleBytes = 4;

inline __m512 widen_codes(const int8_t* codes) {
  return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes))));
}

inline float row_scale(const int8_t* row, int64_t head_dim) {
  float scale;
  std::memcpy(&scale, row + head_dim, sizeof scale);
  return scale;
}

template <typename scalar_t>
inline void store16(scalar_t* out, __m512 v) {
  if constexpr (std::is_same_v<scalar_t, at::BFloat16>) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), round_to_bf16(v));
  } else {
    _mm512_storeu_ps(out, v);
  }
}

// The cache lines of `bytes` bytes from each of rows [from, to)'s `offset` into its slot, requested ahead of use.
template <int kHint>
inline void prefetch_slots(const int8_t* cache, const int32_t* table, int64_t from, int64_t to, int64_t offset,
                           int64_t bytes, int64_t slot_bytes, const SlotMap& row_slot) {
  for (int64_t t = from; t < to; ++t) {
    const char* start = reinterpret_cast<const char*>(cache + row_slot(table, t) * slot_bytes + offset);
    for (int64_t byte = 0; byte < bytes; byte += 64) _mm_prefetch(start + byte, static_cast<_mm_hint>(kHint));
    _mm_prefetch(start + bytes - 1, static_cast<_mm_hint>(kHint));  // the rows are not line-aligned
  }
}

// out[g][d0 .. d0 + 16 * vecs) = inv[g] * sum over the context of p[g][t] * scale_t * codes_t, for H query heads of
// kv head `rows_at` (the byte offset of its row in a slot).
template <int H, typename scalar_t>
inline void weigh_int8_values(const int8_t* cache, const int32_t* table, int64_t first, int64_t len,
                              int64_t rows_at, int64_t slot_bytes, int64_t head_dim, int64_t d0, int64_t vecs,
                              const SlotMap& row_slot, const float* const (&p)[H], const float (&inv)[H],
                              scalar_t* const (&out)[H]) {
  __m512 a[H][4];
  for (int g = 0; g < H; ++g)
    for (int c = 0; c < 4; ++c) a[g][c] = _mm512_setzero_ps();
  for (int64_t t = first; t < len; ++t) {
    if (t + kTile < len)
      _mm_prefetch(reinterpret_cast<const char*>(cache + row_slot(table, t + kTile) * slot_bytes + rows_at + d0),
                   _MM_HINT_T0);
    const int8_t* row = cache + row_slot(table, t) * slot_bytes + rows_at;
    const float scale = row_scale(row, head_dim);
    __m512 x[4];
    for (int c = 0; c < 4; ++c) x[c] = c < vecs ? widen_codes(row + d0 + 16 * c) : _mm512_setzero_ps();
    for (int g = 0; g < H; ++g) {
      const __m512 w = _mm512_set1_ps(p[g][t - first] * scale);
      for (int c = 0; c < 4; ++c)
        if (c < vecs) a[g][c] = _mm512_fmadd_ps(w, x[c], a[g][c]);
    }
  }
  for (int g = 0; g < H; ++g) {
    const __m512 scale = _mm512_set1_ps(inv[g]);
    for (int c = 0; c < 4; ++c)
      if (c < vecs) store16(out[g] + d0 + 16 * c, _mm512_mul_ps(a[g][c], scale));
  }
}

template <typename scalar_t>
void decode_attention_int8(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                           const at::Tensor& block_tables, const at::Tensor& seq_lens, double scale, int64_t window,
                           double softcap, at::Tensor& out) {
  const int64_t num_seqs = q.size(0), heads = q.size(1), head_dim = q.size(2);
  const int64_t block_size = k_cache.size(1), kv_heads = k_cache.size(2);
  const int64_t group = heads / kv_heads;
  const int64_t row_bytes = head_dim + kScaleBytes, slot_bytes = kv_heads * row_bytes;
  const int64_t table_stride = block_tables.stride(0);
  const scalar_t* q_ptr = q.data_ptr<scalar_t>();
  const auto* k_ptr = static_cast<const int8_t*>(k_cache.data_ptr());
  const auto* v_ptr = static_cast<const int8_t*>(v_cache.data_ptr());
  const int32_t* tables = block_tables.data_ptr<int32_t>();
  const int32_t* lens = seq_lens.data_ptr<int32_t>();
  scalar_t* out_ptr = out.data_ptr<scalar_t>();
  const SlotMap row_slot(block_size);

  // As decode_attention_bf16: all kv heads of a sequence per task while there are enough sequences for the threads.
  const int64_t heads_per_task = num_seqs >= at::get_num_threads() ? kv_heads : 1;
  const int64_t tasks_per_seq = kv_heads / heads_per_task;
  at::parallel_for(0, num_seqs * tasks_per_seq, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> qf, q_scales(heads_per_task * group), scores, inv_heads(heads_per_task * group);
    std::vector<int16_t> q16, keys(kTile * head_dim);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / tasks_per_seq, h0 = task % tasks_per_seq * heads_per_task;
      const int64_t len = lens[b], first = first_key(len, window), context = len - first;
      const int64_t vectors = heads_per_task * group;  // query heads h0 * group .. : one after another
      const int32_t* table = tables + b * table_stride;
      scalar_t* rows = out_ptr + (b * heads + h0 * group) * head_dim;
      if (context <= 0) {  // a padding row (graph-style launches): zeros
        std::fill(rows, rows + vectors * head_dim, scalar_t(0.f));
        continue;
      }
      const int64_t padded = (context + kTile - 1) / kTile * kTile;
      scores.resize(vectors * padded);
      qf.resize(vectors * head_dim);
      q16.resize(vectors * head_dim);
      to_float(q_ptr + (b * heads + h0 * group) * head_dim, qf.data(), vectors * head_dim);
      for (int64_t v = 0; v < vectors; ++v) {
        const float* x = qf.data() + v * head_dim;
        float absmax = 0.f;
        for (int64_t d = 0; d < head_dim; ++d) absmax = std::max(absmax, std::fabs(x[d]));
        const float inverse = absmax > 0.f ? 32767.f / absmax : 0.f;
        for (int64_t d = 0; d < head_dim; ++d)
          q16[v * head_dim + d] = static_cast<int16_t>(std::nearbyint(x[d] * inverse));
        q_scales[v] = absmax / 32767.f * static_cast<float>(scale);
      }
      // Scores, a tile of 16 tokens at a time: per kv head its 16 rows widened once for the group's query heads.
      for (int64_t t0 = first; t0 < len; t0 += kTile) {
        const int64_t n = std::min(kTile, len - t0);
        prefetch_slots<_MM_HINT_T0>(k_ptr, table, t0 + kTile, std::min(t0 + 2 * kTile, len), h0 * row_bytes,
                                    heads_per_task * row_bytes, slot_bytes, row_slot);
        prefetch_slots<_MM_HINT_T1>(k_ptr, table, t0 + 4 * kTile, std::min(t0 + 5 * kTile, len), h0 * row_bytes,
                                    heads_per_task * row_bytes, slot_bytes, row_slot);
        prefetch_slots<_MM_HINT_T1>(v_ptr, table, t0, t0 + n, h0 * row_bytes, heads_per_task * row_bytes,
                                    slot_bytes, row_slot);
        for (int64_t hh = 0; hh < heads_per_task; ++hh) {
          alignas(64) float key_scales[kTile];
          for (int64_t i = 0; i < kTile; ++i) {
            int16_t* dst = keys.data() + i * head_dim;
            if (i >= n) {
              std::fill(dst, dst + head_dim, int16_t(0));
              key_scales[i] = 0.f;
              continue;
            }
            const int8_t* row = k_ptr + row_slot(table, t0 + i) * slot_bytes + (h0 + hh) * row_bytes;
            int64_t d = 0;
            for (; d + 32 <= head_dim; d += 32)
              _mm512_storeu_si512(dst + d, _mm512_cvtepi8_epi16(_mm256_loadu_si256(
                                               reinterpret_cast<const __m256i*>(row + d))));
            if (d < head_dim)  // a 16-dim tail
              _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + d),
                                  _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + d))));
            key_scales[i] = row_scale(row, head_dim);
          }
          const __m512 scales = _mm512_load_ps(key_scales);
          for (int64_t g = 0; g < group; ++g) {
            const int64_t v = hh * group + g;
            const int16_t* qg = q16.data() + v * head_dim;
            __m512i partial[kTile];
            for (int64_t i = 0; i < kTile; ++i) partial[i] = _mm512_setzero_si512();
            int64_t d = 0;
            for (; d + 32 <= head_dim; d += 32) {
              const __m512i qv = _mm512_loadu_si512(qg + d);
#pragma GCC unroll 16
              for (int64_t i = 0; i < kTile; ++i)
                partial[i] = _mm512_dpwssd_epi32(partial[i], qv, _mm512_loadu_si512(keys.data() + i * head_dim + d));
            }
            if (d < head_dim) {  // the 16-dim tail in the low half, the high half zero
              const __m512i qv = _mm512_zextsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(qg + d)));
              for (int64_t i = 0; i < kTile; ++i) {
                const auto* tail = reinterpret_cast<const __m256i*>(keys.data() + i * head_dim + d);
                partial[i] = _mm512_dpwssd_epi32(partial[i], qv, _mm512_zextsi256_si512(_mm256_loadu_si256(tail)));
              }
            }
            __m512 sums[kTile];
            for (int64_t i = 0; i < kTile; ++i) sums[i] = _mm512_cvtepi32_ps(partial[i]);
            _mm512_storeu_ps(scores.data() + v * padded + t0 - first,
                             _mm512_mul_ps(sum_sixteen(sums), _mm512_mul_ps(scales, _mm512_set1_ps(q_scales[v]))));
          }
        }
      }
      for (int64_t v = 0; v < vectors; ++v) {
        float* s = scores.data() + v * padded;
        soft_cap(s, context, static_cast<float>(softcap));
        inv_heads[v] = 1.f / exp_shifted(s, context, max_of(s, context));
      }
      // Values: up to 4 query heads x 64 dims in registers per pass over the context.
      for (int64_t hh = 0; hh < heads_per_task; ++hh) {
        const int64_t rows_at = (h0 + hh) * row_bytes;
        for (int64_t g0 = 0; g0 < group; g0 += 4) {
          const int64_t here = std::min<int64_t>(4, group - g0);
          const float* p[4];
          float inv[4];
          scalar_t* o[4];
          for (int64_t g = 0; g < 4; ++g) {
            const int64_t v = hh * group + g0 + std::min(g, here - 1);
            p[g] = scores.data() + v * padded;
            inv[g] = inv_heads[v];
            o[g] = rows + v * head_dim;
          }
          for (int64_t d0 = 0; d0 < head_dim; d0 += 64) {
            const int64_t vecs = std::min<int64_t>(64, head_dim - d0) / 16;
            switch (here) {
              case 4:
                weigh_int8_values<4>(v_ptr, table, first, len, rows_at, slot_bytes, head_dim, d0, vecs, row_slot,
                                     {p[0], p[1], p[2], p[3]}, {inv[0], inv[1], inv[2], inv[3]},
                                     {o[0], o[1], o[2], o[3]});
                break;
              case 3:
                weigh_int8_values<3>(v_ptr, table, first, len, rows_at, slot_bytes, head_dim, d0, vecs, row_slot,
                                     {p[0], p[1], p[2]}, {inv[0], inv[1], inv[2]}, {o[0], o[1], o[2]});
                break;
              case 2:
                weigh_int8_values<2>(v_ptr, table, first, len, rows_at, slot_bytes, head_dim, d0, vecs, row_slot,
                                     {p[0], p[1]}, {inv[0], inv[1]}, {o[0], o[1]});
                break;
              default:
                weigh_int8_values<1>(v_ptr, table, first, len, rows_at, slot_bytes, head_dim, d0, vecs, row_slot,
                                     {p[0]}, {inv[0]}, {o[0]});
            }
          }
        }
      }
    }
  });
}

// Prefill chunks against the paged cache on AVX512-BF16 CPUs, without window or soft-cap. Both products run on
// vdpbf16ps (bf16 products exact, float32 sums), from operands a task lays out once for all its queries:
// - keys per tile of 16 keys and pair of dims (each 32-bit lane one key's two dims), so a query's 16 scores come from
//   32 instructions with its dim pairs broadcast and no horizontal sums;
// - values per pair of keys (each 32-bit lane one dim of two consecutive keys), so P.V takes two keys per
//   instruction with the query's two probabilities broadcast.
// A task is one (chunk, kv head), or a slice of its query vectors where there are fewer (chunk, kv head) pairs than
// twice the threads (one chunk of 3 kv heads on 2 threads would leave one thread idle half the call).
// Query vector i of a task: token i / group of the chunk, head h * group + i % group. They run in blocks of
// kQueryBlock, flash-style: each block walks the context in blocks of kKeyBlock keys, so its scores, probabilities
// and a key block's operands stay in L1/L2 (whole-context rows of scores went through L2 several times per block at
// agentic contexts of 2-4K keys). Per key block: the scores (a register tile of 8 query vectors x 32 keys), each
// query's running maximum over its causal context (its own position included) and the probabilities
// exp(s - max) rounded to bf16, the float32 running sums and outputs rescaled where the maximum grew, then the
// weighted sums into the outputs, kPvQueries query vectors x 64 dims in registers at a time. The outputs are
// divided by the sums at the end. The exponentials are 2^x of scores pre-scaled by log2(e) (a degree-6 polynomial,
// relative error ~1e-7, far below the probabilities' bf16 rounding).
constexpr int64_t kQueryBlock = 8;
constexpr int64_t kKeyBlock = 256;  // a multiple of 32: whole score tile pairs, whole bf16 vectors of probabilities
constexpr int kPvQueries = 4;
constexpr int64_t kMinSliceVectors = 64;  // query vectors per task at least when chunks are split across threads

// 2^x for x <= 0: n = round(x), 2^(x - n) by Cephes' exp2f polynomial on [-0.5, 0.5], times 2^n. Natively
// vrndscaleps and vscalefps (which takes 2^n below the smallest float to 0); under tests/kernels' SIMDe emulation,
// which may lack those two, n goes into the exponent field (x clamped at -126: 2^-126 ~ 1e-38, nothing against a
// maximum's 1).
inline __m512 exp2_nonpositive(__m512 x) {
#ifdef SIMDE_ENABLE_NATIVE_ALIASES
  x = _mm512_max_ps(x, _mm512_set1_ps(-126.f));
  const __m512i n = _mm512_cvtps_epi32(x);  // to nearest
  const __m512 f = _mm512_sub_ps(x, _mm512_cvtepi32_ps(n));
#else
  const __m512 n = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 f = _mm512_sub_ps(x, n);
#endif
  __m512 p = _mm512_set1_ps(1.535336188319500e-4f);
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.339887440266574e-3f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(9.618437357674640e-3f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(5.550332471162809e-2f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(2.402264791363012e-1f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(6.931472028550421e-1f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.f));
#ifdef SIMDE_ENABLE_NATIVE_ALIASES
  const __m512i two_n = _mm512_slli_epi32(_mm512_add_epi32(n, _mm512_set1_epi32(127)), 23);
  return _mm512_mul_ps(p, _mm512_castsi512_ps(two_n));
#else
  return _mm512_scalef_ps(p, n);
#endif
}

// Probabilities (finite, in [0, 1]) to bf16: natively one vcvtneps2bf16 (round to nearest even, as round_to_bf16
// for finite values); round_to_bf16's integer steps under the emulation, which lacks it.
inline __m256i probabilities_bf16(__m512 p) {
#ifdef SIMDE_ENABLE_NATIVE_ALIASES
  return round_to_bf16(p);
#else
  return (__m256i)_mm512_cvtneps_pbh(p);
#endif
}

// Scores of kQueryBlock query vectors (dim pairs qv[i]) against key tiles [tile0, tile0 + tiles) (tiles even),
// times `scale`, into s[i * kKeyBlock + ...]: two tiles per pass, so each broadcast query pair serves 32 keys.
inline void block_scores(const uint32_t* keys, int64_t pairs, int64_t tile0, int64_t tiles,
                         const uint32_t* const (&qv)[kQueryBlock], __m512 scale, float* s) {
  for (int64_t tile = tile0; tile < tile0 + tiles; tile += 2) {
    const uint32_t* k0 = keys + tile * pairs * kTile;
    const uint32_t* k1 = k0 + pairs * kTile;
    __m512 a0[kQueryBlock], a1[kQueryBlock];
    for (int64_t i = 0; i < kQueryBlock; ++i) a0[i] = a1[i] = _mm512_setzero_ps();
    for (int64_t p = 0; p < pairs; ++p) {
      const __m512bh x0 = (__m512bh)_mm512_loadu_si512(k0 + p * kTile);
      const __m512bh x1 = (__m512bh)_mm512_loadu_si512(k1 + p * kTile);
      for (int64_t i = 0; i < kQueryBlock; ++i) {
        const __m512bh w = (__m512bh)_mm512_set1_epi32(static_cast<int>(qv[i][p]));
        a0[i] = _mm512_dpbf16_ps(a0[i], w, x0);
        a1[i] = _mm512_dpbf16_ps(a1[i], w, x1);
      }
    }
    const int64_t at = (tile - tile0) * kTile;
    for (int64_t i = 0; i < kQueryBlock; ++i) {
      _mm512_storeu_ps(s + i * kKeyBlock + at, _mm512_mul_ps(a0[i], scale));
      _mm512_storeu_ps(s + i * kKeyBlock + at + kTile, _mm512_mul_ps(a1[i], scale));
    }
  }
}

// acc rows of Q query vectors (float32, head_dim each), dims d0..d0+16*vecs: times alpha[i], plus the sum over key
// pairs j < key_pairs of P[i] pair j x value pair j.
template <int Q>
inline void weigh_key_pairs(const uint32_t* value_pairs, int64_t head_dim, int64_t d0, int64_t vecs,
                            int64_t key_pairs, const uint32_t* const (&p)[Q], const float (&alpha)[Q],
                            float* const (&acc)[Q]) {
  __m512 a[Q][4];
  for (int i = 0; i < Q; ++i) {
    const __m512 rescale = _mm512_set1_ps(alpha[i]);
    for (int c = 0; c < 4; ++c)
      a[i][c] = c < vecs ? _mm512_mul_ps(_mm512_loadu_ps(acc[i] + d0 + 16 * c), rescale) : _mm512_setzero_ps();
  }
  if (vecs == 4) {
    for (int64_t j = 0; j < key_pairs; ++j) {
      const uint32_t* row = value_pairs + j * head_dim + d0;
      __m512i x0 = _mm512_loadu_si512(row), x1 = _mm512_loadu_si512(row + 16);
      __m512i x2 = _mm512_loadu_si512(row + 32), x3 = _mm512_loadu_si512(row + 48);
      // Held in registers for all Q queries: left to itself gcc folds the load into every vdpbf16ps, Q loads of
      // each vector per key pair where the load port, not the dot products, then bounds the loop.
#ifndef SIMDE_ENABLE_NATIVE_ALIASES
      __asm__("" : "+v"(x0), "+v"(x1), "+v"(x2), "+v"(x3));
#endif
      const __m512bh v0 = (__m512bh)x0, v1 = (__m512bh)x1, v2 = (__m512bh)x2, v3 = (__m512bh)x3;
      for (int i = 0; i < Q; ++i) {
        const __m512bh w = (__m512bh)_mm512_set1_epi32(static_cast<int>(p[i][j]));
        a[i][0] = _mm512_dpbf16_ps(a[i][0], w, v0);
        a[i][1] = _mm512_dpbf16_ps(a[i][1], w, v1);
        a[i][2] = _mm512_dpbf16_ps(a[i][2], w, v2);
        a[i][3] = _mm512_dpbf16_ps(a[i][3], w, v3);
      }
    }
  } else {
    for (int64_t j = 0; j < key_pairs; ++j) {
      const uint32_t* row = value_pairs + j * head_dim + d0;
      for (int i = 0; i < Q; ++i) {
        const __m512bh w = (__m512bh)_mm512_set1_epi32(static_cast<int>(p[i][j]));
        for (int c = 0; c < 4; ++c)
          if (c < vecs) a[i][c] = _mm512_dpbf16_ps(a[i][c], w, (__m512bh)_mm512_loadu_si512(row + 16 * c));
      }
    }
  }
  for (int i = 0; i < Q; ++i)
    for (int c = 0; c < 4; ++c)
      if (c < vecs) _mm512_storeu_ps(acc[i] + d0 + 16 * c, a[i][c]);
}

// A cache's (slot, kv head) row as bfloat16, for the prefill kernel's layout: a bf16 cache's row in place; an int8
// cache's (the row's codes, then its float32 scale: kernels/reference/kv_int8.py) dequantized into scratch, each
// code * scale rounded to bf16 as the reference rounds it.
struct Bf16Rows {
  const void* base;
  int64_t kv_heads, head_dim;
  bool int8;
  const uint16_t* row(int64_t slot, int64_t h, uint16_t* scratch) const {
    if (!int8) return static_cast<const uint16_t*>(base) + (slot * kv_heads + h) * head_dim;
    const int8_t* codes = static_cast<const int8_t*>(base) + (slot * kv_heads + h) * (head_dim + kScaleBytes);
    const __m512 scale = _mm512_set1_ps(row_scale(codes, head_dim));
    for (int64_t d = 0; d < head_dim; d += 16)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(scratch + d),
                          round_to_bf16(_mm512_mul_ps(widen_codes(codes + d), scale)));
    return scratch;
  }
  // Requests row (slot, h) into L1 ahead of its use: a chunk's context rows lie scattered over the pool's blocks,
  // which the hardware prefetchers do not follow, and laying them out waited on each row's miss in turn (a tenth of
  // the kernel at a chunk of 200 tokens over an 800-token prefix).
  void prefetch(int64_t slot, int64_t h) const {
    const int64_t bytes = int8 ? head_dim + kScaleBytes : 2 * head_dim;
    const char* at = static_cast<const char*>(base) + (slot * kv_heads + h) * bytes;
    for (int64_t byte = 0; byte < bytes; byte += 64) _mm_prefetch(at + byte, _MM_HINT_T0);
  }
};

// How many rows ahead the prefill kernel's layout requests the cache rows it reads: far enough that a row's miss has
// resolved when the layout reaches it (a row's layout takes some tens of cycles, a miss past L2 hundreds).
constexpr int64_t kLayoutAhead = 16;

void prefill_attention_bf16(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                            const at::Tensor& block_tables, const at::Tensor& seq_lens,
                            const at::Tensor& query_start, int64_t first_seq, double scale, at::Tensor& out) {
  const int64_t heads = q.size(1), head_dim = q.size(2);
  const int64_t block_size = k_cache.size(1), kv_heads = k_cache.size(2);
  const int64_t group = heads / kv_heads, pairs = head_dim / 2, num_seqs = seq_lens.size(0);
  const int64_t table_stride = block_tables.stride(0);
  const auto* q_ptr = reinterpret_cast<const uint32_t*>(q.data_ptr<at::BFloat16>());  // dim pairs
  const bool int8 = k_cache.scalar_type() == at::kChar;
  const Bf16Rows k_rows{k_cache.data_ptr(), kv_heads, head_dim, int8};
  const Bf16Rows v_rows{v_cache.data_ptr(), kv_heads, head_dim, int8};
  const int32_t* tables = block_tables.data_ptr<int32_t>();
  const int32_t* lens = seq_lens.data_ptr<int32_t>();
  const int32_t* starts = query_start.data_ptr<int32_t>();
  at::BFloat16* out_ptr = out.data_ptr<at::BFloat16>();
  // Scores in log2 units: exp(scale * qk - max) = 2^(scale * log2(e) * qk - max').
  const __m512 scale_v = _mm512_set1_ps(static_cast<float>(scale) * 1.4426950408889634f);
  const SlotMap row_slot(block_size);

  // Slices per (chunk, kv head): enough tasks for every thread twice over, none under kMinSliceVectors vectors.
  int64_t most_vectors = 0;
  for (int64_t b = first_seq; b < num_seqs; ++b)
    most_vectors = std::max<int64_t>(most_vectors, (starts[b + 1] - starts[b]) * group);
  const int64_t pairs_of_heads = (num_seqs - first_seq) * kv_heads, threads = at::get_num_threads();
  int64_t slices = 1;
  if (threads > 1 && pairs_of_heads < 2 * threads)
    slices = std::max<int64_t>(1, std::min((2 * threads + pairs_of_heads - 1) / pairs_of_heads,
                                           most_vectors / kMinSliceVectors));

  at::parallel_for(first_seq * kv_heads * slices, num_seqs * kv_heads * slices, 1, [&](int64_t begin, int64_t end) {
    std::vector<uint32_t> keys, value_pairs;  // [tile][pair of dims][16 keys], [pair of keys][head_dim]
    std::vector<float> scores(kQueryBlock * kKeyBlock);
    std::vector<uint16_t> probs(kQueryBlock * kKeyBlock);  // bf16
    std::vector<float> acc(kQueryBlock * head_dim);        // the block's float32 outputs, not yet normalised
    std::vector<uint16_t> scratch(2 * head_dim);           // two int8 rows dequantized
    int64_t laid_out = -1;                                 // the (chunk, kv head) whose operands the buffers hold
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pair_of_heads = task / slices, slice = task % slices;
      const int64_t b = pair_of_heads / kv_heads, h = pair_of_heads % kv_heads;
      const int64_t len = lens[b], q0 = starts[b], q_len = starts[b + 1] - q0, first_pos = len - q_len;
      if (q_len <= 0) continue;
      const int64_t vectors = q_len * group;
      // This slice's query vectors, whole blocks of kQueryBlock.
      const int64_t blocks = (vectors + kQueryBlock - 1) / kQueryBlock;
      const int64_t v_begin = blocks * slice / slices * kQueryBlock;
      const int64_t v_end = std::min(vectors, blocks * (slice + 1) / slices * kQueryBlock);
      if (v_begin >= v_end) continue;
      const int32_t* table = tables + b * table_stride;
      // Padded to 32 keys: a whole pair of score tiles and whole bf16 vectors of probabilities (pairs of keys).
      const int64_t padded = (len + 31) / 32 * 32, tiles = padded / kTile;
      if (laid_out != pair_of_heads) {  // a thread's consecutive slices of one (chunk, kv head) share the layout
        laid_out = pair_of_heads;
        keys.assign(tiles * pairs * kTile, 0u);
        value_pairs.assign(padded / 2 * head_dim, 0u);
        for (int64_t t = 0; t < std::min(kLayoutAhead, len); ++t) k_rows.prefetch(row_slot(table, t), h);
        for (int64_t t = 0; t < len; ++t) {
          if (t + kLayoutAhead < len) k_rows.prefetch(row_slot(table, t + kLayoutAhead), h);
          const int64_t slot = row_slot(table, t);
          const auto* k_row = reinterpret_cast<const uint32_t*>(k_rows.row(slot, h, scratch.data()));
          uint32_t* k_tile = keys.data() + (t / kTile) * pairs * kTile + t % kTile;
          for (int64_t p = 0; p < pairs; ++p) k_tile[p * kTile] = k_row[p];
        }
        for (int64_t t = 0; t < std::min(kLayoutAhead, len); ++t) v_rows.prefetch(row_slot(table, t), h);
        for (int64_t t = 0; t < len; t += 2) {
          for (int64_t ahead = t + kLayoutAhead; ahead < std::min(t + kLayoutAhead + 2, len); ++ahead)
            v_rows.prefetch(row_slot(table, ahead), h);
          const uint16_t* even = v_rows.row(row_slot(table, t), h, scratch.data());
          const uint16_t* odd =
              t + 1 < len ? v_rows.row(row_slot(table, t + 1), h, scratch.data() + head_dim) : nullptr;
          uint32_t* dst = value_pairs.data() + t / 2 * head_dim;
          for (int64_t d = 0; d < head_dim; d += 16) {
            const __m512i low =
                _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(even + d)));
            const __m512i high =
                odd ? _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(odd + d)))
                    : _mm512_setzero_si512();
            _mm512_storeu_si512(dst + d, _mm512_or_si512(low, _mm512_slli_epi32(high, 16)));
          }
        }
      }
      for (int64_t v0 = v_begin; v0 < v_end; v0 += kQueryBlock) {
        const int64_t nv = std::min(kQueryBlock, v_end - v0);
        const uint32_t* qv[kQueryBlock];
        int64_t visible[kQueryBlock];
        at::BFloat16* rows[kQueryBlock];
        float running_max[kQueryBlock], running_sum[kQueryBlock];
        int64_t most = 0;
        for (int64_t i = 0; i < kQueryBlock; ++i) {
          const int64_t vi = v0 + std::min(i, nv - 1), token = vi / group;  // padding lanes repeat the last vector
          const int64_t row = (q0 + token) * heads + h * group + vi % group;
          qv[i] = q_ptr + row * pairs;
          rows[i] = out_ptr + row * head_dim;
          visible[i] = first_pos + token + 1;
          most = std::max(most, visible[i]);
          running_max[i] = -std::numeric_limits<float>::infinity();
          running_sum[i] = 0.f;
        }
        std::fill(acc.begin(), acc.end(), 0.f);
        const int64_t reach = (most + 31) / 32 * 32;
        for (int64_t k0 = 0; k0 < reach; k0 += kKeyBlock) {
          const int64_t span = std::min(kKeyBlock, reach - k0);  // a multiple of 32
          block_scores(keys.data(), pairs, k0 / kTile, span / kTile, qv, scale_v, scores.data());
          float alpha[kQueryBlock];
          int64_t seen[kQueryBlock];  // keys of this block query i sees
          for (int64_t i = 0; i < nv; ++i) {
            const float* s = scores.data() + i * kKeyBlock;
            uint16_t* pi = probs.data() + i * kKeyBlock;
            const int64_t n = std::clamp<int64_t>(visible[i] - k0, 0, span);
            seen[i] = n;
            alpha[i] = 1.f;
            if (n == 0) {
              std::fill(pi, pi + span, uint16_t(0));
              continue;
            }
            // The first block always has a key (every query sees position 0): the maximum is finite after it.
            const float top = std::max(running_max[i], max_of(s, n));
            if (top > running_max[i]) {
              alpha[i] = k0 == 0 ? 0.f : std::exp2(running_max[i] - top);
              running_max[i] = top;
            }
            const __m512 shift = _mm512_set1_ps(top);
            __m512 total = _mm512_setzero_ps();
            for (int64_t j = 0; j < span; j += 16) {
              const __mmask16 lanes = first_lanes(n - j);
              const __m512 e = _mm512_maskz_mov_ps(lanes, exp2_nonpositive(_mm512_sub_ps(_mm512_loadu_ps(s + j),
                                                                                           shift)));
              total = _mm512_add_ps(total, e);
              _mm256_storeu_si256(reinterpret_cast<__m256i*>(pi + j), probabilities_bf16(e));
            }
            running_sum[i] = running_sum[i] * alpha[i] + _mm512_reduce_add_ps(total);
          }
          // Weighted sums of this block's values: kPvQueries query vectors x 64 dims in registers per pass.
          const uint32_t* block_values = value_pairs.data() + k0 / 2 * head_dim;
          for (int64_t i0 = 0; i0 < nv; i0 += kPvQueries) {
            const int64_t here = std::min<int64_t>(kPvQueries, nv - i0);
            int64_t farthest = 0;
            for (int64_t i = i0; i < i0 + here; ++i) farthest = std::max(farthest, seen[i]);
            const int64_t key_pairs = (farthest + 1) / 2;
            bool rescaled = false;
            for (int64_t i = i0; i < i0 + here; ++i) rescaled |= alpha[i] != 1.f;
            if (key_pairs == 0 && !rescaled) continue;
            for (int64_t d0 = 0; d0 < head_dim; d0 += 64) {
              const int64_t vecs = std::min<int64_t>(64, head_dim - d0) / 16;
              if (here == kPvQueries) {
                const uint32_t* p[kPvQueries];
                float a[kPvQueries];
                float* o[kPvQueries];
                for (int64_t i = 0; i < kPvQueries; ++i) {
                  p[i] = reinterpret_cast<const uint32_t*>(probs.data() + (i0 + i) * kKeyBlock);
                  a[i] = alpha[i0 + i];
                  o[i] = acc.data() + (i0 + i) * head_dim;
                }
                weigh_key_pairs<kPvQueries>(block_values, head_dim, d0, vecs, key_pairs, p, a, o);
              } else {
                for (int64_t i = i0; i < i0 + here; ++i)
                  weigh_key_pairs<1>(block_values, head_dim, d0, vecs, key_pairs,
                                     {reinterpret_cast<const uint32_t*>(probs.data() + i * kKeyBlock)}, {alpha[i]},
                                     {acc.data() + i * head_dim});
              }
            }
          }
        }
        for (int64_t i = 0; i < nv; ++i) {
          const __m512 inv = _mm512_set1_ps(1.f / running_sum[i]);
          for (int64_t d = 0; d < head_dim; d += 16)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows[i] + d),
                                round_to_bf16(_mm512_mul_ps(_mm512_loadu_ps(acc.data() + i * head_dim + d), inv)));
        }
      }
    }
  });
}
#endif  // __AVX512F__ && __AVX512BF16__

#if !defined(WARDEN_BF16_ATTENTION) && defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>
#define WARDEN_AVX2_ATTENTION 1

// bfloat16/float16 caches on CPUs with AVX2 but without AVX512-BF16 (AMD Zen 2/3, Intel client cores): the same
// shape as decode_attention_bf16 in 256-bit vectors. The generic kernel above reduces each (token, head) dot product
// horizontally and converts every key and value row through ATen's vector types per head; here a tile of 8 key rows
// is widened to float32 once for all heads of the group, each head's 8 partial sums are reduced together by one
// hadd tree, and each value row is widened once per block of 16 dims for up to 3 heads whose outputs stay in
// registers; the scattered key and value rows are prefetched a tile ahead. Same math as the generic kernel up to
// float32 summation order.
constexpr int64_t kAvx2Tile = 8;

template <typename scalar_t>
inline __m256 widen8(const scalar_t* src) {
  const __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
  if constexpr (std::is_same_v<scalar_t, at::BFloat16>) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(half), 16));  // bf16: a float's high half
  } else {
    return _mm256_cvtph_ps(half);
  }
}

// Eight vectors of partial sums -> one vector whose lane i is the sum of vector i.
inline __m256 sum_eight(const __m256 (&v)[kAvx2Tile]) {
  const __m256 t0 = _mm256_hadd_ps(v[0], v[1]), t1 = _mm256_hadd_ps(v[2], v[3]);
  const __m256 t2 = _mm256_hadd_ps(v[4], v[5]), t3 = _mm256_hadd_ps(v[6], v[7]);
  const __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3);  // per 128-bit lane: 4 vectors' half sums
  return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

// acc[g][0..16) (H heads, dims d0..d0+16) = sum over the context first..len-1 of p[g][t - first] * v[t][d0..d0+16).
template <typename scalar_t, int H>
inline void weigh_values(const DecodeBatch<scalar_t>& in, const int32_t* table, int64_t first, int64_t len, int64_t h,
                         int64_t d0, const float* const (&p)[H], float* const (&acc)[H]) {
  __m256 a[H][2];
  for (int g = 0; g < H; ++g) a[g][0] = a[g][1] = _mm256_setzero_ps();
  for (int64_t t = first; t < len; ++t) {
    // The rows are scattered over the cache's blocks, which the hardware prefetcher does not follow: requested
    // kAvx2Tile tokens ahead.
    if (t + kAvx2Tile < len)
      _mm_prefetch(reinterpret_cast<const char*>(in.value_row(table, t + kAvx2Tile, h) + d0), _MM_HINT_T0);
    const scalar_t* row = in.value_row(table, t, h) + d0;
    const __m256 v0 = widen8(row), v1 = widen8(row + 8);
    for (int g = 0; g < H; ++g) {
      const __m256 w = _mm256_broadcast_ss(p[g] + t - first);
      a[g][0] = _mm256_fmadd_ps(w, v0, a[g][0]);
      a[g][1] = _mm256_fmadd_ps(w, v1, a[g][1]);
    }
  }
  for (int g = 0; g < H; ++g) {
    _mm256_storeu_ps(acc[g] + d0, a[g][0]);
    _mm256_storeu_ps(acc[g] + d0 + 8, a[g][1]);
  }
}

template <typename scalar_t>
void decode_attention_avx2(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                           const at::Tensor& block_tables, const at::Tensor& seq_lens, double scale, int64_t window,
                           double softcap, at::Tensor& out) {
  const DecodeBatch<scalar_t> in(q, k_cache, v_cache, block_tables, seq_lens, scale, window, softcap, out);
  const int64_t group = in.group, head_dim = in.head_dim, chunks = head_dim / 8;

  at::parallel_for(0, in.num_seqs * in.kv_heads, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> qf(group * head_dim), keys(kAvx2Tile * head_dim), scores, acc(group * head_dim);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / in.kv_heads, h = task % in.kv_heads;
      const int64_t len = in.lens[b], first = first_key(len, in.window), context = len - first;
      const int32_t* table = in.table(b);
      const int64_t padded = (context + kAvx2Tile - 1) / kAvx2Tile * kAvx2Tile;
      in.load_queries(b, h, qf.data());
      scores.assign(group * padded, 0.f);
      // Scores, a tile of 8 tokens at a time: their key rows widened once (rows past the context stay zero).
      for (int64_t t0 = first; t0 < len; t0 += kAvx2Tile) {
        const int64_t n = std::min(kAvx2Tile, len - t0);
        for (int64_t i = 0; i < kAvx2Tile; ++i) {
          float* dst = keys.data() + i * head_dim;
          if (i >= n) {
            std::fill(dst, dst + head_dim, 0.f);
            continue;
          }
          const scalar_t* row = in.key_row(table, t0 + i, h);
          for (int64_t c = 0; c < chunks; ++c) _mm256_storeu_ps(dst + c * 8, widen8(row + c * 8));
          // The next tile's row (scattered over the blocks, as the values): requested now.
          if (t0 + kAvx2Tile + i < len) {
            const char* next = reinterpret_cast<const char*>(in.key_row(table, t0 + kAvx2Tile + i, h));
            for (int64_t line = 0; line < head_dim * int64_t(sizeof(scalar_t)); line += 64)
              _mm_prefetch(next + line, _MM_HINT_T0);
          }
        }
        for (int64_t g = 0; g < group; ++g) {
          const float* qg = qf.data() + g * head_dim;
          __m256 partial[kAvx2Tile];
          for (int64_t i = 0; i < kAvx2Tile; ++i) partial[i] = _mm256_setzero_ps();
          for (int64_t c = 0; c < chunks; ++c) {
            const __m256 qv = _mm256_loadu_ps(qg + c * 8);
            for (int64_t i = 0; i < kAvx2Tile; ++i)
              partial[i] = _mm256_fmadd_ps(qv, _mm256_loadu_ps(keys.data() + i * head_dim + c * 8), partial[i]);
          }
          _mm256_storeu_ps(scores.data() + g * padded + t0 - first, sum_eight(partial));
        }
      }
      for (int64_t g = 0; g < group; ++g) {
        soft_cap(scores.data() + g * padded, context, in.softcap);
        softmax(scores.data() + g * padded, context);
      }
      // Values: up to 3 heads x 16 dims in registers per pass over the context.
      for (int64_t g0 = 0; g0 < group; g0 += 3) {
        const int64_t here = std::min<int64_t>(3, group - g0);
        const float* p[3];
        float* a[3];
        for (int64_t g = 0; g < here; ++g) {
          p[g] = scores.data() + (g0 + g) * padded;
          a[g] = acc.data() + (g0 + g) * head_dim;
        }
        for (int64_t d0 = 0; d0 < head_dim; d0 += 16) {
          if (here == 3) {
            weigh_values<scalar_t, 3>(in, table, first, len, h, d0, p, a);
          } else if (here == 2) {
            weigh_values<scalar_t, 2>(in, table, first, len, h, d0, {p[0], p[1]}, {a[0], a[1]});
          } else {
            weigh_values<scalar_t, 1>(in, table, first, len, h, d0, {p[0]}, {a[0]});
          }
        }
      }
      in.store_outputs(b, h, acc.data());
    }
  });
}
#endif  // AVX2 without AVX512-BF16

// The head_dim of the rows a cache holds: an int8 cache's rows also carry their float32 scale.
inline int64_t cache_head_dim(const at::Tensor& cache) {
  return cache.scalar_type() == at::kChar ? cache.size(3) - 4 : cache.size(3);
}

at::Tensor prefill_attention(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                             const at::Tensor& block_tables, const at::Tensor& seq_lens, const at::Tensor& query_start,
                             int64_t first_seq, double scale, at::Tensor out) {
  TORCH_CHECK(q.dim() == 3 && k_cache.dim() == 4 && v_cache.sizes() == k_cache.sizes(),
              "q [tokens, heads, head_dim], caches [blocks, block_size, kv_heads, head_dim]");
  TORCH_CHECK(q.scalar_type() == at::kBFloat16 && out.scalar_type() == at::kBFloat16 &&
                  (k_cache.scalar_type() == at::kBFloat16 || k_cache.scalar_type() == at::kChar) &&
                  v_cache.scalar_type() == k_cache.scalar_type(),
              "prefill_attention takes bfloat16 queries and bfloat16 or int8 caches");
  TORCH_CHECK(q.is_contiguous() && out.is_contiguous() && out.sizes() == q.sizes(), "q and out contiguous, alike");
  TORCH_CHECK(k_cache.is_contiguous() && v_cache.is_contiguous(), "caches must be contiguous");
  TORCH_CHECK(q.size(2) == cache_head_dim(k_cache) && q.size(2) % 32 == 0 && q.size(1) % k_cache.size(2) == 0,
              "head_dim (a multiple of 32) / GQA mismatch");
  TORCH_CHECK(block_tables.scalar_type() == at::kInt && seq_lens.scalar_type() == at::kInt &&
                  query_start.scalar_type() == at::kInt && query_start.size(0) == seq_lens.size(0) + 1,
              "int32 block_tables, seq_lens, query_start (one more than seq_lens)");
#ifdef WARDEN_BF16_ATTENTION
  const at::Tensor tables = block_tables.stride(1) == 1 ? block_tables : block_tables.contiguous();
  prefill_attention_bf16(q, k_cache, v_cache, tables, seq_lens.contiguous(), query_start.contiguous(), first_seq,
                         scale, out);
  return out;
#else
  TORCH_CHECK(false, "prefill_attention needs AVX512-BF16");
#endif
}

// Whether short_query_attention serves these queries: bfloat16 queries and caches on AVX512-BF16 CPUs, a head_dim
// that is a multiple of 32, no window (each token's first key would differ). Elsewhere short queries run as one decode
// row per token.
bool short_query_attention_serves(const at::Tensor& q, const at::Tensor& k_cache, int64_t window) {
#ifdef WARDEN_BF16_ATTENTION
  return window <= 0 && q.scalar_type() == at::kBFloat16 && k_cache.scalar_type() == at::kBFloat16 &&
         q.size(2) % 32 == 0;
#else
  return false;
#endif
}

at::Tensor decode_attention(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                            const at::Tensor& block_tables, const at::Tensor& seq_lens, double scale, int64_t window,
                            double softcap);

// A step of short queries (draft verification, forced tokens), the first num_decodes sequences one token each: the
// decodes through decode_attention, the rest through short_query_attention_bf16 (a sequence's cache rows read once
// for all its tokens, where one decode row per token reads them once per token; bitwise the same outputs).
at::Tensor short_query_attention(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                                 const at::Tensor& block_tables, const at::Tensor& seq_lens,
                                 const at::Tensor& query_start, int64_t num_decodes, double scale, double softcap) {
  TORCH_CHECK(q.dim() == 3 && k_cache.dim() == 4 && v_cache.sizes() == k_cache.sizes(),
              "q [tokens, heads, head_dim], caches [blocks, block_size, kv_heads, head_dim]");
  TORCH_CHECK(q.device().is_cpu() && k_cache.device().is_cpu() && short_query_attention_serves(q, k_cache, 0) &&
                  v_cache.scalar_type() == k_cache.scalar_type(),
              "short_query_attention takes bfloat16 queries and caches, head_dim a multiple of 32, on AVX512-BF16");
  TORCH_CHECK(q.size(2) == k_cache.size(3) && q.size(1) % k_cache.size(2) == 0, "head_dim / GQA mismatch");
  TORCH_CHECK(k_cache.is_contiguous() && v_cache.is_contiguous(), "caches must be contiguous");
  TORCH_CHECK(block_tables.scalar_type() == at::kInt && seq_lens.scalar_type() == at::kInt &&
                  query_start.scalar_type() == at::kInt && query_start.size(0) == seq_lens.size(0) + 1 &&
                  block_tables.size(0) >= seq_lens.size(0),
              "int32 block_tables (a row per sequence), seq_lens, query_start (one more than seq_lens)");
  const at::Tensor starts = query_start.contiguous();
  const int32_t* start = starts.const_data_ptr<int32_t>();
  const int64_t num_seqs = seq_lens.size(0);
  TORCH_CHECK(num_decodes >= 0 && num_decodes <= num_seqs && start[num_seqs] - start[0] == q.size(0) &&
                  start[num_decodes] - start[0] == num_decodes,
              "one query row per token, the decodes (one token each) first");
  const at::Tensor qc = q.contiguous();
  const at::Tensor tables = block_tables.stride(1) == 1 ? block_tables : block_tables.contiguous();
  const at::Tensor lens = seq_lens.contiguous();
  at::Tensor out = at::empty(qc.sizes(), qc.options());
  if (num_decodes > 0)
    out.narrow(0, 0, num_decodes)
        .copy_(decode_attention(qc.narrow(0, 0, num_decodes), k_cache, v_cache, tables, lens, scale, 0, softcap));
#ifdef WARDEN_BF16_ATTENTION
  short_query_attention_bf16(qc, k_cache, v_cache, tables, lens, starts, num_decodes, scale, softcap, out);
#endif
  return out;
}

at::Tensor decode_attention(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                            const at::Tensor& block_tables, const at::Tensor& seq_lens, double scale, int64_t window,
                            double softcap) {
  TORCH_CHECK(q.dim() == 3 && k_cache.dim() == 4 && v_cache.sizes() == k_cache.sizes(),
              "q [seqs, heads, head_dim], caches [blocks, block_size, kv_heads, head_dim]");
  TORCH_CHECK(q.device().is_cpu() && k_cache.device().is_cpu(), "decode_attention runs on CPU tensors");
  const bool int8 = k_cache.scalar_type() == at::kChar;
  TORCH_CHECK((int8 || q.scalar_type() == k_cache.scalar_type()) && v_cache.scalar_type() == k_cache.scalar_type(),
              "q and the caches share one dtype (or the caches are int8)");
  TORCH_CHECK(q.size(2) == cache_head_dim(k_cache) && q.size(1) % k_cache.size(2) == 0, "head_dim / GQA mismatch");
  TORCH_CHECK(k_cache.is_contiguous() && v_cache.is_contiguous(), "caches must be contiguous");
  TORCH_CHECK(block_tables.scalar_type() == at::kInt && seq_lens.scalar_type() == at::kInt,
              "block_tables and seq_lens are int32");
  TORCH_CHECK(block_tables.size(0) >= q.size(0) && seq_lens.size(0) >= q.size(0), "one table row per query");
  const at::Tensor qc = q.contiguous();
  const at::Tensor tables = block_tables.stride(1) == 1 ? block_tables : block_tables.contiguous();
  const at::Tensor lens = seq_lens.contiguous();
  at::Tensor out = at::empty_like(qc);
  if (int8) {
#ifdef WARDEN_BF16_ATTENTION
    TORCH_CHECK(q.size(2) % 16 == 0, "int8 caches take a head_dim that is a multiple of 16");
    if (q.scalar_type() == at::kBFloat16) {
      decode_attention_int8<at::BFloat16>(qc, k_cache, v_cache, tables, lens, scale, window, softcap, out);
    } else {
      TORCH_CHECK(q.scalar_type() == at::kFloat, "int8 caches take bfloat16 or float32 queries");
      decode_attention_int8<float>(qc, k_cache, v_cache, tables, lens, scale, window, softcap, out);
    }
    return out;
#else
    TORCH_CHECK(false, "int8 caches need AVX512-BF16 here (kernels.cpu sends them to the reference elsewhere)");
#endif
  }
#ifdef WARDEN_BF16_ATTENTION
  if (q.scalar_type() == at::kBFloat16 && q.size(2) % 32 == 0) {
    decode_attention_bf16(qc, k_cache, v_cache, tables, lens, scale, window, softcap, out);
    return out;
  }
#endif
#ifdef WARDEN_AVX2_ATTENTION
  if (q.size(2) % 16 == 0 && q.scalar_type() == at::kBFloat16) {
    decode_attention_avx2<at::BFloat16>(qc, k_cache, v_cache, tables, lens, scale, window, softcap, out);
    return out;
  }
  if (q.size(2) % 16 == 0 && q.scalar_type() == at::kHalf) {
    decode_attention_avx2<at::Half>(qc, k_cache, v_cache, tables, lens, scale, window, softcap, out);
    return out;
  }
#endif
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, q.scalar_type(), "decode_attention", [&] {
    decode_attention_kernel<scalar_t>(qc, k_cache, v_cache, tables, lens, scale, window, softcap, out);
  });
  return out;
}

template <typename scalar_t>
void store_rows(const at::Tensor& rows, const at::Tensor& cache, const int64_t* slots, int64_t num_tokens) {
  // rows [tokens, kv_heads, head_dim] with contiguous heads (a view into the fused qkv row); cache rows contiguous.
  const int64_t row = cache.size(2) * cache.size(3);
  const int64_t num_slots = cache.size(0) * cache.size(1);
  const scalar_t* src = rows.const_data_ptr<scalar_t>();
  scalar_t* dst = cache.mutable_data_ptr<scalar_t>();
  const int64_t stride = rows.stride(0);
  for (int64_t t = 0; t < num_tokens; ++t) {
    const int64_t slot = slots[t];
    if (slot < 0) continue;  // a padding row (as the Triton store skips it)
    TORCH_CHECK(slot < num_slots, "slot ", slot, " outside the cache's ", num_slots);
    std::memcpy(dst + slot * row, src + t * stride, row * sizeof(scalar_t));
  }
}

// rows [tokens, kv_heads, head_dim] (any float dtype) quantized into an int8 cache's rows: per (token, kv head) the
// codes round(x * (127 / absmax)) and the float32 scale absmax / 127 after them (kernels/reference/kv_int8.py, the
// same float32 operations); a row of zeros stores zeros.
void store_int8_rows(const at::Tensor& rows, const at::Tensor& cache, const int64_t* slots, int64_t num_tokens) {
  const at::Tensor x = rows.to(at::kFloat).contiguous();
  const int64_t kv_heads = cache.size(2), head_dim = cache.size(3) - 4;
  const int64_t num_slots = cache.size(0) * cache.size(1);
  const float* src = x.const_data_ptr<float>();
  auto* dst = static_cast<int8_t*>(cache.data_ptr());
  for (int64_t t = 0; t < num_tokens; ++t) {
    const int64_t slot = slots[t];
    if (slot < 0) continue;  // a padding row
    TORCH_CHECK(slot < num_slots, "slot ", slot, " outside the cache's ", num_slots);
    for (int64_t h = 0; h < kv_heads; ++h) {
      const float* in = src + (t * kv_heads + h) * head_dim;
      int8_t* row = dst + (slot * kv_heads + h) * (head_dim + 4);
      float absmax = 0.f;
      for (int64_t d = 0; d < head_dim; ++d) absmax = std::max(absmax, std::fabs(in[d]));
      const float inverse = absmax > 0.f ? 127.f / absmax : 0.f;
      for (int64_t d = 0; d < head_dim; ++d)
        row[d] = static_cast<int8_t>(std::clamp(std::nearbyint(in[d] * inverse), -127.f, 127.f));
      const float scale = absmax / 127.f;
      std::memcpy(row + head_dim, &scale, sizeof scale);
    }
  }
}

void store_kvcache(const at::Tensor& key, const at::Tensor& value, const at::Tensor& k_cache,
                   const at::Tensor& v_cache, const at::Tensor& slot_mapping) {
  TORCH_CHECK(key.dim() == 3 && value.sizes() == key.sizes() && k_cache.dim() == 4 &&
                  v_cache.sizes() == k_cache.sizes(),
              "key/value [tokens, kv_heads, head_dim], caches [blocks, block_size, kv_heads, head_dim]");
  TORCH_CHECK(key.size(1) == k_cache.size(2) && key.size(2) == cache_head_dim(k_cache), "kv_heads / head_dim mismatch");
  TORCH_CHECK(k_cache.is_contiguous() && v_cache.is_contiguous(), "caches must be contiguous");
  TORCH_CHECK(slot_mapping.scalar_type() == at::kLong && slot_mapping.size(0) == key.size(0),
              "slot_mapping is int64, one slot per token");
  if (k_cache.scalar_type() == at::kChar) {
    TORCH_CHECK(v_cache.scalar_type() == at::kChar, "both caches int8");
    const at::Tensor slots = slot_mapping.contiguous();
    store_int8_rows(key, k_cache, slots.const_data_ptr<int64_t>(), key.size(0));
    store_int8_rows(value, v_cache, slots.const_data_ptr<int64_t>(), value.size(0));
    return;
  }
  // The reference casts to the cache's dtype and accepts any layout: do the same where the fast path cannot.
  auto packed = [&](const at::Tensor& rows) {
    at::Tensor cast = rows.to(k_cache.scalar_type());
    return cast.stride(2) == 1 && cast.stride(1) == cast.size(2) ? cast : cast.contiguous();
  };
  const at::Tensor k = packed(key), v = packed(value);
  const at::Tensor slots = slot_mapping.contiguous();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, k_cache.scalar_type(), "store_kvcache", [&] {
    store_rows<scalar_t>(k, k_cache, slots.const_data_ptr<int64_t>(), k.size(0));
    store_rows<scalar_t>(v, v_cache, slots.const_data_ptr<int64_t>(), v.size(0));
  });
}

// ---- The compiled decoder's attention: store and attend in one call, from the step's state set once ----
//
// Inside a compiled forward every layer calls warden_cpu::attend_step(q, k, v, layer, ...). The step's metadata and
// every layer's cache tensors are set once per step by set_attention_step (engine/worker/forward_context.py, outside
// the graph), so a layer's call goes from the graph's C++ wrapper through the dispatcher to the kernels above without
// entering Python. What these kernels do not serve (prefill chunks with a window or soft-cap or without the bf16
// prefill kernel, caches of another float dtype than the queries, int8 caches without AVX512-BF16) and a call with no
// step set here (forced kernels, WARDEN_KERNELS=reference) take warden::paged_attention, the Python op that reads the
// forward context: same results, with the Python cost of that call.

struct AttentionStep {
  bool set = false;
  std::vector<at::Tensor> k_caches, v_caches;
  at::Tensor slot_mapping, block_tables, seq_lens, query_start;
  int64_t num_decodes = 0, max_query_len = 0, short_query = 0;
  // Short queries (max_query_len <= short_query, not all decodes) that short_query_attention does not serve (a
  // window, caches it does not read): one decode row per query token, with its sequence's block-table row and its
  // own context length (kernels/cpu/__init__.py token_rows). Built by the first layer of the step that reads them,
  // not when the step is set: where every layer takes the one pass (bf16 caches, no window: the serving path), a
  // verify step never builds them.
  at::Tensor token_tables, token_lens;
};

AttentionStep& attention_step() {
  static AttentionStep step;
  return step;
}

void token_rows(AttentionStep& s) {
  const at::Tensor starts = s.query_start.contiguous(), lens = s.seq_lens.contiguous();
  const int32_t* start = starts.const_data_ptr<int32_t>();
  const int32_t* len = lens.const_data_ptr<int32_t>();
  const int64_t num_seqs = lens.size(0), num_tokens = start[num_seqs] - start[0];
  std::vector<int64_t> seq(num_tokens);
  at::Tensor token_lens = at::empty({num_tokens}, lens.options());
  int32_t* out = token_lens.mutable_data_ptr<int32_t>();
  for (int64_t b = 0; b < num_seqs; ++b) {
    const int64_t q_len = start[b + 1] - start[b];
    for (int64_t i = 0; i < q_len; ++i) {
      seq[start[b] - start[0] + i] = b;
      out[start[b] - start[0] + i] = static_cast<int32_t>(len[b] - q_len + i + 1);
    }
  }
  s.token_tables = s.block_tables.index_select(0, at::tensor(seq, at::kLong));
  s.token_lens = token_lens;
}

void set_attention_step(at::TensorList k_caches, at::TensorList v_caches, const at::Tensor& slot_mapping,
                        const at::Tensor& block_tables, const at::Tensor& seq_lens, const at::Tensor& query_start,
                        int64_t num_decodes, int64_t max_query_len, int64_t short_query) {
  TORCH_CHECK(k_caches.size() == v_caches.size(), "one key and one value cache per layer");
  TORCH_CHECK(slot_mapping.device().is_cpu() && block_tables.device().is_cpu(), "the step's metadata on the CPU");
  TORCH_CHECK(block_tables.scalar_type() == at::kInt && seq_lens.scalar_type() == at::kInt &&
                  query_start.scalar_type() == at::kInt && query_start.size(0) == seq_lens.size(0) + 1,
              "int32 block_tables, seq_lens, query_start (one more than seq_lens)");
  AttentionStep& s = attention_step();
  // The caches are the same tensors step after step: copied only when they change.
  const bool same = s.k_caches.size() == k_caches.size() &&
                    std::equal(k_caches.begin(), k_caches.end(), s.k_caches.begin(),
                               [](const at::Tensor& a, const at::Tensor& b) { return a.is_same(b); }) &&
                    std::equal(v_caches.begin(), v_caches.end(), s.v_caches.begin(),
                               [](const at::Tensor& a, const at::Tensor& b) { return a.is_same(b); });
  if (!same) {
    s.k_caches.assign(k_caches.begin(), k_caches.end());
    s.v_caches.assign(v_caches.begin(), v_caches.end());
  }
  s.slot_mapping = slot_mapping.contiguous();
  s.block_tables = block_tables.stride(1) == 1 ? block_tables : block_tables.contiguous();
  s.seq_lens = seq_lens.contiguous();
  s.query_start = query_start.contiguous();
  s.num_decodes = num_decodes;
  s.max_query_len = max_query_len;
  s.short_query = short_query;
  s.token_tables = s.token_lens = at::Tensor();  // this step's, if a layer reads them (attend_step)
  s.set = true;
}

// Forgets the step and the caches (the forward context's end): nothing keeps an engine's cache alive after it.
void clear_attention_step() { attention_step() = AttentionStep(); }

// Whether the kernels here serve this layer's call of the current step (else the Python op does).
bool step_served(const AttentionStep& s, const at::Tensor& q, const at::Tensor& k_cache, int64_t window,
                 double softcap) {
  if (!q.device().is_cpu()) return false;
  const bool int8 = k_cache.scalar_type() == at::kChar;
  if (!int8 && k_cache.scalar_type() != q.scalar_type()) return false;
#ifndef WARDEN_BF16_ATTENTION
  if (int8) return false;
#endif
  const bool only_rows = s.num_decodes == s.seq_lens.size(0) || s.max_query_len <= s.short_query;
  if (only_rows) return true;
#ifdef WARDEN_BF16_ATTENTION
  return window <= 0 && softcap <= 0 && q.scalar_type() == at::kBFloat16 && q.size(2) % 32 == 0;
#else
  return false;
#endif
}

at::Tensor python_paged_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t layer,
                                  double scale, int64_t window, double softcap) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("warden::paged_attention", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, int64_t,
                                               double, int64_t, double, c10::IntArrayRef)>();
  return op.call(q, k, v, layer, scale, window, softcap, c10::IntArrayRef());
}

at::Tensor attend_step(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t layer, double scale,
                       int64_t window, double softcap) {
  AttentionStep& s = attention_step();
  if (!s.set) return python_paged_attention(q, k, v, layer, scale, window, softcap);
  TORCH_CHECK(layer >= 0 && layer < static_cast<int64_t>(s.k_caches.size()), "layer ", layer, " has no cache bound");
  const at::Tensor &k_cache = s.k_caches[layer], &v_cache = s.v_caches[layer];
  if (!step_served(s, q, k_cache, window, softcap))
    return python_paged_attention(q, k, v, layer, scale, window, softcap);
  store_kvcache(k, v, k_cache, v_cache, s.slot_mapping);
  const int64_t nd = s.num_decodes;
  if (nd == s.seq_lens.size(0))
    return decode_attention(q, k_cache, v_cache, s.block_tables, s.seq_lens, scale, window, softcap);
  if (s.max_query_len <= s.short_query) {
    if (short_query_attention_serves(q, k_cache, window))
      return short_query_attention(q, k_cache, v_cache, s.block_tables, s.seq_lens, s.query_start, nd, scale,
                                   softcap);
    if (!s.token_tables.defined()) token_rows(s);  // once per step, for every layer that reads them
    return decode_attention(q, k_cache, v_cache, s.token_tables, s.token_lens, scale, window, softcap);
  }
  at::Tensor out = at::empty(q.sizes(), q.options());  // contiguous, as the prefill kernel writes it
  if (nd > 0)
    out.narrow(0, 0, nd).copy_(
        decode_attention(q.narrow(0, 0, nd), k_cache, v_cache, s.block_tables, s.seq_lens, scale, window, softcap));
  return prefill_attention(q.contiguous(), k_cache, v_cache, s.block_tables, s.seq_lens, s.query_start, nd, scale,
                           out);
}

}  // namespace

TORCH_LIBRARY(warden_cpu, m) {
  m.def("decode_attention(Tensor q, Tensor k_cache, Tensor v_cache, Tensor block_tables, Tensor seq_lens, "
        "float scale, int window=0, float softcap=0.) -> Tensor");
  m.def("prefill_attention(Tensor q, Tensor k_cache, Tensor v_cache, Tensor block_tables, Tensor seq_lens, "
        "Tensor query_start, int first_seq, float scale, Tensor(a!) out) -> Tensor(a!)");
  m.def("prefill_attention_runs() -> bool", [] {
#ifdef WARDEN_BF16_ATTENTION
    return true;
#else
    return false;
#endif
  });
  m.def("int8_attention_runs() -> bool", [] {
#ifdef WARDEN_BF16_ATTENTION
    return true;
#else
    return false;
#endif
  });
  m.def("store_kvcache(Tensor key, Tensor value, Tensor(a!) k_cache, Tensor(b!) v_cache, Tensor slot_mapping) -> ()");
  m.def("set_attention_step(Tensor[] k_caches, Tensor[] v_caches, Tensor slot_mapping, Tensor block_tables, "
        "Tensor seq_lens, Tensor query_start, int num_decodes, int max_query_len, int short_query) -> ()",
        &set_attention_step);
  m.def("short_query_attention(Tensor q, Tensor k_cache, Tensor v_cache, Tensor block_tables, Tensor seq_lens, "
        "Tensor query_start, int num_decodes, float scale, float softcap=0.) -> Tensor");
  m.def("clear_attention_step() -> ()", &clear_attention_step);
  // Whether the step set holds its per-token rows (built by the first layer that reads them): for tests.
  m.def("attention_step_token_rows() -> bool", [] { return attention_step().token_tables.defined(); });
  m.def("attend_step(Tensor q, Tensor k, Tensor v, int layer, float scale, int window=0, float softcap=0.) -> Tensor");
}

TORCH_LIBRARY_IMPL(warden_cpu, CPU, m) {
  m.impl("decode_attention", &decode_attention);
  m.impl("prefill_attention", &prefill_attention);
  m.impl("short_query_attention", &short_query_attention);
  m.impl("store_kvcache", &store_kvcache);
  m.impl("attend_step", &attend_step);
}
