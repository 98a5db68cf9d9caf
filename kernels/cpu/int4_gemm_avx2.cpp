// The int4 linear for many input rows on CPUs with AVX2 but without AVX-512 (prefill chunks, decode batches above
// the small-batch kernel's rows): torch's CPU int4 packing dequantized a block at a time to float32 and multiplied
// with the float32 inputs by FMA, so the results are torch's own kernel's math (no input quantization) in another
// order of additions.
//
// Why: torch's int4 kernel on such a CPU uses a fraction of the core's FMA peak; int4_linear_avx2.cpp's int8 dot
// products are faster but quantize every input to 8 bits per group, which on every step costs greedy agreement with
// float32 (bench.agreement). Here each weight is dequantized once per call and
// reused by every input row, and the inner loop is a register tile of 6 rows x 16 outputs (12 accumulators, two
// weight vectors, one broadcast input: 12 FMAs per two loads), which keeps both FMA pipes busy.
//
// Layout: [N / B, K, B / 2] bytes (B = 64 on AVX-512 builds of torch, 32 elsewhere), byte j of (block, k) holding
// output row j in its low nibble and row B / 2 + j in its high one; a weight is code * scale + (zero - 8 * scale).
// A block's weights are dequantized for a chunk of k at a time into [B / 16][chunk][16] floats (contiguous per
// 16-output tile, at most 64 KB: L2-resident whatever K is), and each input row's B results are accumulated in
// float32 across the chunks.

#include "avx2_linears.h"
#include "avx2_vectors.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace warden::avx2 {

#ifdef WARDEN_AVX2

namespace {

constexpr int kTileRows = 6;  // input rows per register tile
constexpr int kTileOutputs = 16;  // outputs per register tile: two float32 vectors
constexpr int64_t kChunkK = 256;  // k dequantized at a time (rounded to whole groups)

// The block's weights for k in [k0, k0 + chunk) as float32, [B / 16][chunk][16] (output row n at tile n / 16,
// lane n % 16); the (scale, offset) pairs of group g are those of the k it covers.
template <typename scalar_t, int kBlockRows>
void dequantize_chunk(const uint8_t* block, const scalar_t* scales_zeros, int64_t N, int64_t n0, int64_t group,
                      int64_t k0, int64_t chunk, float* out) {
  constexpr int kHalf = kBlockRows / 2;
  alignas(32) float scale[kBlockRows], offset[kBlockRows];
  for (int64_t g = k0 / group; g < (k0 + chunk) / group; ++g) {
    const scalar_t* pairs = scales_zeros + (g * N + n0) * 2;
    for (int j = 0; j < kBlockRows; j += 8) {
      __m256 s, zero;
      load_scale_zero(pairs + j * 2, s, zero);
      _mm256_store_ps(scale + j, s);
      // zero - 8 * scale: the stored codes lack their -8.
      _mm256_store_ps(offset + j, _mm256_fnmadd_ps(_mm256_set1_ps(8.f), s, zero));
    }
    for (int64_t k = g * group; k < (g + 1) * group; ++k) {
      const uint8_t* line = block + k * kHalf;
      float* row_k = out + (k - k0) * kTileOutputs;
      for (int j = 0; j < kHalf; j += 8) {
        const __m256i bytes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(line + j)));
        const __m256 low = _mm256_cvtepi32_ps(_mm256_and_si256(bytes, _mm256_set1_epi32(0x0F)));
        const __m256 high = _mm256_cvtepi32_ps(_mm256_srli_epi32(bytes, 4));
        const int n_low = j, n_high = kHalf + j;
        _mm256_storeu_ps(row_k + (n_low / kTileOutputs) * chunk * kTileOutputs + n_low % kTileOutputs,
                         _mm256_fmadd_ps(low, _mm256_load_ps(scale + n_low), _mm256_load_ps(offset + n_low)));
        _mm256_storeu_ps(row_k + (n_high / kTileOutputs) * chunk * kTileOutputs + n_high % kTileOutputs,
                         _mm256_fmadd_ps(high, _mm256_load_ps(scale + n_high), _mm256_load_ps(offset + n_high)));
      }
    }
  }
}

