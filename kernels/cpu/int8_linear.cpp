// Weight-only int8 linear (per-output-channel scales) for one or a few input rows: the LM head at low concurrency,
// small decode batches, draft verification. Same signature and weights as torch._weight_int8pack_mm (weight int8
// [N, K] row-major, scales [N]).
//
// Why: the int8 head is the largest single read of a decode step (SmolLM2: 49152 x 576 = 28 MB), and torch's
// kernel converts every weight to float for an FMA. Here each input row is quantized to int8 per group of 32 in
// two levels (quantize_input.h: codes and residuals, finer than bfloat16), the levels joined as one 16-bit integer
// 254 * code + residual, and each 64 weights are dotted with it by two AVX-512 VNNI vpdpwssd. The weight's sign bit
// is flipped (w ^ 0x80 = w + 128, the unsigned operand vpdpbusd takes; kept with vpdpwssd, so the weights' layout
// and every row's results stay what they are) and the 128 x sum(dequantized inputs) that adds, the same for every
// output row, is taken off once:
//   y[n] = scale[n] * (sum_g x_scale[g] / 254 * sum_k (w[n, k] + 128) * (254 * x_code[k] + x_residual[k])
//                      - 128 * sum_k x[k])
//
// Several rows: each loaded weight chunk is regrouped once and dotted with a tile of up to 4 input rows, while the
// weight rows are in cache, so M rows read the weight once instead of M times; per row the operations are the same
// whatever the tile, so every row's results are bitwise those it gets alone. Per (input row, 64 weights): two
// vpdpwssd, a conversion and an FMA (two vpdpbusd would need a multiply by 254 and an add between them).
//
// One row (the LM head of a single stream) has a path of its own: no rows to share a regrouped chunk with, so the
// weight bytes are split into vpdpwssd's operands in place by a mask and a shift, each output row's weight is read
// as one stream, and the lanes of 16 output rows are summed together across vectors instead of one horizontal
// sum per row; the same integers and float operations, so the same bits as the kernel for several rows.
//
// Without AVX-512 VNNI (AMD Zen 2/3, Intel client cores) the same kernel runs in 256-bit AVX2 vectors, vpmaddwd for
// vpdpwssd, with bitwise the same results (docs/benchmarks.md, "CPU linears", has both against torch's kernel).
//
// Built with the other CPU kernels by kernels/cpu/__init__.py; registered as torch.ops.warden_cpu.int8_linear,
// int8_linear_up_to, int8_linear_avx2 (the AVX2 build on any CPU, for tests) and int8_linear_supported.

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "cpu_linears.h"
#include "quantize_input.h"
#include "store_rounded.h"
#include "widen_bf16.h"

// The AVX2 build of the same kernel, for x86 CPUs without AVX-512 VNNI (AMD Zen 2/3, Intel client cores): vpmaddwd
// pairs instead of vpdpwssd, half a chunk per 256-bit vector; every result bitwise the AVX-512 kernel's.
#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>
#define WARDEN_INT8_AVX2 1
#endif

namespace {

constexpr int64_t kInputGroup = 32;  // inputs per int8 scale (llama.cpp's Q8_0 block)
constexpr int64_t kChunk = 64;  // weights per vector: two input groups
constexpr int64_t kTileRows = 4;  // output rows sharing each loaded input chunk
constexpr int64_t kTileInputs = 4;  // input rows dotted with each loaded weight chunk
using warden::kPrefetchBytes;

#if defined(WARDEN_ONE_ROW_VECTOR) || defined(WARDEN_INT8_AVX2)

// Per quantized input row and 64-input chunk, three vectors in a row: the inputs as 16-bit integers
// 254 * code + residual (the two levels in one number, at most 254 x 127 + 127 = 32385), in the order vpdpwssd
// pairs them with regroup_chunk's two weight vectors (32-bit lane j of the first holds k 4j and 4j + 1, of the
// second 4j + 2 and 4j + 3), and the two groups' residual-step sizes (lanes 0-7 the first group's, 8-15 the
// second's: the lanes the products of each group are summed into).
constexpr int64_t kChunkBytes = 3 * 64;

// The input rows quantized once per call (quantize_groups_two_level), each row's chunks consecutive, and per row the
// correction for the flipped weight sign.
struct QuantizedRows {
  std::vector<int16_t> chunks;  // [M, K / 64, kChunkBytes / 2]
  std::vector<float> sign_corrections;  // [M]
  int64_t row_values = 0;

