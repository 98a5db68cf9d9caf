// Weight-only int4 linear for a few rows (decode at low concurrency, draft verification), reading torch's own CPU
// int4 packing, so the weights inductor's GEMM template uses for larger batches serve this kernel too (no second
// copy).
//
// Why: at one row, torch's int4 kernel converts every weight nibble to float32 and multiplies it with an FMA:
// ~19 instructions per 64 weights, compute-bound at ~10 GB/s of weights on one core even from cache. Here the input
// row is quantized to int8 per group (quantize_input.h, as llama.cpp quantizes activations for its Q4 dot products)
// and 64 nibble pairs at a time are dotted with it by AVX-512 VNNI (vpdpbusd: unsigned weight codes x signed input
// codes), about 5 instructions per 64 weights; then the kernel is bound by how fast one core streams the weights in.
// Input levels: the small-batch kernel (int4_linear) takes one; the one-row linear (int4_linear_two_level) two, run
// as two rows of a tile (the codes, and the residuals with scale / 254) whose outputs are added: one level's
// rounding costs agreement with float32 at one-row decode steps (bench.agreement), and a second row costs what the
// weight stream hides at one row.
//
// Several rows: each block of weights is loaded and regrouped (the unpack shuffles, most of the work per weight)
// once per tile of up to 4 input rows and dotted with each of them, so a row costs little more than its vpdpbusd
// and its per-group float update; every row's results are bitwise those it gets alone (docs/benchmarks.md, "CPU
// linears", compares it with torch's kernel per row count).
//
// Layout (torch._convert_weight_to_int4pack_for_cpu, for N a multiple of 64): [N / 64, K, 32] bytes; byte j of
// (block, k) holds output row block*64 + j in its low nibble and block*64 + 32 + j in its high nibble. Scales and
// zeros: [K / group, N, 2] (scale, zero) in the activation dtype; a weight is (q - 8) * scale + zero. Then
//   y[n] = sum_g scale[g, n] * x_scale[g] * (sum_k q * x_code) + (zero[g, n] - 8 * scale[g, n]) * x_sum[g]
// with the inner sums over group g's inputs: the first in int32, x_sum the sum of the dequantized inputs, the outer
// sum in float32. kernels/reference/quantized_linear.py is the same math in torch.
//
// Built with paged_attention.cpp by kernels/cpu/__init__.py; registered as torch.ops.warden_cpu.int4_linear.

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "avx2_linears.h"
#include "quantize_input.h"
#include "store_rounded.h"
#include "widen_bf16.h"

namespace {

constexpr int64_t kBlockRows = 64;  // output rows per packed block
constexpr int64_t kTileRows = 4;  // input rows dotted with each regrouped weight vector
// How far ahead of its loads the weight stream is requested. One core streaming weights that are not in cache
// is bound by memory latency, not bandwidth, unless it keeps enough lines in flight. SmolLM2 int4 decode at one
// sequence, ms per token: 14.4 without, 10.8 at 2 KB ahead, 9.6 at 4 KB and at 8 KB (16+ iterations of 256 bytes).
constexpr int64_t kPrefetchBytes = 4096;

#ifdef WARDEN_ONE_ROW_VECTOR

// Requests block b's (scale, zero) pairs: K / group separate runs of 64 pairs, one per group.
template <typename scalar_t>
inline void prefetch_block_scales(const scalar_t* scales_zeros, int64_t b, int64_t K, int64_t N, int64_t group) {
  const char* block = reinterpret_cast<const char*>(scales_zeros + b * kBlockRows * 2);
  for (int64_t g = 0; g < K / group; ++g)
    for (int64_t line = 0; line < kBlockRows * 2 * int64_t(sizeof(scalar_t)); line += 64)
      _mm_prefetch(block + g * N * 2 * sizeof(scalar_t) + line, _MM_HINT_T0);
}

// (scale, zero) pairs of 16 consecutive output rows, as float32 vectors. Each pair is one 32-bit word: the scale in
// its low half, the zero in its high half.
template <typename scalar_t>
inline void load_scale_zero(const scalar_t* pairs, __m512& scale, __m512& zero) {
  const __m512i words = _mm512_loadu_si512(pairs);
  if constexpr (std::is_same_v<scalar_t, c10::BFloat16>) {
    // bf16 is the high half of a float32.
    scale = _mm512_castsi512_ps(_mm512_slli_epi32(words, 16));
    zero = _mm512_castsi512_ps(_mm512_and_si512(words, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
  } else {
    scale = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(words));
    zero = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32(words, 16)));
  }
}

