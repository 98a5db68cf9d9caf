// Weight-only int8 linear (per-output-channel scales) for one or a few input rows: the LM head at low concurrency.
// Same signature and weights as torch._weight_int8pack_mm (weight int8 [N, K] row-major, scales [N]).
//
// Why: the int8 head is the largest single read of a decode step (SmolLM2: 49152 x 576 = 28 MB), and torch's
// kernel converts every weight to float for an FMA. Here the input row is quantized to int8 per group of 32 in
// two levels (quantize_input.h: codes and residuals, finer than bfloat16) and each 64 weights are two vpdpbusd
// (AVX-512 VNNI) against them. vpdpbusd multiplies unsigned by signed bytes, so the weight's sign bit is flipped
// (w ^ 0x80 = w + 128 as an unsigned byte) and the 128 x sum(dequantized inputs) that adds, the same for every
// output row, is taken off once:
//   y[n] = scale[n] * (sum_g x_scale[g] / 254 * sum_k (w[n, k] + 128) * (254 * x_code[k] + x_residual[k])
//                      - 128 * sum_k x[k])
//
// Built with the other CPU kernels by kernels/cpu/__init__.py; registered as torch.ops.warden_cpu.int8_linear.

#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "quantize_input.h"

namespace {

constexpr int64_t kInputGroup = 32;  // inputs per int8 scale (llama.cpp's Q8_0 block)
constexpr int64_t kChunk = 64;  // weights per vpdpbusd: two input groups
constexpr int64_t kTileRows = 4;  // output rows sharing each loaded input chunk
// Weight rows are one sequential stream; requested this far ahead (as in int4_linear.cpp, where 4 KB measured best).
constexpr int64_t kPrefetchBytes = 4096;

#ifdef WARDEN_ONE_ROW_VECTOR

// One input row: its codes and residuals, per 64-input chunk the two groups' residual-step sizes as one vector
// (lanes 0-7 the first group's, 8-15 the second's: the lanes vpdpbusd sums each group into), and the correction
// for the flipped weight sign.
struct QuantizedRow {
  std::vector<int8_t> codes, residuals;
  std::vector<__m512> chunk_units;
  float sign_correction = 0.f;
};

template <typename scalar_t>
QuantizedRow quantize_row(const scalar_t* x, int64_t K) {
  warden::Int8Groups groups;
  warden::quantize_groups(x, K, kInputGroup, groups);
  QuantizedRow q{std::move(groups.codes), std::move(groups.residuals), std::vector<__m512>(K / kChunk), 0.f};
  const auto unit = [&](int64_t g) { return groups.scales[g] / warden::kResidualSteps; };
  for (int64_t c = 0; c < K / kChunk; ++c)
    q.chunk_units[c] = _mm512_insertf32x8(_mm512_set1_ps(unit(2 * c)), _mm256_set1_ps(unit(2 * c + 1)), 1);
  for (int64_t g = 0; g < K / kInputGroup; ++g) q.sign_correction += 128.f * groups.sum(g, /*with_residuals=*/true);
  return q;
}

// `rows` consecutive output rows (weight rows starting at `w`) against one quantized input row.
template <int rows>
void dot_rows(const int8_t* w, int64_t K, const QuantizedRow& x, float* dots) {
  const __m512i sign = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i steps = _mm512_set1_epi32(warden::kResidualSteps);
  __m512 acc[rows];
  for (int r = 0; r < rows; ++r) acc[r] = _mm512_setzero_ps();
  for (int64_t c = 0; c < K / kChunk; ++c) {
    const __m512i codes = _mm512_loadu_si512(x.codes.data() + c * kChunk);
    const __m512i residuals = _mm512_loadu_si512(x.residuals.data() + c * kChunk);
    for (int r = 0; r < rows; ++r) {
      const int8_t* line = w + r * K + c * kChunk;
      _mm_prefetch(reinterpret_cast<const char*>(line) + kPrefetchBytes, _MM_HINT_T0);
      const __m512i unsigned_w = _mm512_xor_si512(_mm512_loadu_si512(line), sign);
      // 254 x codes' + residuals' dot, exact in int32 (at most 254 x 4 x 255 x 127 per lane)
      const __m512i sums = _mm512_add_epi32(
          _mm512_mullo_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), unsigned_w, codes), steps),
          _mm512_dpbusd_epi32(_mm512_setzero_si512(), unsigned_w, residuals));
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums), x.chunk_units[c], acc[r]);
    }
  }
  for (int r = 0; r < rows; ++r) dots[r] = _mm512_reduce_add_ps(acc[r]) - x.sign_correction;
}

