// The int4 linear for many rows in bfloat16 on AVX512-BF16 CPUs (prefill chunks, decode steps above the small-batch
// rows), reading the same weights as int4_linear.cpp (torch's CPU int4 packing, int4_blocks.h). int4_linear_up_to
// (int4_linear.cpp) runs it above its kernel rows (cpu_linears.h).
//
// Built with the other CPU kernels by kernels/cpu/__init__.py; registered as torch.ops.warden_cpu.int4_gemm_bf16,
// int4_gemm_bf16_runs and int4_gemm_bf16_serves.

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "cpu_linears.h"
#include "int4_blocks.h"
#include "quantize_input.h"
#include "widen_bf16.h"

#if defined(WARDEN_ONE_ROW_VECTOR) && defined(__AVX512BF16__)
#define WARDEN_BF16_GEMM 1
#endif

namespace {

using warden::kPrefetchBytes;
using warden::int4::kBlockRows;
using warden::int4::load_scale_zero;
using warden::int4::prefetch_block_scales;
using warden::int4::store_block;

#ifdef WARDEN_BF16_GEMM


// Many rows in bfloat16 (prefill chunks, decode steps above the small-batch rows) on AVX512-BF16 CPUs: the inputs
// unquantized, as torch's kernel keeps them, and the products exact (torch's math, float32 sums in another order).
// Each 64-row block of weights is converted once per call into bf16 words of its codes plus 16 (exact: integers
// 16..31), laid out as vdpbf16ps's operand (per 16 output rows and pair of k, each 32-bit lane one row's two k);
// then every input row's broadcast (x_k, x_k+1) pair is dotted with them in tiles of kGemmTileRows rows, 32
// products per instruction where torch's kernel makes 16 float FMAs. Per group and output row
//   y += scale * sum_k (q + 16) * x  +  (zero - 24 * scale) * sum_k x      (= scale * sum_k (q - 8) * x + zero * sum_k x)
// with sum_k x per row and group computed once per call.
constexpr int kGemmTileRows = 4;
// Up to this many rows the codes are converted in registers as they are dotted (one tile of all the rows) instead
// of converting each block once into memory and reading it back per tile of kGemmTileRows rows: at few rows that
// round trip through L2 would be most of the call. So converted, the GEMM is as fast as the one-level kernel from 3
// rows and faster from 4 (bench.cpu_linears), and the engine sends steps of 3+ rows here
// (model_runner.GEMM_SMALL_BATCH_ROWS).
constexpr int64_t kDirectMaxRows = 8;

// A code c as a bf16 word is 0x4180 | c << 3: exponent 4 and c in the mantissa's top four bits, the integer 16 + c
// (exact). Made with shifts and one vpternlogd per vector from zero-extended bytes, where a table lookup of c - 8
// costs two more shuffles per vector (at few rows the conversion's shuffles, not the dots, bound the call).
// The offset comes out of the sums: sum_k (c - 8) x = sum_k (16 + c) x - kCodeOffset * sum_k x. It costs the float32
// sums ~3 bits (they carry values up to 31 x, not 8 x): still ~2^-20 of an output, far below its bf16 rounding.
constexpr float kCodeOffset = 24.0f;
constexpr uint32_t kCodeBits = 0x00780078;      // the code's four bits in both words of a 32-bit lane
constexpr uint32_t kCodeExponent = 0x41804180;  // bf16 16.0 in both words
constexpr int kAndOr = 0xEA;                    // vpternlogd: (a & b) | c

// One pair of k (2kp, 2kp+1) of one nibble plane of a block's codes (plane 0: output rows 0-31, the low nibbles;
// plane 1: rows 32-63) as vdpbf16ps operands: out[h] holds rows 32 * plane + 16h .. + 15, each 32-bit lane one
// row's (k, k+1) words. torch's 64-row packing: byte i of (block, k) is row i's code in its low nibble and row
// 32 + i's in its high one. Both planes share the loads and the joining of k and k+1; convert_k_pair takes both.
#ifdef __AVX512VBMI__
// vpermb's index for byte columns 16h .. 16h + 15 of a pair of k (one 64-byte line: k's 32 bytes, then k+1's): lane
// i's byte 0 is column 16h + i of k, its byte 2 that of k+1 (bytes 1 and 3 zeroed by the mask kJoinedBytes).
struct JoinIndex {
  alignas(64) uint8_t bytes[2][64];
  constexpr JoinIndex() : bytes{} {
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 16; ++i) {
        bytes[h][4 * i] = static_cast<uint8_t>(16 * h + i);
        bytes[h][4 * i + 2] = static_cast<uint8_t>(32 + 16 * h + i);
      }
  }
};
constexpr JoinIndex kJoinIndex;
constexpr __mmask64 kJoinedBytes = 0x5555555555555555ull;  // bytes 0 and 2 of each 32-bit lane
#endif

