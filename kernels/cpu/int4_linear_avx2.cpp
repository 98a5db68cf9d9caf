// int4_linear.cpp's int4 linear for CPUs with AVX2 but without AVX-512 VNNI (AMD Zen 2/3 EPYCs, Intel client
// cores): torch's CPU int4 packing, each input row quantized to int8 per group (one level, as the AVX-512 kernel),
// the same y = sum_g scale * x_scale * dot + (zero - 8 * scale) * x_sum.
//
// Why: torch's int4 kernel converts every weight to float for an FMA, and on such a CPU it is compute-bound far
// below what one core streams, so at low concurrency those linears are most of a decode step. Without vpdpbusd the dot products are
// vpmaddubsw (unsigned weight codes x signed input codes, two k per 16-bit lane: at most 2 x 15 x 127, so nothing
// saturates) summed in 16 bits over 16 k (at most 30,480), then widened and added in float32 with the group's scale.
//
// Layout: torch packs by its own CPU capability. On AVX-512 builds (as int4_linear.cpp reads) [N / 64, K, 32] bytes,
// byte j of (block, k) holding output row block*64 + j in its low nibble and block*64 + 32 + j in its high nibble;
// elsewhere (an AVX2 CPU, where this kernel serves) the same with 32-row blocks: [N / 32, K, 16], rows j and 16 + j.
// Either way the nibbles of k and k+1 interleaved byte by byte are 16 rows' (w_k, w_k+1) pairs per 256-bit vector,
// exactly vpmaddubsw's operand against a broadcast (x_k, x_k+1).
//
// Several rows: each loaded and unpacked weight vector is dotted with a tile of up to 4 input rows, and every row's
// results are bitwise those it gets alone (the same operations per row, whatever the tile).

#include "avx2_linears.h"
#include "avx2_vectors.h"
#include "quantize_input.h"

#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace warden::avx2 {

#ifdef WARDEN_AVX2

namespace {

constexpr int64_t kMaxBlockRows = 64;  // output rows per packed block: 64 or 32 (the packing's)
constexpr int64_t kTileRows = 4;  // input rows dotted with each unpacked weight vector
constexpr int64_t kChunkK = 16;  // k summed in 16 bits: 16 products of at most 15 x 127 stay below 2^15
constexpr int64_t kPrefetchBytes = 4096;  // the weight stream, requested this far ahead (as the AVX-512 kernel)

// One input row: per pair of inputs the two int8 codes as one 16-bit word (the even k in the low byte), the operand
// vpmaddubsw multiplies against a row's (w_k, w_k+1); per group the scale and the sum of the dequantized inputs.
struct QuantizedRow {
  std::vector<int16_t> pairs;  // [K / 2]
  std::vector<float> scales, sums;  // [K / group]
};

// Per group: scale amax / 127, codes round(x * 127 / amax) half to even (quantize_input.h's first level), and with
// levels 2 the residuals as a second row (quantize_input.h's level_codes), written to q[0 .. levels).
template <typename scalar_t>
void quantize_row(const scalar_t* x, int64_t K, int64_t group, int64_t levels, QuantizedRow* q) {
  warden::Int8Groups groups;
  warden::quantize_groups(x, K, group, groups);
  for (int level = 0; level < levels; ++level) {
    const int8_t* codes = warden::level_codes(groups, level).data();
    q[level].pairs.resize(K / 2);
    for (int64_t k = 0; k < K; k += 2)
      q[level].pairs[k / 2] = static_cast<int16_t>(static_cast<uint16_t>(static_cast<uint8_t>(codes[k])) |
                                                   static_cast<uint16_t>(static_cast<uint8_t>(codes[k + 1]) << 8));
    warden::level_scales_and_sums(groups, level, q[level].scales, q[level].sums);
  }
}

// R input rows' 16-bit dots with the k in [k_begin, k_end) (at most kChunkK) of one nibble plane of a block.
// vpunpck works within 128-bit lanes: out[r][0] holds rows {0-7, 16-23} of the plane, out[r][1] rows {8-15, 24-31}.
// The accumulators are locals of the loop, copied out at its end: as the caller's array gcc kept them in memory,
// and every add waited on a store (~5x slower).
template <int R, bool kHigh>
__attribute__((always_inline)) inline void dot_chunk(const uint8_t* block, int64_t k_begin, int64_t k_end,
                                                     const int16_t* const (&x)[R], __m256i (&out)[R][2]) {
  constexpr int64_t kPlaneRows = 32;  // 64-row blocks: bytes per (block, k)
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  __m256i acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (int64_t k = k_begin; k < k_end; k += 2) {
    const uint8_t* line = block + k * kPlaneRows;
    // The low plane's pass touches the weights first: it requests the stream ahead (the high plane's reads them
    // again from L1).
    if constexpr (!kHigh) _mm_prefetch(reinterpret_cast<const char*>(line) + kPrefetchBytes, _MM_HINT_T0);
    __m256i even = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line));
    __m256i odd = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + kPlaneRows));
    if constexpr (kHigh) {
      even = _mm256_srli_epi16(even, 4);
      odd = _mm256_srli_epi16(odd, 4);
    }
    even = _mm256_and_si256(even, nibble);
    odd = _mm256_and_si256(odd, nibble);
    const __m256i first = _mm256_unpacklo_epi8(even, odd), second = _mm256_unpackhi_epi8(even, odd);
    for (int r = 0; r < R; ++r) {
      const __m256i inputs = _mm256_set1_epi16(x[r][k / 2]);
      acc[r][0] = _mm256_add_epi16(acc[r][0], _mm256_maddubs_epi16(first, inputs));
      acc[r][1] = _mm256_add_epi16(acc[r][1], _mm256_maddubs_epi16(second, inputs));
    }
  }
  for (int r = 0; r < R; ++r) out[r][0] = acc[r][0], out[r][1] = acc[r][1];
}