  const int16_t* row(int64_t m) const { return chunks.data() + m * row_values; }
};

template <typename scalar_t>
QuantizedRows quantize_rows(const scalar_t* x, int64_t M, int64_t K) {
  constexpr int64_t kChunkValues = kChunkBytes / 2;
  QuantizedRows q{std::vector<int16_t>(M * (K / kChunk) * kChunkValues), std::vector<float>(M, 0.f),
                  (K / kChunk) * kChunkValues};
  warden::Int8Groups groups;
  for (int64_t m = 0; m < M; ++m) {
#ifdef WARDEN_ONE_ROW_VECTOR
    warden::quantize_groups_two_level(x + m * K, K, kInputGroup, groups);
#else
    warden::quantize_groups(x + m * K, K, kInputGroup, groups);  // bitwise the same values, scalar
#endif
    int16_t* row = q.chunks.data() + m * q.row_values;
    const auto unit = [&](int64_t g) { return groups.scales[g] / warden::kResidualSteps; };
    for (int64_t c = 0; c < K / kChunk; ++c) {
      int16_t* chunk = row + c * kChunkValues;
      for (int64_t j = 0; j < 16; ++j)
        for (int64_t i = 0; i < 4; ++i) {
          const int64_t k = c * kChunk + 4 * j + i;
          // i 0-1: the first vector's lane j, 2-3: the second's
          chunk[(i / 2) * 32 + 2 * j + i % 2] =
              static_cast<int16_t>(warden::kResidualSteps * groups.codes[k] + groups.residuals[k]);
        }
      float units[16];
      for (int64_t lane = 0; lane < 16; ++lane) units[lane] = unit(2 * c + lane / 8);
      std::memcpy(chunk + 64, units, sizeof(units));
    }
    // Summed group by group in order, as the one-row kernel summed them (a row's results stay bitwise its own).
    for (int64_t g = 0; g < K / kInputGroup; ++g)
      q.sign_corrections[m] += 128.f * groups.sum(g);
  }
  return q;
}

#endif  // WARDEN_ONE_ROW_VECTOR || WARDEN_INT8_AVX2

#ifdef WARDEN_ONE_ROW_VECTOR

// 64 int8 weights as vpdpwssd's two 16-bit operands, sign flipped (w ^ 0x80 = w + 128, 0..255): in 32-bit lane j,
// k 4j and 4j + 1 in the first, 4j + 2 and 4j + 3 in the second. A shuffle within each 16-byte lane puts k
// {0, 1, 4, 5, 8, 9, 12, 13} before {2, 3, 6, 7, 10, 11, 14, 15}; widening the lanes' low and high halves with
// zeros makes the two operands.
inline void regroup_chunk(const int8_t* line, __m512i& first, __m512i& second) {
  const __m512i sign = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i pairs = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15));
  const __m512i bytes = _mm512_shuffle_epi8(_mm512_xor_si512(_mm512_loadu_si512(line), sign), pairs);
  first = _mm512_unpacklo_epi8(bytes, _mm512_setzero_si512());
  second = _mm512_unpackhi_epi8(bytes, _mm512_setzero_si512());
}

// `R` consecutive output rows (weight rows starting at `w`) against `T` quantized input rows: dots[t][column + r].
// Each weight chunk is loaded and regrouped once and dotted with every input row of the tile. Per (input row,
// output row) and chunk, two vpdpwssd form in each 32-bit lane the integer the one-row kernel formed with two
// vpdpbusd, a mullo and an add, sum_k (w + 128) * (254 * code + residual) over the lane's four k (exact in int32:
// at most 4 x 255 x 32385), then one conversion and one multiply-add per chunk in the same order: every row's
// results are bitwise those it gets alone, whatever the tile. 4 x 4 float accumulators and 4 x 2 weight operands
// fit the 32 vector registers with the input chunk's. `kPrefetch`: the first pass over these weight rows (the
// first input tile), which requests the stream ahead; later tiles read them from L1.
template <int R, int T, bool kPrefetch>
inline void dot_tile(const int8_t* w, int64_t K, const int16_t* const (&x)[T], const float* const (&corrections)[T],
                     float (*dots)[kTileRows], int64_t column) {
  __m512 acc[T][R];
  for (int t = 0; t < T; ++t)
    for (int r = 0; r < R; ++r) acc[t][r] = _mm512_setzero_ps();
  for (int64_t c = 0; c < K / kChunk; ++c) {
    __m512i first[R], second[R];
    for (int r = 0; r < R; ++r) {
      const int8_t* line = w + r * K + c * kChunk;
      if constexpr (kPrefetch) _mm_prefetch(reinterpret_cast<const char*>(line) + kPrefetchBytes, _MM_HINT_T0);
      regroup_chunk(line, first[r], second[r]);
    }
    for (int t = 0; t < T; ++t) {
      const int16_t* chunk = x[t] + c * (kChunkBytes / 2);
      const __m512i x_first = _mm512_loadu_si512(chunk), x_second = _mm512_loadu_si512(chunk + 32);
      const __m512 units = _mm512_loadu_ps(chunk + 64);
      for (int r = 0; r < R; ++r) {
        const __m512i sums =
            _mm512_dpwssd_epi32(_mm512_dpwssd_epi32(_mm512_setzero_si512(), first[r], x_first), second[r], x_second);
        acc[t][r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums), units, acc[t][r]);
      }
    }
  }
  for (int t = 0; t < T; ++t)
    for (int r = 0; r < R; ++r) dots[t][column + r] = _mm512_reduce_add_ps(acc[t][r]) - *corrections[t];
}

