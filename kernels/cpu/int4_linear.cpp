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
// zeros: [K / group, N, 2] (scale, zero) in the activation dtype (torch's layout), or the same pairs per block
// [N / 64, K / group, 64, 2] (int4_row_scales: the one-row linear's copy); a weight is (q - 8) * scale + zero. Then
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
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "avx2_linears.h"
#include "cpu_linears.h"
#include "int4_blocks.h"
#include "quantize_input.h"
#include "store_rounded.h"
#include "widen_bf16.h"

// The permuting int4 kernel (below) needs AVX512-VBMI's vpermt2b besides the one-row linears' instructions.
#if defined(WARDEN_ONE_ROW_VECTOR) && defined(__AVX512VBMI__)
#define WARDEN_INT4_PERMUTED 1
#endif

namespace {

// Whether int4_linear_kernel runs the permuting kernel (else the regrouping one): built with it, unless asked
// for the regrouping one (int4_linear_regrouped: the tests compare the two).
constexpr bool kPermutedBuilt =
#ifdef WARDEN_INT4_PERMUTED
    true;
#else
    false;
#endif

constexpr int64_t kTileRows = 4;  // input rows dotted with each regrouped weight vector
using warden::kPrefetchBytes;
using warden::int4::kBlockRows;

#ifdef WARDEN_ONE_ROW_VECTOR

using warden::int4::load_scale_zero;
using warden::int4::prefetch_block_scales;
using warden::int4::store_block;

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
  std::vector<__m512i> operands;  // for the regrouping kernel (gemv_block) only
  std::vector<int8_t> codes;      // [K], for the permuting kernel (gemv_block_permuted)
  std::vector<float> scales, sums;
};

