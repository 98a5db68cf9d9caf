// The int8 linear for many rows in bfloat16 on AVX512-BF16 CPUs (the LM head of decode steps above the small
// batches, int8 layers above the small-batch rows), reading the same weights as int8_linear.cpp (int8 [N, K],
// per-output-row scales). int8_linear_up_to (int8_linear.cpp) runs it above its kernel rows (cpu_linears.h).
//
// Built with the other CPU kernels by kernels/cpu/__init__.py; registered as torch.ops.warden_cpu.int8_gemm_bf16,
// int8_gemm_bf16_runs and int8_gemm_bf16_serves.

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "cpu_linears.h"
#include "quantize_input.h"
#include "store_rounded.h"
#include "widen_bf16.h"

#if defined(WARDEN_ONE_ROW_VECTOR) && defined(__AVX512BF16__)
#define WARDEN_INT8_BF16_GEMM 1
#endif

namespace {

using warden::kPrefetchBytes;

#ifdef WARDEN_INT8_BF16_GEMM


// Many rows in bfloat16 (the LM head of decode steps above the small batches, int8 layers above the small-batch
// rows) on AVX512-BF16 CPUs: the inputs unquantized and the products exact (an int8 is exact in bfloat16), float32
// sums, as torch's kernel computes them but 32 products per instruction where it makes 16 float FMAs after
// converting every weight to float. Every call converts the weights it reads once, so two layouts, by row count:
//
// Up to kLanesMaxRows rows, lanes along k: each 32-bit lane of a weight vector holds one output row's two bf16
// weights (k, k+1) and the input vector the same two inputs, so vdpbf16ps accumulates 16 partial dot products of one
// (input row, output row) pair, summed across lanes at the end. The conversion has no shuffles: per 64 weights (one
// row, one 512-bit load, 4 bytes per lane) shift pairs sign-extend bytes 0-3 of each lane, four conversions make
// them floats (exact, their low 16 bits zero, so a float's high half is its bf16), and two ternary-logic ops join
// bytes 0-1 and 2-3 as bf16 pairs: lanes (k 4j, 4j+1) in one vector, (4j+2, 4j+3) in another (the inputs are split
// the same way once per call). A tile of 4 output rows is converted into L1 and dotted with every tile of 4 input
// rows: 16 accumulators, reduced by one shuffle tree to 16 results, a cost per result that grows with the rows.
//
// Above, lanes along output rows (broadcast): each 64-row block converted into vdpbf16ps operands (per pair of k,
// four vectors of 16 rows, each lane one row's two bf16 weights, by a 16 x 16 word transposition), then every input
// row's broadcast (x_k, x_k+1) pair is dotted with them: no reduction, but a conversion of ~0.09 ns a weight (all
// shuffles, and the 73 KB block goes through L2).
//
// SmolLM2's head (576 -> 49152), one Zen 5 core, ms per call, alternating in one process (k-lanes vs broadcast vs the
// two-level int8 kernel): 4 rows 1.50 / 2.46 / 1.35, 8 rows 2.17 / 2.93 / 2.54, 16 rows 3.75 / 4.12 / 5.44, 24 rows
// 6.90 / 5.56 / 8.10, 32 rows 8.26 / 6.20 / 11.1, 64 rows 13.7 / 10.2 / 21.2.
constexpr int64_t kLanesMaxRows = 16;
constexpr int64_t kGemmBlockRows = 64;  // output rows converted (broadcast) or buffered (k-lanes) together
constexpr int kGemmTileInputs = 4;  // input rows dotted at a time with a converted tile or block
constexpr int kLanesTileRows = 4;  // k-lanes: output rows converted and dotted together
constexpr int64_t kLanesChunkWords = 32;  // k-lanes: bf16 pairs per 64 k, 16 of (4j, 4j+1) then 16 of (4j+2, 4j+3)

// A 64-row block's scales as float32.
inline void load_block_scales(const c10::BFloat16* scales, __m512 (&out)[4]) {
  for (int j = 0; j < 4; ++j) out[j] = warden::load_bf16(scales + 16 * j);
}

// Pointers to input rows m0 .. m0 + T - 1 of `xs` (K / 2 words a row: bf16 pairs, split or not).
template <int T>
inline std::array<const uint32_t*, T> input_rows(const uint32_t* xs, int64_t m0, int64_t K) {
  std::array<const uint32_t*, T> rows;
  for (int t = 0; t < T; ++t) rows[t] = xs + (m0 + t) * (K / 2);
  return rows;
}

// f(std::integral_constant<int, T>{}) for the T = `rows` (1 .. kGemmTileInputs) input rows of a tile: the count as
// a template argument, so that the tile's accumulators are registers.
template <typename F>
inline void with_tile_inputs(int64_t rows, F&& f) {
  switch (rows) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    default: f(std::integral_constant<int, kGemmTileInputs>{}); break;
  }
}

