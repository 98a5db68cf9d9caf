// Float32 results stored in the output's dtype, rounded as c10's scalar conversions round (bf16: to nearest even,
// NaN as 0x7FC0; fp16: the F16C conversion c10 uses on AVX2/AVX-512 builds), so a vector kernel's outputs are
// bitwise those of `static_cast<scalar_t>(float)`. Shared by the AVX-512 linears (int4_linear.cpp, int8_linear.cpp).

#pragma once

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cstdint>
#include <type_traits>

#if defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>

namespace warden {

// `n` (a multiple of 16) floats from `in` to `out`.
template <typename scalar_t>
inline void store_rounded(const float* in, scalar_t* out, int64_t n) {
  for (int64_t j = 0; j < n; j += 16) {
    const __m512 v = _mm512_loadu_ps(in + j);
    if constexpr (std::is_same_v<scalar_t, float>) {
      _mm512_storeu_ps(out + j, v);
    } else if constexpr (std::is_same_v<scalar_t, c10::BFloat16>) {
      const __m512i bits = _mm512_castps_si512(v);
      const __m512i bias = _mm512_add_epi32(_mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1)),
                                            _mm512_set1_epi32(0x7FFF));
      const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(bits, bias), 16);
      const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j),
                          _mm512_cvtepi32_epi16(_mm512_mask_mov_epi32(rounded, nan, _mm512_set1_epi32(0x7FC0))));
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    }
  }
}

}  // namespace warden

#endif  // __AVX512F__ && __AVX512BW__