// The same for a 32-row block (16 bytes per k, both nibble planes in one pass): k and k+1 are one 32-byte load,
// their halves put side by side in each 128-bit lane (vpermq) and interleaved byte by byte (vpshufb), so out[r][0]
// holds rows 0-15 in order (the low nibbles) and out[r][1] rows 16-31 (the high ones).
template <int R>
__attribute__((always_inline)) inline void dot_chunk_32(const uint8_t* block, int64_t k_begin, int64_t k_end,
                                                        const int16_t* const (&x)[R], __m256i (&out)[R][2]) {
  constexpr int64_t kLineBytes = 16;
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const __m256i pairs = _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15,
                                         0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
  __m256i acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (int64_t k = k_begin; k < k_end; k += 2) {
    const uint8_t* line = block + k * kLineBytes;
    _mm_prefetch(reinterpret_cast<const char*>(line) + kPrefetchBytes, _MM_HINT_T0);
    // [k 0-7, k+1 0-7 | k 8-15, k+1 8-15], then byte pairs (k_j, k+1_j) for j 0-7 | 8-15
    const __m256i both = _mm256_shuffle_epi8(
        _mm256_permute4x64_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(line)), 0xD8), pairs);
    const __m256i low = _mm256_and_si256(both, nibble);
    const __m256i high = _mm256_and_si256(_mm256_srli_epi16(both, 4), nibble);
    for (int r = 0; r < R; ++r) {
      const __m256i inputs = _mm256_set1_epi16(x[r][k / 2]);
      acc[r][0] = _mm256_add_epi16(acc[r][0], _mm256_maddubs_epi16(low, inputs));
      acc[r][1] = _mm256_add_epi16(acc[r][1], _mm256_maddubs_epi16(high, inputs));
    }
  }
  for (int r = 0; r < R; ++r) out[r][0] = acc[r][0], out[r][1] = acc[r][1];
}

// out (a 32-row block's rows in order) += float(dot) * row_scale, per input row; acc[r][0] rows 0-15.
template <int R>
__attribute__((always_inline)) inline void accumulate_chunk_32(const __m256i (&acc)[R][2],
                                                               const __m256 (&row_scale)[R][4],
                                                               float* const (&out)[R]) {
  for (int r = 0; r < R; ++r) {
    const __m256i dots[4] = {_mm256_cvtepi16_epi32(_mm256_castsi256_si128(acc[r][0])),
                             _mm256_cvtepi16_epi32(_mm256_extracti128_si256(acc[r][0], 1)),
                             _mm256_cvtepi16_epi32(_mm256_castsi256_si128(acc[r][1])),
                             _mm256_cvtepi16_epi32(_mm256_extracti128_si256(acc[r][1], 1))};
    for (int j = 0; j < 4; ++j) {
      float* o = out[r] + j * 8;
      _mm256_storeu_ps(o, _mm256_fmadd_ps(_mm256_cvtepi32_ps(dots[j]), row_scale[r][j], _mm256_loadu_ps(o)));
    }
  }
}

