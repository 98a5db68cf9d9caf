// torch's CPU int4 packing in blocks of 64 output rows, as both int4 kernels on AVX-512 read it (int4_linear.cpp,
// int4_gemm_bf16.cpp): the block's size, its (scale, zero) pairs prefetched and loaded, its results stored.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <type_traits>

#include "quantize_input.h"
#include "store_rounded.h"

namespace warden::int4 {

constexpr int64_t kBlockRows = 64;  // output rows per packed block

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

// 64 float32 results into the output's dtype (store_rounded.h: rounded as c10's scalar conversions round).
template <typename scalar_t>
inline void store_block(const float* in, scalar_t* out) {
  warden::store_rounded(in, out, kBlockRows);
}

#endif  // WARDEN_ONE_ROW_VECTOR

}  // namespace warden::int4
