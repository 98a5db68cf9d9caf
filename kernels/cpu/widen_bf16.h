// bf16 to float32 on AVX-512: a bf16 is the high half of the float32 of the same value, so 16 words widen exactly by
// a zero-extension to 32 bits and a shift. Shared by the AVX-512 kernels (attention, the linears, input quantization).

#pragma once

#if defined(__AVX512F__)
#include <immintrin.h>

namespace warden {

// 16 bf16 words, as loaded, to float32.
inline __m512 widen_bf16(__m256i words) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(words), 16));
}

// 16 bf16 values from `src` (any alignment) to float32.
inline __m512 load_bf16(const void* src) {
  return widen_bf16(_mm256_loadu_si256(static_cast<const __m256i*>(src)));
}

}  // namespace warden

#endif  // __AVX512F__