// The accumulators of regroup_eight_k's four operands summed over their even-k and odd-k halves and put back in row
// order, as float32: rows 0-15 and 16-31 of the plane.
// (Forced inline: otherwise gcc calls it, through memory and a vzeroupper, which slows the one-row path.)
__attribute__((always_inline)) inline void rows_in_order(const __m512i (&acc)[4], __m512& first,
                                                        __m512& second) {
  __m256i sums[4];
  for (int j = 0; j < 4; ++j)
    sums[j] = _mm256_add_epi32(_mm512_castsi512_si256(acc[j]), _mm512_extracti64x4_epi64(acc[j], 1));
  const auto join = [](__m256i low, __m256i high) {
    return _mm512_cvtepi32_ps(_mm512_inserti64x4(_mm512_castsi256_si512(low), high, 1));
  };
  first = join(_mm256_permute2x128_si256(sums[0], sums[1], 0x20), _mm256_permute2x128_si256(sums[2], sums[3], 0x20));
  second = join(_mm256_permute2x128_si256(sums[0], sums[1], 0x31), _mm256_permute2x128_si256(sums[2], sums[3], 0x31));
}

// One input row as vpdpbusd's input operands: per 8 inputs a 64-byte vector holding the int8 codes of k {0, 2, 4, 6}
// in its low half and {1, 3, 5, 7} in its high half, each repeated per 32-bit lane; per group the input scale
// and the sum of the group's dequantized inputs.
struct QuantizedRow {
  std::vector<__m512i> operands;
  std::vector<float> scales, sums;
};

// One input row as `levels` quantized rows (1: the codes; 2: the codes, then the residuals as a row of their own:
// quantize_input.h's level_codes), written to q[0 .. levels).
template <typename scalar_t>
void quantize_row(const scalar_t* x, int64_t K, int64_t group, int levels, QuantizedRow* q) {
  warden::Int8Groups groups;
  if (levels == 1) {
    warden::quantize_groups_one_level(x, K, group, groups);
  } else {
    warden::quantize_groups_two_level(x, K, group, groups);
  }
  // Per 8 codes: those of k {0, 2, 4, 6} as one 32-bit word broadcast over the low half, {1, 3, 5, 7} the high.
  const __m128i even_odd = _mm_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m512i halves = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
  for (int level = 0; level < levels; ++level) {
    warden::level_scales_and_sums(groups, level, q[level].scales, q[level].sums);
    const int8_t* codes = warden::level_codes(groups, level).data();
    q[level].operands.resize(K / 8);
    for (int64_t c = 0; c < K / 8; ++c) {
      const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes + c * 8));
      const __m128i words = _mm_shuffle_epi8(bytes, even_odd);
      q[level].operands[c] = _mm512_permutexvar_epi32(halves, _mm512_castsi128_si512(words));
    }
  }
}

// A row's levels summed (the float32 outputs of its codes row and its residuals row): in place into the first.
inline void add_level(float* first, const float* residuals, int64_t n) {
  for (int64_t j = 0; j < n; j += 16)
    _mm512_storeu_ps(first + j, _mm512_add_ps(_mm512_loadu_ps(first + j), _mm512_loadu_ps(residuals + j)));
}

// 64 float32 results into the output's dtype (store_rounded.h: rounded as c10's scalar conversions round).
template <typename scalar_t>
inline void store_block(const float* in, scalar_t* out) {
  warden::store_rounded(in, out, kBlockRows);
}