template <int kPlanes>
inline void convert_k_pair_planes(const uint8_t* block, int64_t kp, int plane, __m512i* out) {
  const __m512i bits = _mm512_set1_epi32(static_cast<int>(kCodeBits));
  const __m512i exponent = _mm512_set1_epi32(static_cast<int>(kCodeExponent));
#ifdef __AVX512VBMI__
  // One load and one masked vpermb per half, where two widenings, a shift and an or take four (the same words).
  const __m512i line = _mm512_loadu_si512(block + (2 * kp) * 32);
#endif
  for (int half = 0; half < 2; ++half) {  // bytes 0-15 (rows 0-15 and 32-47), then 16-31 (rows 16-31, 48-63)
    // Per lane: k's byte in the low word, k+1's in the high one.
#ifdef __AVX512VBMI__
    const __m512i joined =
        _mm512_maskz_permutexvar_epi8(kJoinedBytes, _mm512_load_si512(kJoinIndex.bytes[half]), line);
#else
    const auto* even = reinterpret_cast<const __m128i*>(block + (2 * kp) * 32 + 16 * half);
    const auto* odd = reinterpret_cast<const __m128i*>(block + (2 * kp + 1) * 32 + 16 * half);
    const __m512i joined = _mm512_or_si512(_mm512_cvtepu8_epi32(_mm_loadu_si128(even)),
                                           _mm512_slli_epi32(_mm512_cvtepu8_epi32(_mm_loadu_si128(odd)), 16));
#endif
    // Low nibbles up to bits 3-6 of each word, high nibbles down to them.
    if (kPlanes == 2 || plane == 0)
      out[half] = _mm512_ternarylogic_epi32(_mm512_slli_epi32(joined, 3), bits, exponent, kAndOr);
    if (kPlanes == 2 || plane == 1)
      out[(kPlanes == 2 ? 2 : 0) + half] = _mm512_ternarylogic_epi32(_mm512_srli_epi32(joined, 1), bits, exponent,
                                                                     kAndOr);
  }
}

inline void convert_k_pair_plane(const uint8_t* block, int64_t kp, int plane, __m512i* out) {
  convert_k_pair_planes<1>(block, kp, plane, out);
}

// Both planes of a pair of k: out[j] holds output rows 16j .. 16j+15.
inline void convert_k_pair(const uint8_t* block, int64_t kp, __m512i* out) {
  convert_k_pair_planes<2>(block, kp, 0, out);
}

// One block's codes as vdpbf16ps operands: out[kp * 4 + j] holds output rows 16j .. 16j+15 for k = 2kp, 2kp+1.
inline void convert_block(const uint8_t* block, int64_t K, __m512i* out) {
  for (int64_t kp = 0; kp < K / 2; ++kp) convert_k_pair(block, kp, out + kp * 4);
}

// The first of a tile's J vectors of 16 output rows in its block: 0 for all 4, 2 * plane for one plane's 2.
constexpr int first_vector(int J, int plane) { return J == 4 ? 0 : 2 * plane; }

// R input rows (x pairs: each row's bf16 inputs as 32-bit (k, k+1) words) times one converted block: y[r] receives
// row r's 64 float32 results.
// J: the vectors of 16 output rows the tile computes, from j0 = 2 * plane: 4 (the block's 64 rows) or 2 (one
// plane's 32, so that up to 8 input rows' accumulators fit the registers). kConvert: `weights` is the block's packed
// codes, each pair of k converted in registers as it is dotted (a few rows: nothing goes through memory); else
// `weights` is the block converted by convert_block.
template <int R, bool kConvert, int J>
__attribute__((always_inline)) inline void gemm_group(const void* weights, int plane, const uint32_t* const* x,
                                                      int64_t kp_begin, int64_t kp_end, __m512 (&sums)[R][J]) {
  const int j0 = first_vector(J, plane);
  // Locals of this loop, so they stay in registers: as gemm_tile's arrays gcc kept the one-row tile's in memory,
  // a store and a reload in every accumulator's dependency chain (1 row took longer than 2).
  __m512 acc[R][J];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < J; ++j) acc[r][j] = _mm512_setzero_ps();
  for (int64_t kp = kp_begin; kp < kp_end; ++kp) {
    __m512i w[J];
    if constexpr (kConvert) {
      // The stream requested ahead (a pair of k is one 64-byte line), by the first pass over the block.
      if (plane == 0 || J == 4) _mm_prefetch(static_cast<const char*>(weights) + kp * 64 + kPrefetchBytes, _MM_HINT_T0);
    }
    if constexpr (kConvert && J == 4) {
      convert_k_pair(static_cast<const uint8_t*>(weights), kp, w);
    } else if constexpr (kConvert) {
      convert_k_pair_plane(static_cast<const uint8_t*>(weights), kp, plane, w);
    } else {
      for (int j = 0; j < J; ++j) w[j] = _mm512_load_si512(static_cast<const __m512i*>(weights) + kp * 4 + j0 + j);
    }
    for (int r = 0; r < R; ++r) {
      const __m512bh pair = (__m512bh)_mm512_set1_epi32(static_cast<int>(x[r][kp]));
      for (int j = 0; j < J; ++j) acc[r][j] = _mm512_dpbf16_ps(acc[r][j], (__m512bh)w[j], pair);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < J; ++j) sums[r][j] = acc[r][j];
}