// One input row's 64 dot products of a block, scaled in place and rounded once into the output.
inline void store_scaled(float* dots, const __m512 (&scales)[4], c10::BFloat16* out) {
  for (int j = 0; j < 4; ++j) _mm512_storeu_ps(dots + 16 * j, _mm512_mul_ps(_mm512_loadu_ps(dots + 16 * j), scales[j]));
  warden::store_rounded(dots, out, kGemmBlockRows);
}

// --- the k-lanes layout (up to kLanesMaxRows rows) ---

// Each input row's bf16 pairs in the weights' order: per 64 k, the even pairs (k 4j, 4j+1) then the odd ones.
std::vector<uint32_t> split_input_pairs(const c10::BFloat16* x, int64_t M, int64_t K) {
  std::vector<uint32_t> out(M * K / 2);
  alignas(64) int32_t even[16], odd[16];
  for (int j = 0; j < 16; ++j) even[j] = 2 * j, odd[j] = 2 * j + 1;
  const __m512i even_words = _mm512_load_si512(even), odd_words = _mm512_load_si512(odd);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; k += 64) {
      const auto* pairs = reinterpret_cast<const uint32_t*>(x + m * K + k);
      const __m512i low = _mm512_loadu_si512(pairs), high = _mm512_loadu_si512(pairs + 16);
      uint32_t* dst = out.data() + (m * K + k) / 2;
      _mm512_storeu_si512(dst, _mm512_permutex2var_epi32(low, even_words, high));
      _mm512_storeu_si512(dst + 16, _mm512_permutex2var_epi32(low, odd_words, high));
    }
  return out;
}

// Byte `Byte` (0-3) of each 32-bit lane as a float (sign-extended: an exact integer -128 .. 127).
template <int Byte>
inline __m512i byte_as_float_bits(__m512i v) {
  const __m512i extended =
      Byte == 3 ? _mm512_srai_epi32(v, 24) : _mm512_srai_epi32(_mm512_slli_epi32(v, 24 - 8 * Byte), 24);
  return _mm512_castps_si512(_mm512_cvtepi32_ps(extended));
}

// bf16 pairs (low: the float `first`'s high half, high: `second`'s): (first >> 16) | (second & 0xFFFF0000).
inline __m512i bf16_pairs(__m512i first, __m512i second) {
  const __m512i high_half = _mm512_set1_epi32(static_cast<int>(0xFFFF0000));
  return _mm512_ternarylogic_epi32(_mm512_srli_epi32(first, 16), second, high_half, 0xF8);
}

// kLanesTileRows weight rows from `w` as split pairs: tile[(r * chunks + c) * 2 + half].
inline void convert_tile(const int8_t* w, int64_t K, __m512i* tile) {
  const int64_t chunks = K / 64;
  for (int r = 0; r < kLanesTileRows; ++r)
    for (int64_t c = 0; c < chunks; ++c) {
      const __m512i v = _mm512_loadu_si512(w + r * K + 64 * c);
      tile[(r * chunks + c) * 2] = bf16_pairs(byte_as_float_bits<0>(v), byte_as_float_bits<1>(v));
      tile[(r * chunks + c) * 2 + 1] = bf16_pairs(byte_as_float_bits<2>(v), byte_as_float_bits<3>(v));
    }
}

// The 16 vectors' lane sums as one vector: lane e = sum of v[e]'s lanes. Pairs of 32-bit lanes, then of 64-bit
// halves, within each 128-bit lane; then the 128-bit lanes in two steps. Each vector's lanes are added in the same
// order wherever it stands, so a row's results do not depend on its tile.
inline __m512 sum_lanes_16(const __m512 (&v)[16]) {
  __m512 pairs[8], quads[4], halves[2];
  for (int i = 0; i < 8; ++i)
    pairs[i] = _mm512_add_ps(_mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]), _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]));
  for (int i = 0; i < 4; ++i) {
    const __m512d a = _mm512_castps_pd(pairs[2 * i]), b = _mm512_castps_pd(pairs[2 * i + 1]);
    quads[i] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(a, b)), _mm512_castpd_ps(_mm512_unpackhi_pd(a, b)));
  }
  for (int i = 0; i < 2; ++i)
    halves[i] = _mm512_add_ps(_mm512_shuffle_f32x4(quads[2 * i], quads[2 * i + 1], 0x88),
                              _mm512_shuffle_f32x4(quads[2 * i], quads[2 * i + 1], 0xDD));
  return _mm512_add_ps(_mm512_shuffle_f32x4(halves[0], halves[1], 0x88),
                       _mm512_shuffle_f32x4(halves[0], halves[1], 0xDD));
}

