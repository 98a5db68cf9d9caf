// Input rows quantized to int8 in groups, as llama.cpp quantizes activations (Q8) for its integer dot products:
// per group of inputs a scale amax / 127 and codes rounded half to even (nearbyint in the default rounding mode,
// as torch.round). Shared by the one-row int4 and int8 linear kernels; kernels/reference/quantized_linear.py's
// quantize_rows_int8 is the same in torch.

#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace warden {

struct Int8Groups {
  std::vector<int8_t> codes;  // [K]
  std::vector<float> scales;  // [K / group]: a code times its group's scale is the dequantized input
  std::vector<int32_t> code_sums;  // [K / group]: the sum of each group's codes
};

template <typename scalar_t>
void quantize_groups(const scalar_t* x, int64_t K, int64_t group, Int8Groups& q) {
  q.codes.resize(K);
  q.scales.resize(K / group);
  q.code_sums.resize(K / group);
  for (int64_t g = 0; g < K / group; ++g) {
    const scalar_t* xs = x + g * group;
    float amax = 0.f;
    for (int64_t k = 0; k < group; ++k) amax = std::max(amax, std::abs(static_cast<float>(xs[k])));
    const float inverse = amax > 0.f ? 127.f / amax : 0.f;
    int32_t total = 0;
    for (int64_t k = 0; k < group; ++k) {
      const int32_t code = static_cast<int32_t>(std::nearbyint(static_cast<float>(xs[k]) * inverse));
      q.codes[g * group + k] = static_cast<int8_t>(code);
      total += code;
    }
    q.scales[g] = amax / 127.f;
    q.code_sums[g] = total;
  }
}

}  // namespace warden