// out (the plane's 32 rows, in order) += float(dot) * row_scale, per input row; row_scale[j] holds rows 8j..8j+7.
template <int R>
__attribute__((always_inline)) inline void accumulate_chunk(const __m256i (&acc)[R][2], const __m256 (&row_scale)[R][4], float* const (&out)[R]) {
  for (int r = 0; r < R; ++r) {
    // Rows 0-7 and 16-23 are acc[r][0]'s halves, 8-15 and 24-31 acc[r][1]'s.
    const __m256i dots[4] = {_mm256_cvtepi16_epi32(_mm256_castsi256_si128(acc[r][0])),
                             _mm256_cvtepi16_epi32(_mm256_castsi256_si128(acc[r][1])),
                             _mm256_cvtepi16_epi32(_mm256_extracti128_si256(acc[r][0], 1)),
                             _mm256_cvtepi16_epi32(_mm256_extracti128_si256(acc[r][1], 1))};
    for (int j = 0; j < 4; ++j) {
      float* o = out[r] + j * 8;
      _mm256_storeu_ps(o, _mm256_fmadd_ps(_mm256_cvtepi32_ps(dots[j]), row_scale[r][j], _mm256_loadu_ps(o)));
    }
  }
}

// One 64-row output block for a tile of R quantized input rows; y[r] receives row r's 64 float32 results.
template <typename scalar_t, int R, int kBlockRows>
void gemv_block(const uint8_t* block, const scalar_t* scales_zeros, const QuantizedRow* const* x, int64_t K,
                int64_t N, int64_t group, int64_t n0, float* const* y) {
  constexpr int kVectors = kBlockRows / 8;  // float32 vectors per block of output rows
  const int16_t* pairs[R];
  float* low_out[R];
  float* high_out[R];
  for (int r = 0; r < R; ++r) {
    pairs[r] = x[r]->pairs.data();
    low_out[r] = y[r];
    high_out[r] = y[r] + kBlockRows / 2;
    std::fill(y[r], y[r] + kBlockRows, 0.f);
  }
  for (int64_t g = 0; g < K / group; ++g) {
    __m256 scale[kVectors], offset[kVectors];
    const scalar_t* pairs_g = scales_zeros + (g * N + n0) * 2;
    for (int j = 0; j < kVectors; ++j) {
      __m256 zero;
      load_scale_zero(pairs_g + j * 16, scale[j], zero);
      // zero - 8 * scale: what each unit of input adds, since the codes are stored without their -8.
      offset[j] = _mm256_fnmadd_ps(_mm256_set1_ps(8.f), scale[j], zero);
    }
    // Per input row the weight scales times its own: the first four vectors' rows, then (64-row blocks) the
    // high plane's four.
    __m256 low_scale[R][4], high_scale[R][4];
    for (int r = 0; r < R; ++r) {
      const __m256 x_scale = _mm256_set1_ps(x[r]->scales[g]);
      for (int j = 0; j < 4; ++j) {
        low_scale[r][j] = _mm256_mul_ps(scale[j], x_scale);
        if constexpr (kBlockRows == 64) high_scale[r][j] = _mm256_mul_ps(scale[4 + j], x_scale);
      }
    }
    for (int64_t k = g * group; k < (g + 1) * group; k += kChunkK) {
      const int64_t k_end = std::min(k + kChunkK, (g + 1) * group);
      __m256i acc[R][2];
      if constexpr (kBlockRows == 64) {
        dot_chunk<R, false>(block, k, k_end, pairs, acc);
        accumulate_chunk<R>(acc, low_scale, low_out);
        dot_chunk<R, true>(block, k, k_end, pairs, acc);
        accumulate_chunk<R>(acc, high_scale, high_out);
      } else {
        dot_chunk_32<R>(block, k, k_end, pairs, acc);
        accumulate_chunk_32<R>(acc, low_scale, low_out);
      }
    }
    for (int r = 0; r < R; ++r) {
      const __m256 x_sum = _mm256_set1_ps(x[r]->sums[g]);
      for (int j = 0; j < kVectors; ++j) {
        float* o = y[r] + j * 8;
        _mm256_storeu_ps(o, _mm256_fmadd_ps(offset[j], x_sum, _mm256_loadu_ps(o)));
      }
    }
  }
}

