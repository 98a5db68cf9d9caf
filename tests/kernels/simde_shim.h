// What tests/kernels/avx512_emulation.py puts in place of `#include <immintrin.h>` in its copies of kernels/cpu:
// the native intrinsics (this machine's AVX2, FMA, F16C), then SIMDe's AVX-512 with its native aliases (every
// _mm512_* / __m512* name the kernels use becomes SIMDe's portable version), then the 20 intrinsics SIMDe 0.7.4 lacks,
// written out per lane below. Only for tests: it runs the AVX-512 kernels' logic on CPUs without AVX-512, slowly.
//
// Every replacement gives the instruction's result for the inputs the kernels give it; the _mm512_reduce_* ones
// add in GCC's order (halves, then quarters, ...), which int8_linear.cpp's AVX2 path mirrors to stay bitwise equal.
// They replace SIMDe's version where a newer SIMDe has one (#undef first), so the order stays GCC's.
#pragma once

#include <ATen/ATen.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

namespace warden_avx512sim {

// A vector's lanes to an array and back.
template <typename T, typename V>
inline void lanes_of(const V& v, T* out) {
  static_assert(sizeof(V) % sizeof(T) == 0);
  std::memcpy(out, &v, sizeof(V));
}
template <typename V, typename T>
inline V vector_of(const T* in) {
  static_assert(sizeof(V) % sizeof(T) == 0);
  V v;
  std::memcpy(&v, in, sizeof(V));
  return v;
}

// Masked loads and stores: only the lanes set in the mask are read or written (as the instructions, which never
// touch the others' memory: the kernels use them for a group's partial last vector).
inline __m256i maskz_loadu_epi16(uint16_t mask, const void* p) {
  const auto* in = static_cast<const int16_t*>(p);
  int16_t out[16];
  for (int i = 0; i < 16; ++i) out[i] = (mask >> i) & 1 ? in[i] : int16_t{0};
  return vector_of<__m256i>(out);
}
inline __m512 maskz_loadu_ps(uint16_t mask, const void* p) {
  const auto* in = static_cast<const float*>(p);
  float out[16];
  for (int i = 0; i < 16; ++i) out[i] = (mask >> i) & 1 ? in[i] : 0.f;
  return vector_of<__m512>(out);
}
inline __m512 mask_loadu_ps(__m512 src, uint16_t mask, const void* p) {
  const auto* in = static_cast<const float*>(p);
  float out[16];
  lanes_of(src, out);
  for (int i = 0; i < 16; ++i)
    if ((mask >> i) & 1) out[i] = in[i];
  return vector_of<__m512>(out);
}
inline void mask_storeu_epi8(void* p, uint16_t mask, __m128i a) {
  int8_t in[16];
  lanes_of(a, in);
  auto* out = static_cast<int8_t*>(p);
  for (int i = 0; i < 16; ++i)
    if ((mask >> i) & 1) out[i] = in[i];
}

// vcvtps2dq in the current rounding mode (round to nearest even, which the kernels ask for): NaN and out-of-range
// values give the "integer indefinite" INT32_MIN.
inline __m512i cvt_roundps_epi32(__m512 a, int /*rounding: the kernels pass to-nearest*/) {
  float in[16];
  int32_t out[16];
  lanes_of(a, in);
  for (int i = 0; i < 16; ++i) {
    const float r = std::nearbyint(in[i]);
    out[i] = (std::isnan(r) || r >= 2147483648.f || r < -2147483648.f) ? INT32_MIN : static_cast<int32_t>(r);
  }
  return vector_of<__m512i>(out);
}

// vpmovdw / vpmovdb: truncation to the low bits.
inline __m256i cvtepi32_epi16(__m512i a) {
  int32_t in[16];
  int16_t out[16];
  lanes_of(a, in);
  for (int i = 0; i < 16; ++i) out[i] = static_cast<int16_t>(in[i]);
  return vector_of<__m256i>(out);
}
inline __m128i cvtepi32_epi8(__m512i a) {
  int32_t in[16];
  int8_t out[16];
  lanes_of(a, in);
  for (int i = 0; i < 16; ++i) out[i] = static_cast<int8_t>(in[i]);
  return vector_of<__m128i>(out);
}

inline __m512 cvtepi32_ps(__m512i a) {
  int32_t in[16];
  float out[16];
  lanes_of(a, in);
  for (int i = 0; i < 16; ++i) out[i] = static_cast<float>(in[i]);
  return vector_of<__m512>(out);
}
inline __m512i srai_epi32(__m512i a, unsigned int shift) {
  int32_t lanes[16];
  lanes_of(a, lanes);
  for (int i = 0; i < 16; ++i) lanes[i] = shift > 31 ? (lanes[i] < 0 ? -1 : 0) : lanes[i] >> shift;  // arithmetic
  return vector_of<__m512i>(lanes);
}
// vpmovsxbd / vpmovzxbd / vpmovzxwd: 16 lanes of `Lane` widened to 32 bits (sign- or zero-extended by its type).
template <typename Lane, typename V>
inline __m512i widen_to_epi32(V a) {
  Lane in[16];
  int32_t out[16];
  lanes_of(a, in);
  for (int i = 0; i < 16; ++i) out[i] = in[i];
  return vector_of<__m512i>(out);
}
inline __m512i cvtepi8_epi32(__m128i a) { return widen_to_epi32<int8_t>(a); }
inline __m512i cvtepu8_epi32(__m128i a) { return widen_to_epi32<uint8_t>(a); }
inline __m512i cvtepu16_epi32(__m256i a) { return widen_to_epi32<uint16_t>(a); }

// float16 <-> float32 through this machine's F16C (as c10's conversions on x86), rounding to nearest even.
inline __m512 cvtph_ps(__m256i a) {
  uint16_t in[16];
  float out[16];
  lanes_of(a, in);
  for (int i = 0; i < 16; ++i) out[i] = _cvtsh_ss(in[i]);
  return vector_of<__m512>(out);
}
inline __m256i cvtps_ph(__m512 a, int /*rounding: the kernels pass to-nearest*/) {
  float in[16];
  uint16_t out[16];
  lanes_of(a, in);
  for (int i = 0; i < 16; ++i) out[i] = _cvtss_sh(in[i], _MM_FROUND_TO_NEAREST_INT);
  return vector_of<__m256i>(out);
}

// vshuff32x4: 128-bit lanes 0-1 of the result from a, 2-3 from b, each picked by two bits of `selector`.
inline __m512 shuffle_f32x4(__m512 a, __m512 b, int selector) {
  float from_a[16], from_b[16], out[16];
  lanes_of(a, from_a);
  lanes_of(b, from_b);
  for (int lane = 0; lane < 4; ++lane) {
    const float* source = (lane < 2 ? from_a : from_b) + 4 * ((selector >> (2 * lane)) & 3);
    std::copy(source, source + 4, out + 4 * lane);
  }
  return vector_of<__m512>(out);
}

inline int32_t reduce_add_epi32(__m512i a) {
  int32_t in[16];
  lanes_of(a, in);
  uint32_t sum = 0;  // wraps as the vector adds do
  for (int i = 0; i < 16; ++i) sum += static_cast<uint32_t>(in[i]);
  return static_cast<int32_t>(sum);
}
// GCC's _mm512_reduce_add_ps: the high 256 bits onto the low, then the high 128 onto the low, then lanes 2-3 onto
// 0-1, then lane 1 onto 0.
inline float reduce_add_ps(__m512 a) {
  float in[16], eight[8], four[4];
  lanes_of(a, in);
  for (int i = 0; i < 8; ++i) eight[i] = in[8 + i] + in[i];
  for (int i = 0; i < 4; ++i) four[i] = eight[4 + i] + eight[i];
  return (four[0] + four[2]) + (four[1] + four[3]);
}
// The smallest of the lanes set in the mask; INT32_MAX where none is (the identity, as GCC's version gives).
inline int32_t mask_reduce_min_epi32(uint16_t mask, __m512i a) {
  int32_t in[16];
  lanes_of(a, in);
  int32_t smallest = INT32_MAX;
  for (int i = 0; i < 16; ++i)
    if ((mask >> i) & 1) smallest = std::min(smallest, in[i]);
  return smallest;
}
// The largest lane (the kernels reduce magnitudes and non-NaN maxima only, where the order is immaterial).
inline float reduce_max_ps(__m512 a) {
  float in[16];
  lanes_of(a, in);
  float largest = in[0];
  for (int i = 1; i < 16; ++i) largest = std::fmax(largest, in[i]);
  return largest;
}

// torch's CPU int4 packing as an AVX-512 build of torch makes it (blocks of 64 output rows: [N / 64, K, 32] bytes,
// byte j of (block, k) holding row block * 64 + j in its low nibble and row block * 64 + 32 + j in its high one),
// for the kernels' probe of torch's packing (int4_linear.cpp's packing_block_rows): the emulated machine is an
// AVX-512 one, whose torch packs 64-row blocks; this machine's torch packs 32-row ones.
inline at::Tensor int4_pack_64_row_blocks(const at::Tensor& codes, int64_t /*inner_k_tiles*/) {
  const int64_t N = codes.size(0), K = codes.size(1);
  TORCH_CHECK(N % 64 == 0 && K % 2 == 0, "the 64-row packing takes N a multiple of 64 and even K");
  const at::Tensor blocks = codes.to(at::kByte).view({N / 64, 2, 32, K}).permute({0, 3, 1, 2});  // [N/64, K, 2, 32]
  return blocks.select(2, 0).bitwise_or(blocks.select(2, 1).bitwise_left_shift(4)).contiguous().view({N, K / 2});
}

}  // namespace warden_avx512sim