template <typename scalar_t>
void int8_linear_kernel(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales, at::Tensor& out) {
  const int64_t M = x.size(0), K = x.size(1), N = weight.size(0);
  std::vector<QuantizedRow> rows;
  for (int64_t m = 0; m < M; ++m) rows.push_back(quantize_row(x.const_data_ptr<scalar_t>() + m * K, K));
  const int8_t* w = weight.const_data_ptr<int8_t>();
  const scalar_t* s = scales.const_data_ptr<scalar_t>();
  scalar_t* y = out.mutable_data_ptr<scalar_t>();
  const int64_t tiles = (N + kTileRows - 1) / kTileRows;
  at::parallel_for(0, tiles, 64, [&](int64_t begin, int64_t end) {
    float dots[kTileRows];
    for (int64_t t = begin; t < end; ++t) {
      const int64_t n0 = t * kTileRows, count = std::min(kTileRows, N - n0);
      for (int64_t m = 0; m < M; ++m) {
        if (count == kTileRows) {
          dot_rows<kTileRows>(w + n0 * K, K, rows[m], dots);
        } else {
          for (int64_t r = 0; r < count; ++r) dot_rows<1>(w + (n0 + r) * K, K, rows[m], dots + r);
        }
        for (int64_t r = 0; r < count; ++r)
          y[m * N + n0 + r] = static_cast<scalar_t>(static_cast<float>(s[n0 + r]) * dots[r]);
      }
    }
  });
}

#endif  // WARDEN_ONE_ROW_VECTOR

at::Tensor int8_linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales) {
  TORCH_CHECK(warden::kOneRowVector, "int8_linear needs AVX-512 (F, BW, VL, VNNI); use torch._weight_int8pack_mm");
  TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && scales.dim() == 1, "x [rows, K], weight [N, K], scales [N]");
  TORCH_CHECK(x.device().is_cpu() && weight.device().is_cpu() && scales.device().is_cpu(),
              "int8_linear runs on CPU tensors");
  const int64_t K = x.size(1), N = weight.size(0);
  TORCH_CHECK(weight.scalar_type() == at::kChar && weight.size(1) == K && weight.is_contiguous(),
              "weight is contiguous int8 [N, K]");
  TORCH_CHECK(K % kChunk == 0, "int8_linear reads 64 inputs at a time: K must be a multiple of 64, got ", K);
  TORCH_CHECK(at::isFloatingType(x.scalar_type()) && x.scalar_type() != at::kDouble,
              "x is float32, bfloat16 or float16");
  TORCH_CHECK(scales.scalar_type() == x.scalar_type() && scales.size(0) == N && scales.is_contiguous(),
              "scales is contiguous [N] in x's dtype");
  const at::Tensor xc = x.contiguous();
  at::Tensor out = at::empty({x.size(0), N}, x.options());
#ifdef WARDEN_ONE_ROW_VECTOR
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, x.scalar_type(), "int8_linear", [&] {
    int8_linear_kernel<scalar_t>(xc, weight, scales, out);
  });
#endif
  return out;
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(warden_cpu, m) {
  m.def("int8_linear(Tensor x, Tensor weight, Tensor scales) -> Tensor");
}

TORCH_LIBRARY_IMPL(warden_cpu, CPU, m) {
  m.impl("int8_linear", &int8_linear);
}