// T input rows (split pairs, K / 2 words each) against one converted tile: out[t * 4 + r] = (row t) . (weight row r).
template <int T>
void lanes_gemm_tile(const __m512i* tile, const std::array<const uint32_t*, T>& x, int64_t K, float* out) {
  const int64_t chunks = K / 64;
  __m512 acc[16];
  for (int e = 0; e < 16; ++e) acc[e] = _mm512_setzero_ps();
  for (int64_t c = 0; c < chunks; ++c) {
    __m512i even[kLanesTileRows], odd[kLanesTileRows];
    for (int r = 0; r < kLanesTileRows; ++r) {
      even[r] = _mm512_load_si512(tile + (r * chunks + c) * 2);
      odd[r] = _mm512_load_si512(tile + (r * chunks + c) * 2 + 1);
    }
    for (int t = 0; t < T; ++t) {
      const __m512bh x_even = (__m512bh)_mm512_loadu_si512(x[t] + c * kLanesChunkWords);
      const __m512bh x_odd = (__m512bh)_mm512_loadu_si512(x[t] + c * kLanesChunkWords + 16);
      for (int r = 0; r < kLanesTileRows; ++r) {
        acc[t * 4 + r] = _mm512_dpbf16_ps(acc[t * 4 + r], (__m512bh)even[r], x_even);
        acc[t * 4 + r] = _mm512_dpbf16_ps(acc[t * 4 + r], (__m512bh)odd[r], x_odd);
      }
    }
  }
  _mm512_storeu_ps(out, sum_lanes_16(acc));
}

void lanes_gemm_kernel(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales, at::Tensor& out) {
  const int64_t M = x.size(0), K = x.size(1), N = weight.size(0);
  const std::vector<uint32_t> xs = split_input_pairs(x.const_data_ptr<c10::BFloat16>(), M, K);
  const int8_t* w = weight.const_data_ptr<int8_t>();
  const c10::BFloat16* s = scales.const_data_ptr<c10::BFloat16>();
  c10::BFloat16* y = out.mutable_data_ptr<c10::BFloat16>();
  at::parallel_for(0, N / kGemmBlockRows, 1, [&](int64_t begin, int64_t end) {
    std::vector<__m512i> tile(kLanesTileRows * K / 64 * 2);  // one tile converted: 4 rows x K bf16, in L1
    std::vector<float> block_out(M * kGemmBlockRows);  // per input row, the block's 64 results
    alignas(64) float dots[16];
    for (int64_t b = begin; b < end; ++b) {
      const int64_t n0 = b * kGemmBlockRows;
      for (int64_t r0 = 0; r0 < kGemmBlockRows; r0 += kLanesTileRows) {
        convert_tile(w + (n0 + r0) * K, K, tile.data());
        for (int64_t m0 = 0; m0 < M; m0 += kGemmTileInputs) {
          const int64_t rows = std::min<int64_t>(kGemmTileInputs, M - m0);
          with_tile_inputs(rows, [&](auto inputs) {
            constexpr int T = decltype(inputs)::value;
            lanes_gemm_tile<T>(tile.data(), input_rows<T>(xs.data(), m0, K), K, dots);
          });
          for (int64_t t = 0; t < rows; ++t)
            for (int r = 0; r < kLanesTileRows; ++r) block_out[(m0 + t) * kGemmBlockRows + r0 + r] = dots[t * 4 + r];
        }
      }
      __m512 block_scales[4];
      load_block_scales(s + n0, block_scales);
      for (int64_t m = 0; m < M; ++m) store_scaled(block_out.data() + m * kGemmBlockRows, block_scales, y + m * N + n0);
    }
  });
}

// --- the broadcast layout (more than kLanesMaxRows rows) ---