template <int R, bool kConvert, int J>
void gemm_tile(const void* weights, int plane, const c10::BFloat16* scales_zeros,
               const uint32_t* const* x, const float* const* x_sums, int64_t K, int64_t N, int64_t group, int64_t n0,
               float* const* y) {
  static_assert(J == 4 || J == 2);
  const int j0 = first_vector(J, plane);
  __m512 out[R][J];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < J; ++j) out[r][j] = _mm512_setzero_ps();
  for (int64_t g = 0; g < K / group; ++g) {
    __m512 acc[R][J];
    gemm_group<R, kConvert, J>(weights, plane, x, g * group / 2, (g + 1) * group / 2, acc);
    const c10::BFloat16* pairs = scales_zeros + (g * N + n0) * 2;
    for (int j = 0; j < J; ++j) {
      __m512 scale, zero;
      load_scale_zero(pairs + (j0 + j) * 32, scale, zero);
      zero = _mm512_fnmadd_ps(_mm512_set1_ps(kCodeOffset), scale, zero);  // the codes' offset, out of the sums
      for (int r = 0; r < R; ++r) {
        out[r][j] = _mm512_fmadd_ps(scale, acc[r][j], out[r][j]);
        out[r][j] = _mm512_fmadd_ps(zero, _mm512_set1_ps(x_sums[r][g]), out[r][j]);
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < J; ++j) _mm512_storeu_ps(y[r] + (j0 + j) * 16, out[r][j]);
}

// Each row's sum of its inputs per group (float32), into sums[m * (K / group) + g]. Here rather than a torch
// reduction: its dispatch and temporaries cost more than a one- or two-row call's dots.
inline void group_sums(const c10::BFloat16* x, int64_t M, int64_t K, int64_t group, float* sums) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < K / group; ++g) {
      const c10::BFloat16* in = x + m * K + g * group;
      int64_t k = 0;
      __m512 acc = _mm512_setzero_ps();
      for (; k + 16 <= group; k += 16) acc = _mm512_add_ps(acc, warden::load_bf16(in + k));
      float sum = _mm512_reduce_add_ps(acc);
      for (; k < group; ++k) sum += static_cast<float>(in[k]);
      sums[m * (K / group) + g] = sum;
    }
}