// Eight consecutive k of 32 rows (one nibble plane: a byte per row and k, loaded as two k per 512-bit vector)
// regrouped so each 32-bit lane holds one row's codes for four k, the operand vpdpbusd multiplies against four
// input bytes. Unpacks stay inside 128-bit lanes, so lanes 0-1 of a result hold k {0, 2, 4, 6} and lanes 2-3
// k {1, 3, 5, 7} (QuantizedRow::operands carries the input bytes in that order), and the rows come out as
// [0-3, 16-19], [4-7, 20-23], [8-11, 24-27], [12-15, 28-31] per half. The unpacks are most of the work per
// loaded weight (port-bound shuffles), so each regrouped operand is dotted with every input row of a tile.
inline void regroup_eight_k(const __m512i (&plane)[4], __m512i (&operand)[4]) {
  const __m512i k02_low = _mm512_unpacklo_epi8(plane[0], plane[1]), k02_high = _mm512_unpackhi_epi8(plane[0], plane[1]);
  const __m512i k46_low = _mm512_unpacklo_epi8(plane[2], plane[3]), k46_high = _mm512_unpackhi_epi8(plane[2], plane[3]);
  operand[0] = _mm512_unpacklo_epi16(k02_low, k46_low);
  operand[1] = _mm512_unpackhi_epi16(k02_low, k46_low);
  operand[2] = _mm512_unpacklo_epi16(k02_high, k46_high);
  operand[3] = _mm512_unpackhi_epi16(k02_high, k46_high);
}

// R input rows' integer dots with one group's k of a block, for one nibble plane (kHigh: the high nibbles, left in
// place as 16 x their codes, divided out with the scale: no shift per load) or both (kBoth). The accumulators are
// locals of this loop so that they stay in registers (as arrays the caller indexes per row they were kept in memory).
template <int R, bool kHigh, bool kBoth>
inline void dot_group(const uint8_t* block, int64_t k_begin, int64_t k_end, const __m512i* const (&x)[R],
                      __m512i (&plane_acc)[R][4], __m512i (&high_acc)[R][4]) {
  const __m512i mask = _mm512_set1_epi8(static_cast<char>(kHigh ? 0xF0 : 0x0F));
  const __m512i high_mask = _mm512_set1_epi8(static_cast<char>(0xF0));
  __m512i acc[R][4], acc_high[R][4];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < 4; ++j) acc[r][j] = acc_high[r][j] = _mm512_setzero_si512();
  for (int64_t k = k_begin; k < k_end; k += 8) {
    __m512i bytes[4], plane[4], operand[4];
    for (int i = 0; i < 4; ++i) {
      const uint8_t* line = block + (k + 2 * i) * (kBlockRows / 2);
      // The first pass over a group touches its weights first: it requests the stream ahead.
      if constexpr (!kHigh) _mm_prefetch(reinterpret_cast<const char*>(line) + kPrefetchBytes, _MM_HINT_T0);
      bytes[i] = _mm512_loadu_si512(line);
      plane[i] = _mm512_and_si512(bytes[i], mask);
    }
    regroup_eight_k(plane, operand);
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < 4; ++j) acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], operand[j], x[r][k / 8]);
    if constexpr (kBoth) {
      for (int i = 0; i < 4; ++i) plane[i] = _mm512_and_si512(bytes[i], high_mask);
      regroup_eight_k(plane, operand);
      for (int r = 0; r < R; ++r)
        for (int j = 0; j < 4; ++j) acc_high[r][j] = _mm512_dpbusd_epi32(acc_high[r][j], operand[j], x[r][k / 8]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < 4; ++j) {
      plane_acc[r][j] = acc[r][j];
      if constexpr (kBoth) high_acc[r][j] = acc_high[r][j];
    }
}