// One input row (the LM head at a single stream): the weight bytes are widened in place, no shuffle. Per 64-input
// chunk the inputs as 16-bit integers 254 * code + residual, in the order dot_block_single's two weight operands
// hold k (32-bit lane j of the first: k 4j and 4j + 2, of the second: 4j + 1 and 4j + 3; a lane's four k are those
// regroup_chunk puts in it, so its integer sum is the same), then the two groups' residual-step sizes.
constexpr int64_t kSingleBlock = 16;  // output rows summed across lanes together

struct SingleRow {
  std::vector<int16_t> chunks;  // [K / 64, kChunkBytes / 2]
  float sign_correction = 0.f;
};

template <typename scalar_t>
SingleRow quantize_single_row(const scalar_t* x, int64_t K) {
  constexpr int64_t kChunkValues = kChunkBytes / 2;
  SingleRow q{std::vector<int16_t>((K / kChunk) * kChunkValues), 0.f};
  warden::Int8Groups groups;
  warden::quantize_groups_two_level(x, K, kInputGroup, groups);
  for (int64_t c = 0; c < K / kChunk; ++c) {
    int16_t* chunk = q.chunks.data() + c * kChunkValues;
    for (int64_t j = 0; j < 16; ++j)
      for (int64_t i = 0; i < 4; ++i) {
        const int64_t k = c * kChunk + 4 * j + i;
        // even i: the first vector's lane j, odd: the second's; i / 2 the 16-bit half
        chunk[(i % 2) * 32 + 2 * j + i / 2] =
            static_cast<int16_t>(warden::kResidualSteps * groups.codes[k] + groups.residuals[k]);
      }
    float units[16];
    for (int64_t lane = 0; lane < 16; ++lane) units[lane] = groups.scales[2 * c + lane / 8] / warden::kResidualSteps;
    std::memcpy(chunk + 64, units, sizeof(units));
  }
  // Summed group by group in order, as quantize_rows sums them.
  for (int64_t g = 0; g < K / kInputGroup; ++g) q.sign_correction += 128.f * groups.sum(g);
  return q;
}