// The 16 x 16 matrix of 32-bit words in r[0..15] transposed in place: afterwards r[t] lane i is r[i] lane t before.
// Pairs of words, then of 64-bit halves, within each 128-bit lane; then the 128-bit lanes, in two steps.
inline void transpose_16x16(__m512i (&r)[16]) {
  __m512i t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
  }
  // r[4q + c] lane L: column 4L + c of rows 4q .. 4q + 3
  for (int q = 0; q < 4; ++q) {
    r[4 * q] = _mm512_unpacklo_epi64(t[4 * q], t[4 * q + 2]);
    r[4 * q + 1] = _mm512_unpackhi_epi64(t[4 * q], t[4 * q + 2]);
    r[4 * q + 2] = _mm512_unpacklo_epi64(t[4 * q + 1], t[4 * q + 3]);
    r[4 * q + 3] = _mm512_unpackhi_epi64(t[4 * q + 1], t[4 * q + 3]);
  }
  // t[c] (c < 4): columns c and 8 + c of rows 0-7; t[4 + c]: columns 4 + c and 12 + c; t[8 ..]: the same of rows 8-15
  for (int half = 0; half < 2; ++half)
    for (int c = 0; c < 4; ++c) {
      t[8 * half + c] = _mm512_shuffle_i32x4(r[8 * half + c], r[8 * half + 4 + c], 0x88);
      t[8 * half + 4 + c] = _mm512_shuffle_i32x4(r[8 * half + c], r[8 * half + 4 + c], 0xDD);
    }
  for (int c = 0; c < 8; ++c) {
    r[c] = _mm512_shuffle_i32x4(t[c], t[8 + c], 0x88);
    r[8 + c] = _mm512_shuffle_i32x4(t[c], t[8 + c], 0xDD);
  }
}

// Weight rows 0..63 from `w` (int8 [.., K]) as vdpbf16ps operands: codes[kp * 4 + j] lane i holds the bf16 pair
// (w[16j + i, 2kp], w[16j + i, 2kp + 1]). Each 16 rows are converted row-major into `staging` (16 x K bf16, in L1),
// then transposed 16 x 16 words at a time. An int8 is exact in float32 with its low 16 bits zero, so its bf16 is
// the float's high half, and one word permute packs 32 of them (vcvtne2ps2bf16's rounding has nothing to round).
// The conversion is nearly all of the cost at one row, which is why this layout serves only the steps of more than
// kLanesMaxRows rows.
inline void convert_int8_block(const int8_t* w, int64_t K, uint32_t* staging, __m512i* codes) {
  const int64_t words = K / 2;
  alignas(64) int16_t odd[32];
  for (int i = 0; i < 32; ++i) odd[i] = static_cast<int16_t>(2 * i + 1);
  const __m512i odd_words = _mm512_load_si512(odd);
  for (int j = 0; j < kGemmBlockRows / 16; ++j) {
    for (int64_t row = 0; row < 16; ++row) {
      const int8_t* src = w + (16 * j + row) * K;
      for (int64_t k = 0; k < K; k += 32) {
        if (k % 64 == 0) _mm_prefetch(reinterpret_cast<const char*>(src + k) + kPrefetchBytes, _MM_HINT_T0);
        const __m512 low = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(
            reinterpret_cast<const __m128i*>(src + k))));
        const __m512 high = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(
            reinterpret_cast<const __m128i*>(src + k + 16))));
        _mm512_storeu_si512(staging + row * words + k / 2,
                            _mm512_permutex2var_epi16(_mm512_castps_si512(low), odd_words, _mm512_castps_si512(high)));
      }
    }
    for (int64_t kp0 = 0; kp0 < words; kp0 += 16) {
      __m512i tile[16];
      for (int i = 0; i < 16; ++i) tile[i] = _mm512_loadu_si512(staging + i * words + kp0);
      transpose_16x16(tile);
      for (int t = 0; t < 16; ++t) _mm512_store_si512(codes + (kp0 + t) * 4 + j, tile[t]);
    }
  }
}

// R input rows (bf16 (k, k+1) pairs as 32-bit words) times one converted block: y[r] receives row r's 64 dot
// products, unscaled.
template <int R>
void broadcast_gemm_tile(const __m512i* codes, const std::array<const uint32_t*, R>& x, int64_t K,
                         float (&y)[kGemmTileInputs][kGemmBlockRows]) {
  __m512 acc[R][4];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < 4; ++j) acc[r][j] = _mm512_setzero_ps();
  for (int64_t kp = 0; kp < K / 2; ++kp) {
    const __m512i* w = codes + kp * 4;
    for (int r = 0; r < R; ++r) {
      const __m512bh pair = (__m512bh)_mm512_set1_epi32(static_cast<int>(x[r][kp]));
      for (int j = 0; j < 4; ++j) acc[r][j] = _mm512_dpbf16_ps(acc[r][j], (__m512bh)_mm512_load_si512(w + j), pair);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < 4; ++j) _mm512_storeu_ps(y[r] + 16 * j, acc[r][j]);
}