// acc[r][0..16) += sum over the chunk's k of x[r][k] * w[k][0..16), for R input rows (x rows at stride K).
template <int R>
__attribute__((always_inline)) inline void tile_chunk(const float* x, int64_t K, const float* w, int64_t chunk,
                                                      float* acc, int64_t acc_stride) {
  __m256 sums[R][2];
  for (int r = 0; r < R; ++r) {
    sums[r][0] = _mm256_loadu_ps(acc + r * acc_stride);
    sums[r][1] = _mm256_loadu_ps(acc + r * acc_stride + 8);
  }
  // Unrolled by 4: the loop's own increments and branch leave the FMA pipes more of the 6-wide dispatch.
#pragma GCC unroll 4
  for (int64_t k = 0; k < chunk; ++k) {
    const __m256 w0 = _mm256_loadu_ps(w + k * kTileOutputs), w1 = _mm256_loadu_ps(w + k * kTileOutputs + 8);
    for (int r = 0; r < R; ++r) {
      const __m256 input = _mm256_broadcast_ss(x + r * K + k);
      sums[r][0] = _mm256_fmadd_ps(w0, input, sums[r][0]);
      sums[r][1] = _mm256_fmadd_ps(w1, input, sums[r][1]);
    }
  }
  for (int r = 0; r < R; ++r) {
    _mm256_storeu_ps(acc + r * acc_stride, sums[r][0]);
    _mm256_storeu_ps(acc + r * acc_stride + 8, sums[r][1]);
  }
}

template <typename scalar_t, int kBlockRows>
void run(const at::Tensor& x, const at::Tensor& packed, const at::Tensor& scales_zeros, int64_t group,
         at::Tensor& out) {
  const int64_t M = x.size(0), K = x.size(1), N = packed.size(0);
  const int64_t chunk_k = std::max<int64_t>(group, kChunkK / group * group);
  const at::Tensor inputs = x.to(at::kFloat).contiguous();  // every row once, read by every block
  const float* xf = inputs.const_data_ptr<float>();
  const uint8_t* w = packed.const_data_ptr<uint8_t>();
  const scalar_t* sz = scales_zeros.const_data_ptr<scalar_t>();
  scalar_t* y = out.mutable_data_ptr<scalar_t>();
  at::parallel_for(0, N / kBlockRows, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> weights(static_cast<size_t>(chunk_k * kBlockRows));
    std::vector<float> acc(static_cast<size_t>(M * kBlockRows));  // [M][B] float32 results of this block
    for (int64_t b = begin; b < end; ++b) {
      const uint8_t* block = w + b * K * (kBlockRows / 2);
      const int64_t n0 = b * kBlockRows;
      std::fill(acc.begin(), acc.end(), 0.f);
      for (int64_t k0 = 0; k0 < K; k0 += chunk_k) {
        const int64_t chunk = std::min(chunk_k, K - k0);
        dequantize_chunk<scalar_t, kBlockRows>(block, sz, N, n0, group, k0, chunk, weights.data());
        for (int64_t m0 = 0; m0 < M; m0 += kTileRows) {
          const float* x_tile = xf + m0 * K + k0;
          for (int t = 0; t < kBlockRows / kTileOutputs; ++t) {
            const float* w_tile = weights.data() + t * chunk * kTileOutputs;
            float* acc_tile = acc.data() + m0 * kBlockRows + t * kTileOutputs;
            switch (std::min<int64_t>(kTileRows, M - m0)) {
              case 1: tile_chunk<1>(x_tile, K, w_tile, chunk, acc_tile, kBlockRows); break;
              case 2: tile_chunk<2>(x_tile, K, w_tile, chunk, acc_tile, kBlockRows); break;
              case 3: tile_chunk<3>(x_tile, K, w_tile, chunk, acc_tile, kBlockRows); break;
              case 4: tile_chunk<4>(x_tile, K, w_tile, chunk, acc_tile, kBlockRows); break;
              case 5: tile_chunk<5>(x_tile, K, w_tile, chunk, acc_tile, kBlockRows); break;
              default: tile_chunk<kTileRows>(x_tile, K, w_tile, chunk, acc_tile, kBlockRows); break;
            }
          }
        }
      }
      for (int64_t m = 0; m < M; ++m) store_floats(acc.data() + m * kBlockRows, y + m * N + n0, kBlockRows);
    }
  });
}

}  // namespace

void int4_gemm(const at::Tensor& x, const at::Tensor& packed, int64_t group, const at::Tensor& scales_zeros,
               int64_t block_rows, at::Tensor& out) {
  for_dtype_and_block_rows(x, block_rows, [&](auto scalar, auto rows) {
    run<decltype(scalar), decltype(rows)::value>(x, packed, scales_zeros, group, out);
  });
}

#else  // no AVX2: int4_linear.cpp refuses before calling here

void int4_gemm(const at::Tensor&, const at::Tensor&, int64_t, const at::Tensor&, int64_t, at::Tensor&) {}

#endif  // WARDEN_AVX2

}  // namespace warden::avx2