// _mm512_reduce_add_ps of 16 vectors at once, its pairing kept: every stage adds the lanes that reduction adds
// (8-15 onto 0-7, the 128-bit halves, lanes 2-3 onto 0-1, then the two), two or more rows per vector, so each sum
// is bitwise its own reduction's. Lane 4l + j of the result holds v[4j + l]'s sum (a 4 x 4 transpose).
inline __m512 reduce_16(const __m512 (&v)[kSingleBlock]) {
  __m512 b[8], c[4], d[2];
  for (int p = 0; p < 8; ++p) {  // [b(2p) | b(2p+1)], b = lanes 0-7 + lanes 8-15
    const __m512 lo = _mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 hi = _mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], _MM_SHUFFLE(3, 2, 3, 2));
    b[p] = _mm512_add_ps(hi, lo);
  }
  for (int p = 0; p < 4; ++p) {  // 128-bit lanes: c of rows 4p, 4p+1, 4p+2, 4p+3
    const __m512 lo = _mm512_shuffle_f32x4(b[2 * p], b[2 * p + 1], _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 hi = _mm512_shuffle_f32x4(b[2 * p], b[2 * p + 1], _MM_SHUFFLE(3, 1, 3, 1));
    c[p] = _mm512_add_ps(hi, lo);
  }
  for (int p = 0; p < 2; ++p) {  // 128-bit lane l: d0, d1 of row (c[2p]'s l-th) then of row (c[2p+1]'s l-th)
    const __m512 lo = _mm512_shuffle_ps(c[2 * p], c[2 * p + 1], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 hi = _mm512_shuffle_ps(c[2 * p], c[2 * p + 1], _MM_SHUFFLE(3, 2, 3, 2));
    d[p] = _mm512_add_ps(hi, lo);
  }
  const __m512 lo = _mm512_shuffle_ps(d[0], d[1], _MM_SHUFFLE(2, 0, 2, 0));
  const __m512 hi = _mm512_shuffle_ps(d[0], d[1], _MM_SHUFFLE(3, 1, 3, 1));
  return _mm512_add_ps(lo, hi);  // d0 + d1, as the reduction's last add (either order: the same float)
}

// 16 consecutive output rows against one quantized input row. Per (row, chunk) the 64 weight bytes, sign flipped,
// as vpdpwssd's two 16-bit operands by a mask and a shift (the even bytes, the odd bytes), two vpdpwssd forming in
// each 32-bit lane the integer dot_tile forms (exact in int32), then the same conversion and FMA, and the lanes
// summed in _mm512_reduce_add_ps's pairing: results bitwise dot_tile's. The row sums are gathered across lanes 16
// rows at a time, not one horizontal sum per row.
inline __m512 dot_block_single(const int8_t* w, int64_t K, const SingleRow& q) {
  const __m512i low_bytes = _mm512_set1_epi16(0x00FF), sign = _mm512_set1_epi16(0x0080);
  __m512 acc[kSingleBlock];
  for (int r = 0; r < kSingleBlock; ++r) acc[r] = _mm512_setzero_ps();
  // Row by row, so the weight is read as one stream (the input chunks are reloaded from L1).
  for (int r = 0; r < kSingleBlock; ++r) {
    for (int64_t c = 0; c < K / kChunk; ++c) {
      const int16_t* chunk = q.chunks.data() + c * (kChunkBytes / 2);
      const int8_t* line = w + r * K + c * kChunk;
      _mm_prefetch(reinterpret_cast<const char*>(line) + kPrefetchBytes, _MM_HINT_T0);
      const __m512i bytes = _mm512_loadu_si512(line);
      // (w & 0xFF) ^ 0x80 = w + 128 for the even bytes; the odd ones shifted down, then flipped
      const __m512i even = _mm512_ternarylogic_epi32(bytes, low_bytes, sign, 0x6A);
      const __m512i odd = _mm512_xor_si512(_mm512_srli_epi16(bytes, 8), sign);
      const __m512i sums = _mm512_dpwssd_epi32(
          _mm512_dpwssd_epi32(_mm512_setzero_si512(), even, _mm512_loadu_si512(chunk)), odd,
          _mm512_loadu_si512(chunk + 32));
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums), _mm512_loadu_ps(reinterpret_cast<const float*>(chunk + 64)),
                               acc[r]);
    }
  }
  // reduce_16 transposes: handed the rows in transposed order, its lane i holds row i.
  __m512 transposed[kSingleBlock];
  for (int l = 0; l < 4; ++l)
    for (int j = 0; j < 4; ++j) transposed[4 * j + l] = acc[4 * l + j];
  return reduce_16(transposed);
}

// y = scale * (dot - correction) for one input row, 16 output rows a block; the last N % 16 rows by dot_tile.
template <typename scalar_t>
void int8_linear_single_row(const scalar_t* x, int64_t K, const int8_t* w, const scalar_t* s, int64_t N,
                            scalar_t* y) {
  const SingleRow q = quantize_single_row(x, K);
  const int64_t blocks = N / kSingleBlock;
  at::parallel_for(0, blocks, 16, [&](int64_t begin, int64_t end) {
    const __m512 correction = _mm512_set1_ps(q.sign_correction);
    for (int64_t b = begin; b < end; ++b) {
      const int64_t n0 = b * kSingleBlock;
      const __m512 dots = _mm512_sub_ps(dot_block_single(w + n0 * K, K, q), correction);
      alignas(64) float out[kSingleBlock];
      _mm512_store_ps(out, _mm512_mul_ps(warden::load_scales(s + n0), dots));
      warden::store_rounded(out, y + n0, kSingleBlock);
    }
  });
  if (blocks * kSingleBlock == N) return;
  const QuantizedRows rows = quantize_rows(x, 1, K);
  const int16_t* row[1] = {rows.row(0)};
  const float* corrections[1] = {&rows.sign_corrections[0]};
  float dots[kTileInputs][kTileRows];
  for (int64_t n = blocks * kSingleBlock; n < N; ++n) {
    dot_tile<1, 1, false>(w + n * K, K, row, corrections, dots, 0);
    y[n] = static_cast<scalar_t>(static_cast<float>(s[n]) * dots[0][0]);
  }
}