void broadcast_gemm_kernel(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales, at::Tensor& out) {
  const int64_t M = x.size(0), K = x.size(1), N = weight.size(0);
  const auto* xs = reinterpret_cast<const uint32_t*>(x.const_data_ptr<c10::BFloat16>());
  const int8_t* w = weight.const_data_ptr<int8_t>();
  const c10::BFloat16* s = scales.const_data_ptr<c10::BFloat16>();
  c10::BFloat16* y = out.mutable_data_ptr<c10::BFloat16>();
  at::parallel_for(0, N / kGemmBlockRows, 1, [&](int64_t begin, int64_t end) {
    std::vector<__m512i> codes(K / 2 * 4);  // one block converted: K / 2 x 256 bytes, read from L1/L2 per tile
    std::vector<uint32_t> staging(16 * K / 2);
    alignas(64) float dots[kGemmTileInputs][kGemmBlockRows];
    for (int64_t b = begin; b < end; ++b) {
      const int64_t n0 = b * kGemmBlockRows;
      convert_int8_block(w + n0 * K, K, staging.data(), codes.data());
      __m512 block_scales[4];
      load_block_scales(s + n0, block_scales);
      for (int64_t m0 = 0; m0 < M; m0 += kGemmTileInputs) {
        const int64_t tile = std::min<int64_t>(kGemmTileInputs, M - m0);
        with_tile_inputs(tile, [&](auto inputs) {
          constexpr int R = decltype(inputs)::value;
          broadcast_gemm_tile<R>(codes.data(), input_rows<R>(xs, m0, K), K, dots);
        });
        for (int64_t r = 0; r < tile; ++r) store_scaled(dots[r], block_scales, y + (m0 + r) * N + n0);
      }
    }
  });
}

void int8_gemm_bf16_kernel(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales, at::Tensor& out) {
  if (x.size(0) <= kLanesMaxRows) {
    lanes_gemm_kernel(x, weight, scales, out);
  } else {
    broadcast_gemm_kernel(x, weight, scales, out);
  }
}


#endif  // WARDEN_INT8_BF16_GEMM

}  // namespace

namespace warden::int8 {

// Whether int8_gemm_bf16 is built here (AVX512-BF16).
bool bf16_gemm_built() {
#ifdef WARDEN_INT8_BF16_GEMM
  return true;
#else
  return false;
#endif
}

// Whether int8_linear_up_to runs the bf16 GEMM above its kernel rows for `out_features` outputs in `dtype`: the one
// statement of that rule, which the engine also asks (kernels.dispatch.cpu_int8_gemm_runs) to pick its LM head's rows.
bool bf16_gemm_serves(c10::ScalarType dtype, int64_t out_features) {
  return bf16_gemm_built() && dtype == at::kBFloat16 && out_features % 64 == 0;
}

// The bf16 GEMM for many rows (above): bfloat16 inputs and scales, whole blocks of 64 output rows.
at::Tensor gemm_bf16(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales) {
  TORCH_CHECK(bf16_gemm_built(), "int8_gemm_bf16 needs AVX512-BF16; use torch._weight_int8pack_mm");
  check_inputs(x, weight, scales);
  TORCH_CHECK(x.scalar_type() == at::kBFloat16, "int8_gemm_bf16 takes bfloat16 inputs");
  TORCH_CHECK(weight.size(0) % 64 == 0, "int8_gemm_bf16 converts 64 output rows at a time: N must be a multiple of "
              "64, got ", weight.size(0));
  at::Tensor out = at::empty({x.size(0), weight.size(0)}, x.options());
#ifdef WARDEN_INT8_BF16_GEMM
  int8_gemm_bf16_kernel(x.contiguous(), weight, scales, out);
#endif
  return out;
}

}  // namespace warden::int8

TORCH_LIBRARY_FRAGMENT(warden_cpu, m) {
  m.def("int8_gemm_bf16_runs() -> bool", [] { return warden::int8::bf16_gemm_built(); });
  m.def("int8_gemm_bf16_serves(ScalarType dtype, int out_features) -> bool",
        [](c10::ScalarType dtype, int64_t out_features) { return warden::int8::bf16_gemm_serves(dtype, out_features); });
  m.def("int8_gemm_bf16(Tensor x, Tensor weight, Tensor scales) -> Tensor");
}

TORCH_LIBRARY_IMPL(warden_cpu, CPU, m) { m.impl("int8_gemm_bf16", &warden::int8::gemm_bf16); }