void int4_gemm_bf16_kernel(const at::Tensor& x, const at::Tensor& packed, const at::Tensor& scales_zeros,
                           int64_t group, at::Tensor& out) {
  const int64_t M = x.size(0), K = x.size(1), N = packed.size(0);
  std::vector<float> x_sums(M * (K / group));
  group_sums(x.const_data_ptr<c10::BFloat16>(), M, K, group, x_sums.data());
  const auto* xs = reinterpret_cast<const uint32_t*>(x.const_data_ptr<c10::BFloat16>());
  const float* sums = x_sums.data();
  const uint8_t* w = packed.const_data_ptr<uint8_t>();
  const c10::BFloat16* sz = scales_zeros.const_data_ptr<c10::BFloat16>();
  c10::BFloat16* y = out.mutable_data_ptr<c10::BFloat16>();
  const bool direct = M <= kDirectMaxRows;
  at::parallel_for(0, N / kBlockRows, 1, [&](int64_t begin, int64_t end) {
    // Many rows: one block converted once (K / 2 x 256 bytes, read from L1/L2 per tile); a few: none.
    std::vector<__m512i> codes(direct ? 0 : K / 2 * 4);
    alignas(64) float block_out[kDirectMaxRows * kBlockRows];
    for (int64_t b = begin; b < end; ++b) {
      const uint8_t* block = w + b * K * (kBlockRows / 2);
      if (b + 1 < end) prefetch_block_scales(sz, b + 1, K, N, group);
      if (!direct) convert_block(block, K, codes.data());
      const void* weights = direct ? static_cast<const void*>(block) : static_cast<const void*>(codes.data());
      const int64_t n0 = b * kBlockRows;
      // A few rows: one tile (up to 4 rows, both planes a pass; 5-8 rows, a plane a pass, each k pair's codes
      // converted once either way); many: tiles of 4 rows over the converted block.
      const int64_t tile_rows = direct ? kDirectMaxRows : kGemmTileRows;
      for (int64_t m0 = 0; m0 < M; m0 += tile_rows) {
        const int64_t tile = std::min<int64_t>(tile_rows, M - m0);
        const uint32_t* x_rows[kDirectMaxRows];
        const float* sum_rows[kDirectMaxRows];
        float* out_rows[kDirectMaxRows];
        for (int64_t r = 0; r < tile; ++r) {
          x_rows[r] = xs + (m0 + r) * K / 2;
          sum_rows[r] = sums + (m0 + r) * (K / group);
          out_rows[r] = block_out + r * kBlockRows;
        }
        const auto run = [&](auto rows, auto convert, auto vectors, int plane) {
          gemm_tile<decltype(rows)::value, decltype(convert)::value, decltype(vectors)::value>(
              weights, plane, sz, x_rows, sum_rows, K, N, group, n0, out_rows);
        };
        using Both = std::integral_constant<int, 4>;
        using One = std::integral_constant<int, 2>;
        const auto planes = [&](auto rows) {
          run(rows, std::true_type{}, One{}, 0);
          run(rows, std::true_type{}, One{}, 1);
        };
        if (direct) {
          switch (tile) {
            case 1: run(std::integral_constant<int, 1>{}, std::true_type{}, Both{}, 0); break;
            case 2: run(std::integral_constant<int, 2>{}, std::true_type{}, Both{}, 0); break;
            case 3: run(std::integral_constant<int, 3>{}, std::true_type{}, Both{}, 0); break;
            case 4: run(std::integral_constant<int, 4>{}, std::true_type{}, Both{}, 0); break;
            case 5: planes(std::integral_constant<int, 5>{}); break;
            case 6: planes(std::integral_constant<int, 6>{}); break;
            case 7: planes(std::integral_constant<int, 7>{}); break;
            default: planes(std::integral_constant<int, kDirectMaxRows>{}); break;
          }
        } else {
          switch (tile) {
            case 1: run(std::integral_constant<int, 1>{}, std::false_type{}, Both{}, 0); break;
            case 2: run(std::integral_constant<int, 2>{}, std::false_type{}, Both{}, 0); break;
            case 3: run(std::integral_constant<int, 3>{}, std::false_type{}, Both{}, 0); break;
            default: run(std::integral_constant<int, kGemmTileRows>{}, std::false_type{}, Both{}, 0); break;
          }
        }
        for (int64_t r = 0; r < tile; ++r) store_block(block_out + r * kBlockRows, y + (m0 + r) * N + n0);
      }
    }
  });
}


#endif  // WARDEN_BF16_GEMM

}  // namespace

namespace warden::int4 {

// Whether int4_gemm_bf16 runs here: built for AVX512-BF16, and torch packs the 64-row blocks it reads.
bool bf16_gemm_runs() {
#ifdef WARDEN_BF16_GEMM
  return avx512_kernel_runs();
#else
  return false;
#endif
}

// Whether int4_linear_up_to runs the bf16 GEMM above its kernel rows for inputs of `dtype`: the one statement of that
// rule, which the engine also asks (kernels.dispatch.cpu_int4_gemm_bf16_serves) to choose its small-batch rows.
bool bf16_gemm_serves(c10::ScalarType dtype) { return bf16_gemm_runs() && dtype == at::kBFloat16; }

// The bf16 GEMM for many rows (above): bfloat16 inputs and scales only.
at::Tensor gemm_bf16(const at::Tensor& x, const at::Tensor& packed, int64_t group, const at::Tensor& scales_zeros) {
  TORCH_CHECK(bf16_gemm_runs(), "int4_gemm_bf16 needs AVX512-BF16 and torch's 64-row int4 packing; use "
              "torch._weight_int4pack_mm_for_cpu");
  check_inputs(x, packed, group, scales_zeros);
  TORCH_CHECK(x.scalar_type() == at::kBFloat16, "int4_gemm_bf16 takes bfloat16 inputs");
  at::Tensor out = at::empty({x.size(0), packed.size(0)}, x.options());
#ifdef WARDEN_BF16_GEMM
  int4_gemm_bf16_kernel(x.contiguous(), packed, scales_zeros, group, out);
#endif
  return out;
}

}  // namespace warden::int4

TORCH_LIBRARY_FRAGMENT(warden_cpu, m) {
  m.def("int4_gemm_bf16_runs() -> bool", [] { return warden::int4::bf16_gemm_runs(); });
  m.def("int4_gemm_bf16_serves(ScalarType dtype) -> bool",
        [](c10::ScalarType dtype) { return warden::int4::bf16_gemm_serves(dtype); });
  m.def("int4_gemm_bf16(Tensor x, Tensor packed, int group, Tensor scales_zeros) -> Tensor");
}

TORCH_LIBRARY_IMPL(warden_cpu, CPU, m) { m.impl("int4_gemm_bf16", &warden::int4::gemm_bf16); }