#endif  // WARDEN_ONE_ROW_VECTOR

#ifdef WARDEN_INT8_AVX2

// dot_tile in 256-bit vectors: each half of a chunk (32 weights, one input group: lanes 0-7 of the AVX-512 kernel's
// accumulators, then 8-15) in a pass of its own over the tile's weight rows (the second reads them from L1), so a
// pass keeps R x T accumulators, 2 x R weight operands and one input half in the 16 registers. vpmaddwd sums each
// lane's two 16-bit products as vpdpwssd does (its two added: the same int32), then the same conversion and FMA
// per lane, and the lanes are summed in _mm512_reduce_add_ps's order: bitwise the AVX-512 kernel's results.
template <int R, int T, bool kPrefetch>
inline void dot_tile_avx2(const int8_t* w, int64_t K, const int16_t* const (&x)[T],
                          const float* const (&corrections)[T], float (*dots)[kTileRows], int64_t column) {
  const __m256i sign = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i pairs = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                         0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
  __m256 halves[2][T][R];
  for (int h = 0; h < 2; ++h) {
    __m256 acc[T][R];
    for (int t = 0; t < T; ++t)
      for (int r = 0; r < R; ++r) acc[t][r] = _mm256_setzero_ps();
    for (int64_t c = 0; c < K / kChunk; ++c) {
      __m256i first[R], second[R];
      for (int r = 0; r < R; ++r) {
        const int8_t* line = w + r * K + c * kChunk;
        if constexpr (kPrefetch)
          if (h == 0) _mm_prefetch(reinterpret_cast<const char*>(line) + kPrefetchBytes, _MM_HINT_T0);
        const __m256i bytes = _mm256_shuffle_epi8(
            _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32 * h)), sign), pairs);
        first[r] = _mm256_unpacklo_epi8(bytes, _mm256_setzero_si256());
        second[r] = _mm256_unpackhi_epi8(bytes, _mm256_setzero_si256());
      }
      for (int t = 0; t < T; ++t) {
        const int16_t* chunk = x[t] + c * (kChunkBytes / 2);
        const __m256i x_first = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(chunk + 16 * h));
        const __m256i x_second = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(chunk + 32 + 16 * h));
        const __m256 units = _mm256_loadu_ps(reinterpret_cast<const float*>(chunk + 64) + 8 * h);
        for (int r = 0; r < R; ++r) {
          const __m256i sums =
              _mm256_add_epi32(_mm256_madd_epi16(first[r], x_first), _mm256_madd_epi16(second[r], x_second));
          acc[t][r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums), units, acc[t][r]);
        }
      }
    }
    for (int t = 0; t < T; ++t)
      for (int r = 0; r < R; ++r) halves[h][t][r] = acc[t][r];
  }
  for (int t = 0; t < T; ++t)
    for (int r = 0; r < R; ++r) {
      // _mm512_reduce_add_ps: lanes 8-15 onto 0-7, then the 128-bit halves, then lanes 2-3 onto 0-1, then the two
      const __m256 eight = _mm256_add_ps(halves[1][t][r], halves[0][t][r]);
      const __m128 four = _mm_add_ps(_mm256_extractf128_ps(eight, 1), _mm256_castps256_ps128(eight));
      const __m128 two = _mm_add_ps(four, _mm_shuffle_ps(four, four, _MM_SHUFFLE(1, 0, 3, 2)));
      dots[t][column + r] = (_mm_cvtss_f32(two) + _mm_cvtss_f32(_mm_shuffle_ps(two, two, 1))) - *corrections[t];
    }
}

#endif  // WARDEN_INT8_AVX2

#if defined(WARDEN_ONE_ROW_VECTOR) || defined(WARDEN_INT8_AVX2)