#undef _mm256_maskz_loadu_epi16
#undef _mm512_maskz_loadu_ps
#undef _mm512_mask_loadu_ps
#undef _mm_mask_storeu_epi8
#undef _mm512_mask_cmp_ps_mask
#undef _mm512_mask_reduce_min_epi32
#undef _mm512_cvt_roundps_epi32
#undef _mm512_cvtepi32_epi16
#undef _mm512_cvtepi32_epi8
#undef _mm512_cvtepi32_ps
#undef _mm512_srai_epi32
#undef _mm512_cvtepi8_epi32
#undef _mm512_cvtepu8_epi32
#undef _mm512_cvtepu16_epi32
#undef _mm512_cvtph_ps
#undef _mm512_cvtps_ph
#undef _mm512_shuffle_f32x4
#undef _mm512_reduce_add_epi32
#undef _mm512_reduce_add_ps
#undef _mm512_reduce_max_ps
#define _mm256_maskz_loadu_epi16 warden_avx512sim::maskz_loadu_epi16
#define _mm512_maskz_loadu_ps warden_avx512sim::maskz_loadu_ps
#define _mm512_mask_loadu_ps warden_avx512sim::mask_loadu_ps
#define _mm_mask_storeu_epi8 warden_avx512sim::mask_storeu_epi8
// A masked compare is the compare with the lanes outside the mask cleared (a macro: the predicate is an immediate).
#define _mm512_mask_cmp_ps_mask(mask, a, b, predicate) \
  static_cast<__mmask16>((mask) & _mm512_cmp_ps_mask((a), (b), (predicate)))