// levels 2: each input row runs as its two quantized rows side by side in a tile (kTileRows is even), their outputs
// added before rounding, as int4_linear.cpp's kernel.
template <typename scalar_t, int kBlockRows>
void run(const at::Tensor& x, const at::Tensor& packed, const at::Tensor& scales_zeros, int64_t group,
         int64_t levels, at::Tensor& out) {
  const int64_t M = x.size(0), K = x.size(1), N = packed.size(0), Q = M * levels;
  std::vector<QuantizedRow> rows(Q);
  for (int64_t m = 0; m < M; ++m)
    quantize_row(x.const_data_ptr<scalar_t>() + m * K, K, group, levels, rows.data() + m * levels);
  const uint8_t* w = packed.const_data_ptr<uint8_t>();
  const scalar_t* sz = scales_zeros.const_data_ptr<scalar_t>();
  scalar_t* y = out.mutable_data_ptr<scalar_t>();
  at::parallel_for(0, N / kBlockRows, 1, [&](int64_t begin, int64_t end) {
    alignas(32) float block_out[kTileRows * kMaxBlockRows];
    for (int64_t b = begin; b < end; ++b) {
      // The next block's (scale, zero) pairs lie in K / group runs of 256 bytes that the hardware prefetcher does
      // not follow (as int4_linear.cpp): requested now, all at once.
      if (b + 1 < end) {
        const char* next = reinterpret_cast<const char*>(sz + (b + 1) * kBlockRows * 2);
        for (int64_t g = 0; g < K / group; ++g)
          for (int64_t line = 0; line < kBlockRows * 2 * int64_t(sizeof(scalar_t)); line += 64)
            _mm_prefetch(next + g * N * 2 * sizeof(scalar_t) + line, _MM_HINT_T0);
      }
      for (int64_t m0 = 0; m0 < Q; m0 += kTileRows) {
        const int64_t tile = std::min(kTileRows, Q - m0);
        const QuantizedRow* x_rows[kTileRows];
        float* out_rows[kTileRows];
        for (int64_t r = 0; r < tile; ++r) x_rows[r] = &rows[m0 + r], out_rows[r] = block_out + r * kBlockRows;
        const uint8_t* weights = w + b * K * (kBlockRows / 2);
        const int64_t n0 = b * kBlockRows;
        switch (tile) {
          case 1: gemv_block<scalar_t, 1, kBlockRows>(weights, sz, x_rows, K, N, group, n0, out_rows); break;
          case 2: gemv_block<scalar_t, 2, kBlockRows>(weights, sz, x_rows, K, N, group, n0, out_rows); break;
          case 3: gemv_block<scalar_t, 3, kBlockRows>(weights, sz, x_rows, K, N, group, n0, out_rows); break;
          default: gemv_block<scalar_t, kTileRows, kBlockRows>(weights, sz, x_rows, K, N, group, n0, out_rows); break;
        }
        for (int64_t r = 0; r < tile; r += levels) {
          float* row_out = block_out + r * kBlockRows;
          if (levels == 2)
            for (int64_t j = 0; j < kBlockRows; j += 8)
              _mm256_storeu_ps(row_out + j, _mm256_add_ps(_mm256_loadu_ps(row_out + j),
                                                          _mm256_loadu_ps(row_out + kBlockRows + j)));
          store_floats(row_out, y + (m0 + r) / levels * N + n0, kBlockRows);
        }
      }
    }
  });
}

}  // namespace

bool built() { return true; }

void int4_linear(const at::Tensor& x, const at::Tensor& packed, int64_t group, const at::Tensor& scales_zeros,
                 int64_t block_rows, int64_t levels, at::Tensor& out) {
  for_dtype_and_block_rows(x, block_rows, [&](auto scalar, auto rows) {
    run<decltype(scalar), decltype(rows)::value>(x, packed, scales_zeros, group, levels, out);
  });
}

#else  // no AVX2: int4_linear.cpp refuses before calling here

bool built() { return false; }

void int4_linear(const at::Tensor&, const at::Tensor&, int64_t, const at::Tensor&, int64_t, int64_t, at::Tensor&) {}

#endif  // WARDEN_AVX2

}  // namespace warden::avx2