// One input row as `levels` quantized rows (1: the codes; 2: the codes, then the residuals as a row of their own:
// quantize_input.h's level_codes), written to q[0 .. levels).
template <typename scalar_t>
void quantize_row(const scalar_t* x, int64_t K, int64_t group, int levels, bool regrouped, QuantizedRow* q) {
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
    if (!regrouped) {
      q[level].codes.assign(codes, codes + K);
      continue;
    }
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

// One 64-row output block for a tile of R quantized input rows; y[r] receives row r's 64 float32 results. Scales in
// torch's layout, or per block (`blocked`: the block's pairs one run after the other, group by group). Per
// group, the integer dots of every row, then the float update of each row's outputs, in the same operations for
// any R (a row's results are bitwise those it gets alone). Up to two rows keep both nibble planes' accumulators in
// registers (8 per row) and read each weight vector once; more rows take the planes in two passes over the group
// (the second reads the group's 1 KB of weights from L1), so a tile's 4 x R accumulators, the four regrouped
// operands and the loads fit the 32 vector registers.
template <typename scalar_t, int R>
void gemv_block(const uint8_t* block, const scalar_t* scales_zeros, bool blocked, const QuantizedRow* const* x,
                int64_t K, int64_t N, int64_t group, int64_t n0, float* const* y) {
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
    const scalar_t* pairs = blocked ? scales_zeros + ((n0 / kBlockRows) * (K / group) + g) * kBlockRows * 2
                                    : scales_zeros + (g * N + n0) * 2;
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

#ifdef WARDEN_INT4_PERMUTED

// The permuting kernel (CPUs with AVX512-VBMI: Ice Lake and later Intel, Zen 4 and later): one vpermt2b per 4 k
// of 16 byte columns gathers each output row's four codes into one 32-bit lane, in row order, where regroup_eight_k
// takes 8 unpacks per 8 k and nibble plane and leaves each row's even and odd k in two lanes. The input operand is
// then 4 consecutive input codes broadcast (from memory: QuantizedRow::codes), each accumulator holds 16 output rows'
// group sums as they are, and a group's float update is a conversion and two FMAs per 16 outputs, with no
// reduction of halves and no reordering. The integer sums and the float updates are gemv_block's, in the same
// order per output: the results are bitwise equal (tests/kernels/test_cpu_quantized_linear.py compares the two).
// Per 4 k a tile of R rows costs 2 loads, 1 vpermt2b and 2 ands per 16 byte columns, and 2R vpdpbusd: up to 8 rows
// share each permuted vector, so 8 rows cost little more than their vpdpbusd.
constexpr int64_t kPermutedTileRows = 8;

// vpermt2b's index for byte columns 16c .. 16c + 15 of 4 k: two loads of a block (k, k+1, then k+2, k+3; 32 bytes
// per k) are its 128 source bytes, and output lane i takes column 16c + i of each k, in k order.
struct ColumnIndex {
  alignas(64) uint8_t bytes[2][64];
  constexpr ColumnIndex() : bytes{} {
    for (int c = 0; c < 2; ++c)
      for (int i = 0; i < 16; ++i)
        for (int t = 0; t < 4; ++t) bytes[c][4 * i + t] = static_cast<uint8_t>(32 * t + 16 * c + i);
  }
};
constexpr ColumnIndex kColumnIndex;

inline __m512i broadcast_four_codes(const int8_t* codes) {
  int32_t word;
  std::memcpy(&word, codes, sizeof(word));
  return _mm512_set1_epi32(word);
}

// R input rows' integer dots with one group's k of a block, for C of the two 16-column halves from c0 (the low
// nibbles: output rows 16c .. 16c + 15; the high ones, left in place as 16 x their codes: rows 32 + 16c ..).
// S: independent accumulator sets over alternate steps of 4 k, so few rows still keep enough vpdpbusd in flight
// (integer sums: the order does not change them). kPrefetch: the first pass over a group requests the stream ahead.
template <int R, int C, int S, bool kPrefetch>
__attribute__((always_inline)) inline void dot_group_permuted(const uint8_t* block, int64_t k_begin, int64_t k_end,
                                                             int c0, const int8_t* const (&x)[R],
                                                             __m512i (&sums)[R][C][2]) {
  const __m512i low_mask = _mm512_set1_epi8(0x0F);
  const __m512i high_mask = _mm512_set1_epi8(static_cast<char>(0xF0));
  __m512i index[C];
  for (int c = 0; c < C; ++c) index[c] = _mm512_load_si512(kColumnIndex.bytes[c0 + c]);
  __m512i acc[S][R][C][2];
  for (int s = 0; s < S; ++s)
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) acc[s][r][c][0] = acc[s][r][c][1] = _mm512_setzero_si512();
  for (int64_t k0 = k_begin; k0 < k_end; k0 += 4 * S) {
    for (int s = 0; s < S; ++s) {
      const int64_t k = k0 + 4 * s;
      const uint8_t* line = block + k * (kBlockRows / 2);
      if constexpr (kPrefetch) {
        _mm_prefetch(reinterpret_cast<const char*>(line) + kPrefetchBytes, _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(line) + 64 + kPrefetchBytes, _MM_HINT_T0);
      }
      const __m512i first = _mm512_loadu_si512(line), second = _mm512_loadu_si512(line + 64);
      for (int c = 0; c < C; ++c) {
        const __m512i codes = _mm512_permutex2var_epi8(first, index[c], second);
        const __m512i low = _mm512_and_si512(codes, low_mask), high = _mm512_and_si512(codes, high_mask);
        for (int r = 0; r < R; ++r) {
          const __m512i input = broadcast_four_codes(x[r] + k);
          acc[s][r][c][0] = _mm512_dpbusd_epi32(acc[s][r][c][0], low, input);
          acc[s][r][c][1] = _mm512_dpbusd_epi32(acc[s][r][c][1], high, input);
        }
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c)
      for (int p = 0; p < 2; ++p) {
        sums[r][c][p] = acc[0][r][c][p];
        for (int s = 1; s < S; ++s) sums[r][c][p] = _mm512_add_epi32(sums[r][c][p], acc[s][r][c][p]);
      }
}

// gemv_block's contract (and results, bitwise) for a tile of up to kPermutedTileRows rows. Up to 4 rows take both
// column halves in one pass over a group (4 accumulators per row); more take them in two passes (the second reads
// the group's 1 KB of weights from L1), so a tile's accumulators fit the 32 vector registers.
template <typename scalar_t, int R>
void gemv_block_permuted(const uint8_t* block, const scalar_t* scales_zeros, bool blocked,
                         const QuantizedRow* const* x, int64_t K, int64_t N, int64_t group, int64_t n0,
                         float* const* y) {
  constexpr int C = R <= 4 ? 2 : 1;
  constexpr int S = R <= 2 ? 2 : 1;
  const int8_t* codes[R];
  for (int r = 0; r < R; ++r) codes[r] = x[r]->codes.data();
  __m512 out[R][4];
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < 4; ++j) out[r][j] = _mm512_setzero_ps();
  for (int64_t g = 0; g < K / group; ++g) {
    const scalar_t* pairs = blocked ? scales_zeros + ((n0 / kBlockRows) * (K / group) + g) * kBlockRows * 2
                                    : scales_zeros + (g * N + n0) * 2;
    for (int c0 = 0; c0 < 2; c0 += C) {
      __m512i sums[R][C][2];
      if (c0 == 0) {
        dot_group_permuted<R, C, S, true>(block, g * group, (g + 1) * group, c0, codes, sums);
      } else {
        dot_group_permuted<R, C, S, false>(block, g * group, (g + 1) * group, c0, codes, sums);
      }
      for (int c = 0; c < C; ++c)
        for (int p = 0; p < 2; ++p) {
          const int j = 2 * p + c0 + c;  // gemv_block's j: rows 16j .. 16j + 15 of the block
          __m512 scale, zero;
          load_scale_zero(pairs + j * 32, scale, zero);
          const __m512 offset = _mm512_fnmadd_ps(_mm512_set1_ps(8.f), scale, zero);
          for (int r = 0; r < R; ++r) {
            const float x_scale = x[r]->scales[g];
            const __m512 row_scale = _mm512_set1_ps(p == 0 ? x_scale : x_scale / 16.f);
            const __m512 dots = _mm512_cvtepi32_ps(sums[r][c][p]);
            out[r][j] = _mm512_fmadd_ps(_mm512_mul_ps(scale, row_scale), dots, out[r][j]);
            out[r][j] = _mm512_fmadd_ps(offset, _mm512_set1_ps(x[r]->sums[g]), out[r][j]);
          }
        }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < 4; ++j) _mm512_storeu_ps(y[r] + j * 16, out[r][j]);
}

#endif  // WARDEN_INT4_PERMUTED

// A tile of `tile` rows against one block, by the permuting kernel (kPermuted) or the regrouping one.
template <typename scalar_t, bool kPermuted>
void tile_block(int64_t tile, const uint8_t* weights, const scalar_t* sz, bool blocked, const QuantizedRow* const* x,
                int64_t K, int64_t N, int64_t group, int64_t n0, float* const* out_rows) {
#ifdef WARDEN_INT4_PERMUTED
  if constexpr (kPermuted) {
    switch (tile) {
      case 1: return gemv_block_permuted<scalar_t, 1>(weights, sz, blocked, x, K, N, group, n0, out_rows);
      case 2: return gemv_block_permuted<scalar_t, 2>(weights, sz, blocked, x, K, N, group, n0, out_rows);
      case 3: return gemv_block_permuted<scalar_t, 3>(weights, sz, blocked, x, K, N, group, n0, out_rows);
      case 4: return gemv_block_permuted<scalar_t, 4>(weights, sz, blocked, x, K, N, group, n0, out_rows);
      case 5: return gemv_block_permuted<scalar_t, 5>(weights, sz, blocked, x, K, N, group, n0, out_rows);
      case 6: return gemv_block_permuted<scalar_t, 6>(weights, sz, blocked, x, K, N, group, n0, out_rows);
      case 7: return gemv_block_permuted<scalar_t, 7>(weights, sz, blocked, x, K, N, group, n0, out_rows);
      default: return gemv_block_permuted<scalar_t, 8>(weights, sz, blocked, x, K, N, group, n0, out_rows);
    }
  }
#endif
  switch (tile) {
    case 1: return gemv_block<scalar_t, 1>(weights, sz, blocked, x, K, N, group, n0, out_rows);
    case 2: return gemv_block<scalar_t, 2>(weights, sz, blocked, x, K, N, group, n0, out_rows);
    case 3: return gemv_block<scalar_t, 3>(weights, sz, blocked, x, K, N, group, n0, out_rows);
    default: return gemv_block<scalar_t, kTileRows>(weights, sz, blocked, x, K, N, group, n0, out_rows);
  }
}

// levels 2: each input row runs as its two quantized rows, side by side in a tile (tiles hold an even number of
// rows, so a row's two never straddle tiles), their outputs added before rounding. Scales in either layout (4
// dimensions: per block). kPermuted: the permuting kernel (where built), else the regrouping one.
template <typename scalar_t, bool kPermuted>
void int4_linear_kernel(const at::Tensor& x, const at::Tensor& packed, const at::Tensor& scales_zeros,
                        int64_t group, int levels, at::Tensor& out) {
  constexpr bool kPermutes = kPermuted && kPermutedBuilt;
#ifdef WARDEN_INT4_PERMUTED
  constexpr int64_t kTile = kPermutes ? kPermutedTileRows : kTileRows;
#else
  constexpr int64_t kTile = kTileRows;
#endif
  const int64_t M = x.size(0), K = x.size(1), N = packed.size(0), Q = M * levels;
  const bool blocked = scales_zeros.dim() == 4;
  std::vector<QuantizedRow> rows(Q);
  for (int64_t m = 0; m < M; ++m)
    quantize_row(x.const_data_ptr<scalar_t>() + m * K, K, group, levels, !kPermutes, rows.data() + m * levels);
  const uint8_t* w = packed.const_data_ptr<uint8_t>();
  const scalar_t* sz = scales_zeros.const_data_ptr<scalar_t>();
  scalar_t* y = out.mutable_data_ptr<scalar_t>();
  at::parallel_for(0, N / kBlockRows, 1, [&](int64_t begin, int64_t end) {
    alignas(64) float block_out[kTile * kBlockRows];
    for (int64_t b = begin; b < end; ++b) {
      // A block's (scale, zero) pairs lie in K / group separate runs of 256 bytes, one per group, which the
      // hardware prefetcher does not follow: fetched from memory one group after another they cost a latency
      // each. The next block's are requested now, all at once.
      // Per block, the pairs follow the previous block's and are streamed in like the weights: nothing to request.
      if (b + 1 < end && !blocked) prefetch_block_scales(sz, b + 1, K, N, group);
      // Every quantized row against this block while its weights are in cache, kTile rows at a time.
      for (int64_t m0 = 0; m0 < Q; m0 += kTile) {
        const int64_t tile = std::min(kTile, Q - m0);
        const QuantizedRow* x[kTile];
        float* out_rows[kTile];
        for (int64_t r = 0; r < tile; ++r) x[r] = &rows[m0 + r], out_rows[r] = block_out + r * kBlockRows;
        const uint8_t* weights = w + b * K * (kBlockRows / 2);
        const int64_t n0 = b * kBlockRows;
        tile_block<scalar_t, kPermutes>(tile, weights, sz, blocked, x, K, N, group, n0, out_rows);
        for (int64_t r = 0; r < tile; r += levels) {
          if (levels == 2) add_level(block_out + r * kBlockRows, block_out + (r + 1) * kBlockRows, kBlockRows);
          store_block(block_out + r * kBlockRows, y + (m0 + r) / levels * N + n0);
        }
      }
    }
  });
}


#endif  // WARDEN_ONE_ROW_VECTOR

}  // namespace

namespace {

// check_inputs but for the scales' layout.
void check_x_and_packed(const at::Tensor& x, const at::Tensor& packed, int64_t group, const at::Tensor& scales_zeros) {
  TORCH_CHECK(x.dim() == 2 && packed.dim() == 2, "x [rows, K], packed [N, K / 2]");
  TORCH_CHECK(x.device().is_cpu() && packed.device().is_cpu() && scales_zeros.device().is_cpu(),
              "int4_linear runs on CPU tensors");
  const int64_t K = x.size(1), N = packed.size(0);
  TORCH_CHECK(packed.scalar_type() == at::kByte && packed.size(1) * 2 == K && packed.is_contiguous(),
              "packed is torch's contiguous uint8 int4 packing [N, K / 2]");
  TORCH_CHECK(N % kBlockRows == 0, "int4_linear reads the 64-row packing: N must be a multiple of 64, got ", N);
  TORCH_CHECK(group > 0 && group % 8 == 0 && K % group == 0, "group must be a multiple of 8 dividing K");
  TORCH_CHECK(x.scalar_type() == at::kBFloat16 || x.scalar_type() == at::kHalf, "x is bfloat16 or float16");
  TORCH_CHECK(scales_zeros.scalar_type() == x.scalar_type() && scales_zeros.is_contiguous(),
              "scales_zeros is contiguous in x's dtype");
}

}  // namespace

void warden::int4::check_inputs(const at::Tensor& x, const at::Tensor& packed, int64_t group,
                                 const at::Tensor& scales_zeros) {
  TORCH_CHECK(scales_zeros.dim() == 3, "scales_zeros [K / group, N, 2]");
  check_x_and_packed(x, packed, group, scales_zeros);
  const int64_t K = x.size(1), N = packed.size(0);
  TORCH_CHECK(scales_zeros.size(0) == K / group && scales_zeros.size(1) == N && scales_zeros.size(2) == 2,
              "scales_zeros is contiguous [K / group, N, 2] in x's dtype");
}

namespace {

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

}  // namespace

bool warden::int4::avx512_kernel_runs() {
  return warden::kOneRowVector && packing_block_rows() == kBlockRows;
}

namespace {

using warden::int4::avx512_kernel_runs;
using warden::int4::check_inputs;

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

// The (scale, zero) pairs per 64-row block, [N / 64, K / group, 64, 2], where the AVX-512 kernel runs; elsewhere
// torch's layout as it is. For one row the kernel streams its weights in block after block: torch's layout spreads a
// block's pairs over K / group runs of 256 bytes, one per group, so each block starts with that many scattered
// reads, and a step out of cache runs slower than the weight stream alone.
at::Tensor int4_row_scales(const at::Tensor& scales_zeros) {
  TORCH_CHECK(scales_zeros.dim() == 3 && scales_zeros.size(2) == 2, "scales_zeros is [K / group, N, 2]");
  if (!avx512_kernel_runs()) return scales_zeros;
  const int64_t groups = scales_zeros.size(0), N = scales_zeros.size(1);
  TORCH_CHECK(N % kBlockRows == 0, "int4_row_scales reads the 64-row packing: N must be a multiple of 64, got ", N);
  return scales_zeros.view({groups, N / kBlockRows, kBlockRows, 2}).permute({1, 0, 2, 3}).contiguous();
}

// Scales per block (int4_row_scales) as torch's layout [K / group, N, 2], for the kernels that read only that.
at::Tensor torch_layout(const at::Tensor& block_scales) {
  const int64_t blocks = block_scales.size(0), groups = block_scales.size(1);
  return block_scales.permute({1, 0, 2, 3}).reshape({groups, blocks * kBlockRows, 2});
}

// check_inputs, for scales in either layout (4 dimensions: per block, as int4_row_scales returns them).
void check_row_inputs(const at::Tensor& x, const at::Tensor& packed, int64_t group, const at::Tensor& scales_zeros) {
  if (scales_zeros.dim() != 4) return check_inputs(x, packed, group, scales_zeros);
  check_x_and_packed(x, packed, group, scales_zeros);
  const int64_t K = x.size(1), N = packed.size(0);
  TORCH_CHECK(scales_zeros.size(0) * kBlockRows == N && scales_zeros.size(1) == K / group &&
                  scales_zeros.size(2) == kBlockRows && scales_zeros.size(3) == 2,
              "scales per block are [N / 64, K / group, 64, 2]");
}

at::Tensor int4_linear_levels(const at::Tensor& x, const at::Tensor& packed, int64_t group,
                              const at::Tensor& scales_zeros, int levels, bool permuted = true) {
  if (!avx512_kernel_runs()) {
    return int4_linear_avx2(x, packed, group, scales_zeros.dim() == 4 ? torch_layout(scales_zeros) : scales_zeros,
                            levels);
  }
  check_row_inputs(x, packed, group, scales_zeros);
  const at::Tensor xc = x.contiguous();
  at::Tensor out = at::empty({x.size(0), packed.size(0)}, x.options());
#ifdef WARDEN_ONE_ROW_VECTOR
  const bool bf16 = x.scalar_type() == at::kBFloat16;
  if (permuted && bf16) {
    int4_linear_kernel<c10::BFloat16, true>(xc, packed, scales_zeros, group, levels, out);
  } else if (permuted) {
    int4_linear_kernel<c10::Half, true>(xc, packed, scales_zeros, group, levels, out);
  } else if (bf16) {
    int4_linear_kernel<c10::BFloat16, false>(xc, packed, scales_zeros, group, levels, out);
  } else {
    int4_linear_kernel<c10::Half, false>(xc, packed, scales_zeros, group, levels, out);
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

// The regrouping AVX-512 kernel where the permuting one serves int4_linear (AVX512-VBMI), for the tests to compare
// the two (bitwise equal); elsewhere int4_linear itself. `levels`: the input's quantization levels (1 or 2).
at::Tensor int4_linear_regrouped(const at::Tensor& x, const at::Tensor& packed, int64_t group,
                                 const at::Tensor& scales_zeros, int64_t levels) {
  TORCH_CHECK(levels == 1 || levels == 2, "the input is quantized in 1 or 2 levels, got ", levels);
  return int4_linear_levels(x, packed, group, scales_zeros, static_cast<int>(levels), false);
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
  if (warden::int4::bf16_gemm_serves(x.scalar_type())) return warden::int4::gemm_bf16(x, packed, group, scales_zeros);
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
  // Whether int4_linear runs the permuting AVX-512 kernel (AVX512-VBMI) rather than the regrouping one.
  m.def("int4_linear_permutes() -> bool", [] { return kPermutedBuilt && avx512_kernel_runs(); });
  m.def("int4_linear_regrouped(Tensor x, Tensor packed, int group, Tensor scales_zeros, int levels=1) -> Tensor");
  m.def("int4_gemm_avx2(Tensor x, Tensor packed, int group, Tensor scales_zeros) -> Tensor");
  m.def("int4_linear_up_to(Tensor x, Tensor packed, int group, Tensor scales_zeros, int kernel_rows) -> Tensor");
  // The scales in the layout int4_linear and int4_linear_two_level read fastest here (either layout is accepted).
  m.def("int4_row_scales(Tensor scales_zeros) -> Tensor");
}

TORCH_LIBRARY_IMPL(warden_cpu, CPU, m) {
  m.impl("int4_linear", &int4_linear);
  m.impl("int4_linear_two_level", &int4_linear_two_level);
  m.impl("int4_linear_avx2", &int4_linear_avx2);
  m.impl("int4_linear_regrouped", &int4_linear_regrouped);
  m.impl("int4_gemm_avx2", &int4_gemm_avx2);
  m.impl("int4_linear_up_to", &int4_linear_up_to);
  m.impl("int4_row_scales", &int4_row_scales);
}