#define _mm512_mask_reduce_min_epi32 warden_avx512sim::mask_reduce_min_epi32
#define _mm512_cvt_roundps_epi32 warden_avx512sim::cvt_roundps_epi32
#define _mm512_cvtepi32_epi16 warden_avx512sim::cvtepi32_epi16
#define _mm512_cvtepi32_epi8 warden_avx512sim::cvtepi32_epi8
#define _mm512_cvtepi32_ps warden_avx512sim::cvtepi32_ps
#define _mm512_srai_epi32 warden_avx512sim::srai_epi32
#define _mm512_cvtepi8_epi32 warden_avx512sim::cvtepi8_epi32
#define _mm512_cvtepu8_epi32 warden_avx512sim::cvtepu8_epi32
#define _mm512_cvtepu16_epi32 warden_avx512sim::cvtepu16_epi32
#define _mm512_cvtph_ps warden_avx512sim::cvtph_ps
#define _mm512_cvtps_ph warden_avx512sim::cvtps_ph
#define _mm512_shuffle_f32x4 warden_avx512sim::shuffle_f32x4
#define _mm512_reduce_add_epi32 warden_avx512sim::reduce_add_epi32
#define _mm512_reduce_add_ps warden_avx512sim::reduce_add_ps
#define _mm512_reduce_max_ps warden_avx512sim::reduce_max_ps
