// Input rows quantized to int8 in groups for integer dot products against int4/int8 weights. Per group of inputs: a
// scale amax / 127 and codes rounded half to even (nearbyint in the default rounding mode, as torch.round): one
// level, llama.cpp's Q8 activations, ~7 bits relative to the group's largest input. Then, for a second level, the
// rounding error of each input quantized again in 254 steps of that scale:
//   x ~= scale * (code + residual / 254),   code, residual in [-127, 127]
// ~15 bits, finer than bfloat16's 8-bit mantissa, for a second vpdpbusd per loaded weight vector.
// The int8 kernel (the LM head, whose argmax picks the token) takes both levels (quantize_groups); the int4 kernel's
// small batches one (quantize_groups_one_level, vectorized), where the weights' own 4-bit error dominates
// (bench.agreement). kernels/reference/quantized_linear.py's quantize_rows_int8 is the same in torch.

#pragma once

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "widen_bf16.h"

// The instructions both one-row linears dot with (int4_linear.cpp, int8_linear.cpp): one flag, so one check
// (torch.ops.warden_cpu.one_row_linear_supported) answers for both.
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512VNNI__)
#include <immintrin.h>
#define WARDEN_ONE_ROW_VECTOR 1
#endif

namespace warden {

constexpr bool kOneRowVector =
#ifdef WARDEN_ONE_ROW_VECTOR
    true;
#else
    false;
#endif

constexpr int32_t kResidualSteps = 254;

struct Int8Groups {
  std::vector<int8_t> codes, residuals;  // [K]
  std::vector<float> scales;  // [K / group]
  std::vector<int32_t> code_sums, residual_sums;  // [K / group]: each group's codes (residuals) summed

  // A group's inputs summed as both levels dequantize them (one level's rows: level_scales_and_sums).
  float sum(int64_t g) const {
    return scales[g] * (static_cast<float>(code_sums[g]) + static_cast<float>(residual_sums[g]) / kResidualSteps);
  }
};

// A quantized input's level as a one-level row of its own: level 0 the codes with scale s, level 1 the residuals with
// scale s / 254, so x = s * code + (s / 254) * residual is the sum of the two rows, and a linear of the two-level
// input is the sum of its linears of the two rows (what the int4 kernels run: two rows of a tile, added before the
// output is rounded). Per group the row's scale and the sum of its dequantized inputs.
inline const std::vector<int8_t>& level_codes(const Int8Groups& q, int level) {
  return level == 0 ? q.codes : q.residuals;
}

inline void level_scales_and_sums(const Int8Groups& q, int level, std::vector<float>& scales,
                                  std::vector<float>& sums) {
  scales.resize(q.scales.size());
  sums.resize(q.scales.size());
  for (size_t g = 0; g < q.scales.size(); ++g) {
    scales[g] = level == 0 ? q.scales[g] : q.scales[g] / static_cast<float>(kResidualSteps);
    sums[g] = scales[g] * static_cast<float>(level == 0 ? q.code_sums[g] : q.residual_sums[g]);
  }
}

template <typename scalar_t>
void quantize_groups(const scalar_t* x, int64_t K, int64_t group, Int8Groups& q) {
  q.codes.resize(K);
  q.residuals.resize(K);
  q.scales.resize(K / group);
  q.code_sums.resize(K / group);
  q.residual_sums.resize(K / group);
  for (int64_t g = 0; g < K / group; ++g) {
    const scalar_t* xs = x + g * group;
    float amax = 0.f;
    bool finite = true;
    for (int64_t k = 0; k < group; ++k) {
      const float value = static_cast<float>(xs[k]);
      finite = finite && std::isfinite(value);
      amax = std::max(amax, std::abs(value));
    }
    if (!finite) {
      // A NaN or infinite input has no int8 code: the group's scale becomes NaN so the outputs show it, as torch's
      // float kernels would, instead of the codes silently dropping it.
      std::fill(q.codes.begin() + g * group, q.codes.begin() + (g + 1) * group, 0);
      std::fill(q.residuals.begin() + g * group, q.residuals.begin() + (g + 1) * group, 0);
      q.scales[g] = std::numeric_limits<float>::quiet_NaN();
      q.code_sums[g] = q.residual_sums[g] = 0;
      continue;
    }
    const float scale = amax / 127.f;
    const float inverse = amax > 0.f ? 127.f / amax : 0.f;
    const float residual_inverse = amax > 0.f ? static_cast<float>(kResidualSteps) / scale : 0.f;
    int32_t code_total = 0, residual_total = 0;
    for (int64_t k = 0; k < group; ++k) {
      const float value = static_cast<float>(xs[k]);
      const int32_t code = static_cast<int32_t>(std::nearbyint(value * inverse));
      const float error = value - static_cast<float>(code) * scale;
      const int32_t residual = std::clamp(static_cast<int32_t>(std::nearbyint(error * residual_inverse)), -127, 127);
      q.codes[g * group + k] = static_cast<int8_t>(code);
      q.residuals[g * group + k] = static_cast<int8_t>(residual);
      code_total += code;
      residual_total += residual;
    }
    q.scales[g] = scale;
    q.code_sums[g] = code_total;
    q.residual_sums[g] = residual_total;
  }
}

#ifdef WARDEN_ONE_ROW_VECTOR

// Up to 16 inputs (the lanes set in `lanes`; the others read as 0) as float32.
template <typename scalar_t>
inline __m512 load_inputs(const scalar_t* x, __mmask16 lanes) {
  if constexpr (std::is_same_v<scalar_t, float>) {
    return _mm512_maskz_loadu_ps(lanes, x);
  } else {
    const __m256i raw = _mm256_maskz_loadu_epi16(lanes, x);
    if constexpr (std::is_same_v<scalar_t, c10::BFloat16>) {
      return warden::widen_bf16(raw);
    } else {
      static_assert(std::is_same_v<scalar_t, c10::Half>);
      return _mm512_cvtph_ps(raw);
    }
  }
}

// 16 per-output-channel weight scales (float32, bf16 or fp16, any alignment) as float32: the int8 linears' outputs.
template <typename scalar_t>
inline __m512 load_scales(const scalar_t* s) {
  if constexpr (std::is_same_v<scalar_t, float>) {
    return _mm512_loadu_ps(s);
  } else if constexpr (std::is_same_v<scalar_t, c10::BFloat16>) {
    return warden::load_bf16(s);
  } else {
    static_assert(std::is_same_v<scalar_t, c10::Half>);
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)));
  }
}

