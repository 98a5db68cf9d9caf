// 256-bit helpers shared by the AVX2 int4 kernels (int4_linear_avx2.cpp, int4_gemm_avx2.cpp): reading torch's
// (scale, zero) pairs and writing float32 results in the output's dtype as c10 rounds.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cstdint>
#include <type_traits>

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>
#define WARDEN_AVX2 1
#endif

#ifdef WARDEN_AVX2

namespace warden::avx2 {

// (scale, zero) pairs of 8 consecutive output rows as float32 vectors; each pair is one 32-bit word, the scale in
// its low half.
template <typename scalar_t>
inline void load_scale_zero(const scalar_t* pairs, __m256& scale, __m256& zero) {
  const __m256i words = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pairs));
  if constexpr (std::is_same_v<scalar_t, c10::BFloat16>) {
    scale = _mm256_castsi256_ps(_mm256_slli_epi32(words, 16));  // bf16 is the high half of a float32
    zero = _mm256_castsi256_ps(_mm256_and_si256(words, _mm256_set1_epi32(static_cast<int>(0xFFFF0000u))));
  } else {
    // The low and high halves packed to 16 bits (within 128-bit lanes, then the quadwords put in order).
    const __m256i low = _mm256_and_si256(words, _mm256_set1_epi32(0xFFFF)), high = _mm256_srli_epi32(words, 16);
    const __m256i halves = _mm256_permute4x64_epi64(_mm256_packus_epi32(low, high), 0xD8);
    scale = _mm256_cvtph_ps(_mm256_castsi256_si128(halves));
    zero = _mm256_cvtph_ps(_mm256_extracti128_si256(halves, 1));
  }
}

// `count` (a multiple of 8) float32 results into the output's dtype, rounded as c10's scalar conversions round
// (bf16: to nearest even, NaN as 0x7FC0; fp16: F16C's conversion, which c10 uses on AVX2 builds).
template <typename scalar_t>
inline void store_floats(const float* in, scalar_t* out, int64_t count) {
  for (int64_t j = 0; j < count; j += 8) {
    const __m256 v = _mm256_loadu_ps(in + j);
    __m128i halves;
    if constexpr (std::is_same_v<scalar_t, c10::BFloat16>) {
      const __m256i bits = _mm256_castps_si256(v);
      const __m256i bias = _mm256_add_epi32(_mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1)),
                                            _mm256_set1_epi32(0x7FFF));
      __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(bits, bias), 16);
      const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
      rounded = _mm256_blendv_epi8(rounded, _mm256_set1_epi32(0x7FC0), nan);
      halves = _mm_packus_epi32(_mm256_castsi256_si128(rounded), _mm256_extracti128_si256(rounded, 1));
    } else {
      halves = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), halves);
  }
}

// Calls run(scalar, rows) with a value of the activations' dtype (bf16 or fp16) and std::integral_constant of the
// packing's block rows (64 or 32): the four instantiations each int4 kernel compiles.
template <typename Run>
inline void for_dtype_and_block_rows(const at::Tensor& x, int64_t block_rows, Run&& run) {
  using Rows64 = std::integral_constant<int, 64>;
  using Rows32 = std::integral_constant<int, 32>;
  const bool bf16 = x.scalar_type() == at::kBFloat16;
  if (block_rows == 64) {
    bf16 ? run(c10::BFloat16{}, Rows64{}) : run(c10::Half{}, Rows64{});
  } else {
    bf16 ? run(c10::BFloat16{}, Rows32{}) : run(c10::Half{}, Rows32{});
  }
}

}  // namespace warden::avx2

#endif  // WARDEN_AVX2