// The output rows n0..n0+count (up to kTileRows) against T input rows from m0, by the AVX-512 kernel (kWide) or the
// AVX2 one (2 output rows at a time: its registers hold fewer accumulators).
template <bool kWide, int T, bool kPrefetch>
void dot_input_tile(const int8_t* w, int64_t K, const QuantizedRows& q, int64_t m0, int64_t n0, int64_t count,
                    float (&dots)[kTileInputs][kTileRows]) {
  const int16_t* x[T];
  const float* corrections[T];
  for (int t = 0; t < T; ++t) x[t] = q.row(m0 + t), corrections[t] = &q.sign_corrections[m0 + t];
  if constexpr (kWide) {
#ifdef WARDEN_ONE_ROW_VECTOR
    if (count == kTileRows) {
      dot_tile<kTileRows, T, kPrefetch>(w + n0 * K, K, x, corrections, dots, 0);
    } else {
      for (int64_t r = 0; r < count; ++r) dot_tile<1, T, kPrefetch>(w + (n0 + r) * K, K, x, corrections, dots, r);
    }
#endif
  } else {
#ifdef WARDEN_INT8_AVX2
    int64_t r = 0;
    for (; r + 2 <= count; r += 2) dot_tile_avx2<2, T, kPrefetch>(w + (n0 + r) * K, K, x, corrections, dots, r);
    if (r < count) dot_tile_avx2<1, T, kPrefetch>(w + (n0 + r) * K, K, x, corrections, dots, r);
#endif
  }
}

template <bool kWide, bool kPrefetch>
void dot_inputs(const int8_t* w, int64_t K, const QuantizedRows& q, int64_t m0, int64_t tile, int64_t n0,
                int64_t count, float (&dots)[kTileInputs][kTileRows]) {
  switch (tile) {
    case 1: dot_input_tile<kWide, 1, kPrefetch>(w, K, q, m0, n0, count, dots); break;
    case 2: dot_input_tile<kWide, 2, kPrefetch>(w, K, q, m0, n0, count, dots); break;
    case 3: dot_input_tile<kWide, 3, kPrefetch>(w, K, q, m0, n0, count, dots); break;
    default: dot_input_tile<kWide, kTileInputs, kPrefetch>(w, K, q, m0, n0, count, dots); break;
  }
}

template <bool kWide, typename scalar_t>
void int8_linear_kernel(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales, at::Tensor& out) {
  const int64_t M = x.size(0), K = x.size(1), N = weight.size(0);
#ifdef WARDEN_ONE_ROW_VECTOR
  if (kWide && M == 1) {
    int8_linear_single_row(x.const_data_ptr<scalar_t>(), K, weight.const_data_ptr<int8_t>(),
                           scales.const_data_ptr<scalar_t>(), N, out.mutable_data_ptr<scalar_t>());
    return;
  }
#endif
  const QuantizedRows q = quantize_rows(x.const_data_ptr<scalar_t>(), M, K);
  const int8_t* w = weight.const_data_ptr<int8_t>();
  const scalar_t* s = scales.const_data_ptr<scalar_t>();
  scalar_t* y = out.mutable_data_ptr<scalar_t>();
  const int64_t tiles = (N + kTileRows - 1) / kTileRows;
  at::parallel_for(0, tiles, 64, [&](int64_t begin, int64_t end) {
    float dots[kTileInputs][kTileRows];
    for (int64_t t = begin; t < end; ++t) {
      const int64_t n0 = t * kTileRows, count = std::min(kTileRows, N - n0);
      // Every input row against these weight rows while they are in cache, kTileInputs rows at a time: M rows
      // read the weight once, not M times.
      for (int64_t m0 = 0; m0 < M; m0 += kTileInputs) {
        const int64_t tile = std::min(kTileInputs, M - m0);
        if (m0 == 0) {
          dot_inputs<kWide, true>(w, K, q, m0, tile, n0, count, dots);
        } else {
          dot_inputs<kWide, false>(w, K, q, m0, tile, n0, count, dots);
        }
        for (int64_t i = 0; i < tile; ++i)
          for (int64_t r = 0; r < count; ++r)
            y[(m0 + i) * N + n0 + r] = static_cast<scalar_t>(static_cast<float>(s[n0 + r]) * dots[i][r]);
      }
    }
  });
}

#endif  // WARDEN_ONE_ROW_VECTOR || WARDEN_INT8_AVX2