// The first level of quantize_groups alone (codes, scales, code sums; no residuals), 16 inputs per instruction:
// bit for bit the same values (the same products rounded half to even, and integer sums), several times faster than
// the scalar loop, which the int4 linear would pay per row per call.
template <typename scalar_t>
void quantize_groups_one_level(const scalar_t* x, int64_t K, int64_t group, Int8Groups& q) {
  q.codes.resize(K);
  q.scales.resize(K / group);
  q.code_sums.resize(K / group);
  q.residuals.clear();
  q.residual_sums.clear();
  const auto lanes_at = [group](int64_t k) {
    return static_cast<__mmask16>(group - k >= 16 ? 0xFFFF : (1u << (group - k)) - 1);
  };
  const __m512 infinity = _mm512_set1_ps(std::numeric_limits<float>::infinity());
  for (int64_t g = 0; g < K / group; ++g) {
    const scalar_t* xs = x + g * group;
    __m512 amax = _mm512_setzero_ps();
    __mmask16 not_finite = 0;
    for (int64_t k = 0; k < group; k += 16) {
      const __m512 magnitude = _mm512_abs_ps(load_inputs(xs + k, lanes_at(k)));
      not_finite |= _mm512_cmp_ps_mask(magnitude, infinity, _CMP_NLT_UQ);  // infinite or NaN
      amax = _mm512_max_ps(amax, magnitude);
    }
    if (not_finite) {
      // As quantize_groups: the group's scale becomes NaN so the outputs show it.
      std::fill(q.codes.begin() + g * group, q.codes.begin() + (g + 1) * group, 0);
      q.scales[g] = std::numeric_limits<float>::quiet_NaN();
      q.code_sums[g] = 0;
      continue;
    }
    const float largest = _mm512_reduce_max_ps(amax);
    const __m512 inverse = _mm512_set1_ps(largest > 0.f ? 127.f / largest : 0.f);
    __m512i total = _mm512_setzero_si512();
    for (int64_t k = 0; k < group; k += 16) {
      const __mmask16 lanes = lanes_at(k);
      // Rounded half to even, as nearbyint in the default rounding mode.
      const __m512i codes = _mm512_cvt_roundps_epi32(_mm512_mul_ps(load_inputs(xs + k, lanes), inverse),
                                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      total = _mm512_add_epi32(total, codes);
      _mm_mask_storeu_epi8(q.codes.data() + g * group + k, lanes, _mm512_cvtepi32_epi8(codes));
    }
    q.scales[g] = largest / 127.f;
    q.code_sums[g] = _mm512_reduce_add_epi32(total);
  }
}

// Both levels of quantize_groups, 16 inputs per instruction, bit for bit its values: the same products rounded half
// to even, the same clamp, integer sums, and the rounding error `value - code * scale` as one fused multiply-add
// (what gcc and clang make of quantize_groups' expression wherever FMA is available, as it is with AVX-512: its
// -O3 -march=native build compiles it to vfnmadd). For the int8 linear's rows, once per row per call, where the
// scalar loop would be a noticeable share of a many-row call.
template <typename scalar_t>
void quantize_groups_two_level(const scalar_t* x, int64_t K, int64_t group, Int8Groups& q) {
  q.codes.resize(K);
  q.residuals.resize(K);
  q.scales.resize(K / group);
  q.code_sums.resize(K / group);
  q.residual_sums.resize(K / group);
  const auto lanes_at = [group](int64_t k) {
    return static_cast<__mmask16>(group - k >= 16 ? 0xFFFF : (1u << (group - k)) - 1);
  };
  const __m512 infinity = _mm512_set1_ps(std::numeric_limits<float>::infinity());
  const __m512i lowest = _mm512_set1_epi32(-127), highest = _mm512_set1_epi32(127);
  for (int64_t g = 0; g < K / group; ++g) {
    const scalar_t* xs = x + g * group;
    __m512 amax = _mm512_setzero_ps();
    __mmask16 not_finite = 0;
    for (int64_t k = 0; k < group; k += 16) {
      const __m512 magnitude = _mm512_abs_ps(load_inputs(xs + k, lanes_at(k)));
      not_finite |= _mm512_cmp_ps_mask(magnitude, infinity, _CMP_NLT_UQ);  // infinite or NaN
      amax = _mm512_max_ps(amax, magnitude);
    }
    if (not_finite) {
      // As quantize_groups: the group's scale becomes NaN so the outputs show it.
      std::fill(q.codes.begin() + g * group, q.codes.begin() + (g + 1) * group, 0);
      std::fill(q.residuals.begin() + g * group, q.residuals.begin() + (g + 1) * group, 0);
      q.scales[g] = std::numeric_limits<float>::quiet_NaN();
      q.code_sums[g] = q.residual_sums[g] = 0;
      continue;
    }
    const float largest = _mm512_reduce_max_ps(amax);
    const float scale = largest / 127.f;
    const __m512 inverse = _mm512_set1_ps(largest > 0.f ? 127.f / largest : 0.f);
    const __m512 residual_inverse = _mm512_set1_ps(largest > 0.f ? static_cast<float>(kResidualSteps) / scale : 0.f);
    const __m512 scales = _mm512_set1_ps(scale);
    __m512i code_total = _mm512_setzero_si512(), residual_total = _mm512_setzero_si512();
    for (int64_t k = 0; k < group; k += 16) {
      const __mmask16 lanes = lanes_at(k);
      const __m512 values = load_inputs(xs + k, lanes);
      const __m512i codes = _mm512_cvt_roundps_epi32(_mm512_mul_ps(values, inverse),
                                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      const __m512 error = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(codes), scales, values);
      // A scale that underflowed to 0 makes the error times its inverse infinite or NaN: converted, INT32_MIN (as
      // quantize_groups' conversion gives), clamped to -127.
      const __m512i residuals = _mm512_min_epi32(_mm512_max_epi32(
          _mm512_cvt_roundps_epi32(_mm512_mul_ps(error, residual_inverse), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
          lowest), highest);
      code_total = _mm512_add_epi32(code_total, codes);
      residual_total = _mm512_add_epi32(residual_total, residuals);
      _mm_mask_storeu_epi8(q.codes.data() + g * group + k, lanes, _mm512_cvtepi32_epi8(codes));
      _mm_mask_storeu_epi8(q.residuals.data() + g * group + k, lanes, _mm512_cvtepi32_epi8(residuals));
    }
    q.scales[g] = scale;
    q.code_sums[g] = _mm512_reduce_add_epi32(code_total);
    q.residual_sums[g] = _mm512_reduce_add_epi32(residual_total);
  }
}

#endif  // WARDEN_ONE_ROW_VECTOR

}  // namespace warden