// One 64-row output block for a tile of R quantized input rows; y[r] receives row r's 64 float32 results. Per
// group, the integer dots of every row, then the float update of each row's outputs, in the same operations for
// any R (a row's results are bitwise those it gets alone). Up to two rows keep both nibble planes' accumulators in
// registers (8 per row) and read each weight vector once; more rows take the planes in two passes over the group
// (the second reads the group's 1 KB of weights from L1), so a tile's 4 x R accumulators, the four regrouped
// operands and the loads fit the 32 vector registers.
template <typename scalar_t, int R>
void gemv_block(const uint8_t* block, const scalar_t* scales_zeros, const QuantizedRow* const* x, int64_t K,
                int64_t N, int64_t group, int64_t n0, float* const* y) {
  constexpr bool kOnePass = R <= 2;
  const __m512i* operands[R];
  for (int r = 0; r < R; ++r) operands[r] = x[r]->operands.data();
  __m512 out[R][4];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < 4; ++j) out[r][j] = _mm512_setzero_ps();
  for (int64_t g = 0; g < K / group; ++g) {
    __m512i low_acc[R][4], high_acc[R][4];
    if constexpr (kOnePass) {
      dot_group<R, false, true>(block, g * group, (g + 1) * group, operands, low_acc, high_acc);
    } else {
      dot_group<R, false, false>(block, g * group, (g + 1) * group, operands, low_acc, high_acc);
      dot_group<R, true, false>(block, g * group, (g + 1) * group, operands, high_acc, high_acc);
    }
    __m512 scale[4], offset[4];
    const scalar_t* pairs = scales_zeros + (g * N + n0) * 2;
    for (int j = 0; j < 4; ++j) {
      __m512 zero;
      load_scale_zero(pairs + j * 32, scale[j], zero);
      // zero - 8 * scale: what each unit of input adds, since the codes are stored without their -8.
      offset[j] = _mm512_fnmadd_ps(_mm512_set1_ps(8.f), scale[j], zero);
    }
    for (int r = 0; r < R; ++r) {
      __m512 dots[4];
      rows_in_order(low_acc[r], dots[0], dots[1]);
      rows_in_order(high_acc[r], dots[2], dots[3]);
      const float x_scale = x[r]->scales[g];
      const __m512 x_sum = _mm512_set1_ps(x[r]->sums[g]);
      const __m512 low_x_scale = _mm512_set1_ps(x_scale), high_x_scale = _mm512_set1_ps(x_scale / 16.f);
      for (int j = 0; j < 4; ++j) {
        out[r][j] = _mm512_fmadd_ps(_mm512_mul_ps(scale[j], j < 2 ? low_x_scale : high_x_scale), dots[j], out[r][j]);
        out[r][j] = _mm512_fmadd_ps(offset[j], x_sum, out[r][j]);
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < 4; ++j) _mm512_storeu_ps(y[r] + j * 16, out[r][j]);
}

// levels 2: each input row runs as its two quantized rows, side by side in a tile (kTileRows is even, so a row's
// two never straddle tiles), their outputs added before rounding.
template <typename scalar_t>
void int4_linear_kernel(const at::Tensor& x, const at::Tensor& packed, const at::Tensor& scales_zeros,
                        int64_t group, int levels, at::Tensor& out) {
  const int64_t M = x.size(0), K = x.size(1), N = packed.size(0), Q = M * levels;
  std::vector<QuantizedRow> rows(Q);
  for (int64_t m = 0; m < M; ++m)
    quantize_row(x.const_data_ptr<scalar_t>() + m * K, K, group, levels, rows.data() + m * levels);
  const uint8_t* w = packed.const_data_ptr<uint8_t>();
  const scalar_t* sz = scales_zeros.const_data_ptr<scalar_t>();
  scalar_t* y = out.mutable_data_ptr<scalar_t>();
  at::parallel_for(0, N / kBlockRows, 1, [&](int64_t begin, int64_t end) {
    alignas(64) float block_out[kTileRows * kBlockRows];
    for (int64_t b = begin; b < end; ++b) {
      // A block's (scale, zero) pairs lie in K / group separate runs of 256 bytes, one per group, which the
      // hardware prefetcher does not follow: fetched from memory one group after another they cost a latency
      // each. The next block's are requested now, all at once.
      if (b + 1 < end) prefetch_block_scales(sz, b + 1, K, N, group);
      // Every quantized row against this block while its weights are in cache, kTileRows rows at a time.
      for (int64_t m0 = 0; m0 < Q; m0 += kTileRows) {
        const int64_t tile = std::min(kTileRows, Q - m0);
        const QuantizedRow* x[kTileRows];
        float* out_rows[kTileRows];
        for (int64_t r = 0; r < tile; ++r) x[r] = &rows[m0 + r], out_rows[r] = block_out + r * kBlockRows;
        const uint8_t* weights = w + b * K * (kBlockRows / 2);
        const int64_t n0 = b * kBlockRows;
        switch (tile) {
          case 1: gemv_block<scalar_t, 1>(weights, sz, x, K, N, group, n0, out_rows); break;
          case 2: gemv_block<scalar_t, 2>(weights, sz, x, K, N, group, n0, out_rows); break;
          case 3: gemv_block<scalar_t, 3>(weights, sz, x, K, N, group, n0, out_rows); break;
          default: gemv_block<scalar_t, kTileRows>(weights, sz, x, K, N, group, n0, out_rows); break;
        }
        for (int64_t r = 0; r < tile; r += levels) {
          if (levels == 2) add_level(block_out + r * kBlockRows, block_out + (r + 1) * kBlockRows, kBlockRows);
          store_block(block_out + r * kBlockRows, y + (m0 + r) / levels * N + n0);
        }
      }
    }
  });
}

#if defined(__AVX512BF16__)
#define WARDEN_BF16_GEMM 1

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
template <int kPlanes>
inline void convert_k_pair_planes(const uint8_t* block, int64_t kp, int plane, __m512i* out) {
  const __m512i bits = _mm512_set1_epi32(static_cast<int>(kCodeBits));
  const __m512i exponent = _mm512_set1_epi32(static_cast<int>(kCodeExponent));
  for (int half = 0; half < 2; ++half) {  // bytes 0-15 (rows 0-15 and 32-47), then 16-31 (rows 16-31, 48-63)
    const auto* even = reinterpret_cast<const __m128i*>(block + (2 * kp) * 32 + 16 * half);
    const auto* odd = reinterpret_cast<const __m128i*>(block + (2 * kp + 1) * 32 + 16 * half);
    // Per lane: k's byte in the low word, k+1's in the high one.
    const __m512i joined = _mm512_or_si512(_mm512_cvtepu8_epi32(_mm_loadu_si128(even)),
                                           _mm512_slli_epi32(_mm512_cvtepu8_epi32(_mm_loadu_si128(odd)), 16));
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

#endif  // __AVX512BF16__

#endif  // WARDEN_ONE_ROW_VECTOR

void check_inputs(const at::Tensor& x, const at::Tensor& packed, int64_t group, const at::Tensor& scales_zeros) {
  TORCH_CHECK(x.dim() == 2 && packed.dim() == 2 && scales_zeros.dim() == 3,
              "x [rows, K], packed [N, K / 2], scales_zeros [K / group, N, 2]");
  TORCH_CHECK(x.device().is_cpu() && packed.device().is_cpu() && scales_zeros.device().is_cpu(),
              "int4_linear runs on CPU tensors");
  const int64_t K = x.size(1), N = packed.size(0);
  TORCH_CHECK(packed.scalar_type() == at::kByte && packed.size(1) * 2 == K && packed.is_contiguous(),
              "packed is torch's contiguous uint8 int4 packing [N, K / 2]");
  TORCH_CHECK(N % kBlockRows == 0, "int4_linear reads the 64-row packing: N must be a multiple of 64, got ", N);
  TORCH_CHECK(group > 0 && group % 8 == 0 && K % group == 0, "group must be a multiple of 8 dividing K");
  TORCH_CHECK(x.scalar_type() == at::kBFloat16 || x.scalar_type() == at::kHalf, "x is bfloat16 or float16");
  TORCH_CHECK(scales_zeros.scalar_type() == x.scalar_type() && scales_zeros.is_contiguous() &&
                  scales_zeros.size(0) == K / group && scales_zeros.size(1) == N && scales_zeros.size(2) == 2,
              "scales_zeros is contiguous [K / group, N, 2] in x's dtype");
}

// torch packs int4 weights by its own CPU capability: in blocks of 64 output rows on AVX-512 builds, of 32 elsewhere
// (an AVX2 CPU, or ATEN_CPU_CAPABILITY set lower). Found once by packing a probe: row 16's code lands in byte 0's
// high nibble only with 32-row blocks. The AVX-512 kernel reads 64-row blocks only; the AVX2 one reads both.
int64_t packing_block_rows() {
  static const int64_t rows = [] {
    at::Tensor codes = at::zeros({64, 64}, at::kInt);
    codes.accessor<int32_t, 2>()[16][0] = 1;
    const at::Tensor packed = at::_convert_weight_to_int4pack_for_cpu(codes, 1);
    return (packed.const_data_ptr<uint8_t>()[0] >> 4) == 1 ? int64_t{32} : int64_t{64};
  }();
  return rows;
}

bool avx512_kernel_runs() { return warden::kOneRowVector && packing_block_rows() == kBlockRows; }

// The AVX2 build (int4_linear_avx2.cpp): what int4_linear runs where the AVX-512 kernel does not, and an op of its
// own so that the tests check it on AVX-512 machines too. `levels`: the input's quantization levels (1 or 2).
at::Tensor int4_linear_avx2(const at::Tensor& x, const at::Tensor& packed, int64_t group,
                            const at::Tensor& scales_zeros, int64_t levels) {
  TORCH_CHECK(warden::avx2::built(), "int4_linear_avx2 needs AVX2, FMA and F16C; use torch._weight_int4pack_mm_for_cpu");
  TORCH_CHECK(levels == 1 || levels == 2, "the input is quantized in 1 or 2 levels, got ", levels);
  check_inputs(x, packed, group, scales_zeros);
  at::Tensor out = at::empty({x.size(0), packed.size(0)}, x.options());
  warden::avx2::int4_linear(x.contiguous(), packed, group, scales_zeros, packing_block_rows(), levels, out);
  return out;
}

at::Tensor int4_linear_levels(const at::Tensor& x, const at::Tensor& packed, int64_t group,
                              const at::Tensor& scales_zeros, int levels) {
  if (!avx512_kernel_runs()) return int4_linear_avx2(x, packed, group, scales_zeros, levels);
  check_inputs(x, packed, group, scales_zeros);
  const at::Tensor xc = x.contiguous();
  at::Tensor out = at::empty({x.size(0), packed.size(0)}, x.options());
#ifdef WARDEN_ONE_ROW_VECTOR
  if (x.scalar_type() == at::kBFloat16) {
    int4_linear_kernel<c10::BFloat16>(xc, packed, scales_zeros, group, levels, out);
  } else {
    int4_linear_kernel<c10::Half>(xc, packed, scales_zeros, group, levels, out);
  }
#endif
  return out;
}

// One level: the small-batch kernel (2+ rows, inside int4_linear_up_to).
at::Tensor int4_linear(const at::Tensor& x, const at::Tensor& packed, int64_t group, const at::Tensor& scales_zeros) {
  return int4_linear_levels(x, packed, group, scales_zeros, 1);
}

// Two levels (~15 bits per input relative to its group's largest, finer than bfloat16): the one-row linear. Each row
// costs what two rows cost at one level, which at one row the weight stream hides, and keeps torch's float-input
// accuracy, which one level's rounding of the inputs does not (bench.agreement).
at::Tensor int4_linear_two_level(const at::Tensor& x, const at::Tensor& packed, int64_t group,
                                 const at::Tensor& scales_zeros) {
  return int4_linear_levels(x, packed, group, scales_zeros, 2);
}

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
at::Tensor int4_gemm_bf16(const at::Tensor& x, const at::Tensor& packed, int64_t group,
                          const at::Tensor& scales_zeros) {
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

// The AVX2 float32 GEMM (int4_gemm_avx2.cpp), as an op of its own for the tests on any AVX2 machine.
at::Tensor int4_gemm_avx2(const at::Tensor& x, const at::Tensor& packed, int64_t group,
                          const at::Tensor& scales_zeros) {
  TORCH_CHECK(warden::avx2::built(), "int4_gemm_avx2 needs AVX2, FMA and F16C; use torch._weight_int4pack_mm_for_cpu");
  check_inputs(x, packed, group, scales_zeros);
  at::Tensor out = at::empty({x.size(0), packed.size(0)}, x.options());
  warden::avx2::int4_gemm(x.contiguous(), packed, group, scales_zeros, packing_block_rows(), out);
  return out;
}

// This kernel for inputs of at most `kernel_rows` rows; above, a kernel that keeps the inputs unquantized (torch's
// accuracy): for bfloat16 inputs on AVX512-BF16 CPUs the bf16 GEMM, on CPUs without the AVX-512 kernel the AVX2
// float32 GEMM (torch's math, faster than its kernel there), else torch's kernel (bench.cpu_linears). The int4 layers' op in the compiled engine's
// graph of 2+ tokens. The choice is made per call, inside one opaque op, so that graph keeps one symbolic token range:
// a graph of its own for the small steps (the same code compiled under other bounds) lets inductor's cache add guards
// that violate the bounds, and the start fails.
at::Tensor int4_linear_up_to(const at::Tensor& x, const at::Tensor& packed, int64_t group,
                             const at::Tensor& scales_zeros, int64_t kernel_rows) {
  if (x.size(0) <= kernel_rows) return int4_linear(x, packed, group, scales_zeros);
  if (bf16_gemm_serves(x.scalar_type())) return int4_gemm_bf16(x, packed, group, scales_zeros);
  if (!avx512_kernel_runs() && warden::avx2::built()) return int4_gemm_avx2(x, packed, group, scales_zeros);
  return at::_weight_int4pack_mm_for_cpu(x, packed, group, scales_zeros);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(warden_cpu, m) {
  // For both one-row linears (registered once, here): whether this build has the instructions they need.
  m.def("one_row_linear_supported() -> bool", [] { return warden::kOneRowVector; });
  // Whether int4_linear runs here: the AVX-512 kernel, or else the AVX2 one.
  m.def("int4_linear_supported() -> bool", [] { return avx512_kernel_runs() || warden::avx2::built(); });
  m.def("int4_packing_block_rows() -> int", [] { return packing_block_rows(); });
  // Whether int4_linear_up_to runs the AVX2 float32 GEMM above its kernel rows (else torch's kernel).
  m.def("int4_gemm_runs() -> bool", [] { return !avx512_kernel_runs() && warden::avx2::built(); });
  m.def("int4_linear(Tensor x, Tensor packed, int group, Tensor scales_zeros) -> Tensor");
  m.def("int4_linear_two_level(Tensor x, Tensor packed, int group, Tensor scales_zeros) -> Tensor");
  m.def("int4_linear_avx2(Tensor x, Tensor packed, int group, Tensor scales_zeros, int levels=1) -> Tensor");
  m.def("int4_gemm_avx2(Tensor x, Tensor packed, int group, Tensor scales_zeros) -> Tensor");
  m.def("int4_gemm_bf16_runs() -> bool", [] { return bf16_gemm_runs(); });
  m.def("int4_gemm_bf16_serves(ScalarType dtype) -> bool", [](c10::ScalarType dtype) { return bf16_gemm_serves(dtype); });
  m.def("int4_gemm_bf16(Tensor x, Tensor packed, int group, Tensor scales_zeros) -> Tensor");
  m.def("int4_linear_up_to(Tensor x, Tensor packed, int group, Tensor scales_zeros, int kernel_rows) -> Tensor");
}

TORCH_LIBRARY_IMPL(warden_cpu, CPU, m) {
  m.impl("int4_linear", &int4_linear);
  m.impl("int4_linear_two_level", &int4_linear_two_level);
  m.impl("int4_linear_avx2", &int4_linear_avx2);
  m.impl("int4_gemm_avx2", &int4_gemm_avx2);
  m.impl("int4_gemm_bf16", &int4_gemm_bf16);
  m.impl("int4_linear_up_to", &int4_linear_up_to);
}