constexpr bool kAvx2 =
#ifdef WARDEN_INT8_AVX2
    true;
#else
    false;
#endif

}  // namespace

void warden::int8::check_inputs(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales) {
  TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && scales.dim() == 1, "x [rows, K], weight [N, K], scales [N]");
  TORCH_CHECK(x.device().is_cpu() && weight.device().is_cpu() && scales.device().is_cpu(),
              "int8_linear runs on CPU tensors");
  const int64_t K = x.size(1), N = weight.size(0);
  TORCH_CHECK(weight.scalar_type() == at::kChar && weight.size(1) == K && weight.is_contiguous(),
              "weight is contiguous int8 [N, K]");
  TORCH_CHECK(K % kChunk == 0, "int8_linear reads 64 inputs at a time: K must be a multiple of 64, got ", K);
  TORCH_CHECK(x.scalar_type() == at::kFloat || x.scalar_type() == at::kBFloat16 || x.scalar_type() == at::kHalf,
              "x is float32, bfloat16 or float16");
  TORCH_CHECK(scales.scalar_type() == x.scalar_type() && scales.size(0) == N && scales.is_contiguous(),
              "scales is contiguous [N] in x's dtype");
}

namespace {

using warden::int8::check_inputs;

template <bool kWide>
at::Tensor run_kernel(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales) {
  check_inputs(x, weight, scales);
  const at::Tensor xc = x.contiguous();
  at::Tensor out = at::empty({x.size(0), weight.size(0)}, x.options());
#if defined(WARDEN_ONE_ROW_VECTOR) || defined(WARDEN_INT8_AVX2)
  // (not AT_DISPATCH_FLOATING_TYPES: the vector input loads have no double, which the check above refuses)
  if (x.scalar_type() == at::kFloat) {
    int8_linear_kernel<kWide, float>(xc, weight, scales, out);
  } else if (x.scalar_type() == at::kBFloat16) {
    int8_linear_kernel<kWide, c10::BFloat16>(xc, weight, scales, out);
  } else {
    int8_linear_kernel<kWide, c10::Half>(xc, weight, scales, out);
  }
#endif
  return out;
}

// The AVX2 kernel whatever this CPU has: what int8_linear runs without AVX-512 VNNI, an op of its own so that the
// tests check it against the AVX-512 kernel where both are built.
at::Tensor int8_linear_avx2(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales) {
  TORCH_CHECK(kAvx2, "int8_linear_avx2 needs AVX2, FMA and F16C; use torch._weight_int8pack_mm");
  return run_kernel<false>(x, weight, scales);
}

at::Tensor int8_linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales) {
  if (!warden::kOneRowVector) return int8_linear_avx2(x, weight, scales);
  return run_kernel<true>(x, weight, scales);
}


// This kernel for inputs of at most `kernel_rows` rows; above, one that keeps the inputs unquantized: the bf16 GEMM
// for bfloat16 inputs on AVX512-BF16 CPUs (whole 64-row blocks), else torch's kernel (where its weight-to-float
// conversion is shared by enough rows). For a compiled graph whose row count is symbolic, the choice made per call
// inside one opaque op, as int4_linear_up_to.
at::Tensor int8_linear_up_to(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales,
                             int64_t kernel_rows) {
  if (x.size(0) <= kernel_rows) return int8_linear(x, weight, scales);
  if (warden::int8::bf16_gemm_serves(x.scalar_type(), weight.size(0))) return warden::int8::gemm_bf16(x, weight, scales);
  return at::_weight_int8pack_mm(x, weight, scales);
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(warden_cpu, m) {
  // Whether int8_linear runs here: the AVX-512 kernel, or else the AVX2 one.
  m.def("int8_linear_supported() -> bool", [] { return warden::kOneRowVector || kAvx2; });
  m.def("int8_linear(Tensor x, Tensor weight, Tensor scales) -> Tensor");
  m.def("int8_linear_avx2(Tensor x, Tensor weight, Tensor scales) -> Tensor");
  m.def("int8_linear_up_to(Tensor x, Tensor weight, Tensor scales, int kernel_rows) -> Tensor");
}

TORCH_LIBRARY_IMPL(warden_cpu, CPU, m) {
  m.impl("int8_linear", &int8_linear);
  m.impl("int8_linear_avx2", &int8_linear_avx2);
  m.impl("int8_linear_up_to", &int8_linear_up_to);
}
