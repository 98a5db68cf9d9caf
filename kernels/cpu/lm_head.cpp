// The int8 LM head for decode and draft verification (1-64 rows): weights pre-packed once for AVX-512 VNNI's
// vpdpbusd, inputs quantized to int8 with one scale per row, so each instruction does 64 multiply-adds into int32
// and a row's dot products stay integers until the end.
//
// Why: int8_linear.cpp quantizes inputs per group of 32 in two levels and dots them with vpdpwssd (32 multiply-adds
// an instruction), converting each group's integer sum to float: per 64 weights and input row two vpdpwssd, a
// conversion and an FMA, which makes the head (SmolLM2: 49152 x 576) compute-bound from a few rows. Here:
// - the weight is packed once at load (lm_head_pack) as 16 output rows x 4 inputs per 64-byte vector (the lanes are
//   output rows, so no horizontal sums), sign flipped (w + 128, the unsigned operand of vpdpbusd);
// - an input row is quantized with one scale for the whole row (amax / 127), as codes, or as codes and their
//   rounding errors in 254 steps of that scale (quantize_input.h's two levels, with the row as the group): each
//   level is a signed int8 row of its own, broadcast 4 inputs at a time against the packed weight;
// - the flipped sign adds 128 x sum(codes) to every output of a level, taken off once per row;
// - a tile of up to 4 quantized rows x 6 blocks of 16 output rows keeps 24 int32 accumulators in registers, each
//   loaded weight vector serving 4 rows and each broadcast input quad 6 blocks (a row's two levels are two rows of
//   a tile).
//   y[m, n] = scale[n] * sum_level x_scale[m, level] * (sum_k (w[n, k] + 128) * code[m, level, k]
//                                                       - 128 * sum_k code[m, level, k])
// int32 is exact: |(w + 128) * code| <= 255 * 127, so K up to 66,000 inputs.
//
// Built with the other CPU kernels by kernels/cpu/__init__.py; registered as torch.ops.warden_cpu.lm_head_pack,
// lm_head_linear and lm_head_supported. kernels/reference/quantized_linear.py's int8_head_linear is the same in
// torch.

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "quantize_input.h"
#include "store_rounded.h"

namespace {

constexpr int64_t kBlockRows = 16;  // output rows per packed vector (its 32-bit lanes)
constexpr int64_t kQuad = 4;  // inputs per lane (vpdpbusd's four byte products)
constexpr int64_t kTileBlocks = 6;  // output blocks sharing each broadcast input quad
constexpr int64_t kTileRows = 4;  // quantized rows sharing each loaded weight vector

bool shape_supported(int64_t N, int64_t K) { return N % kBlockRows == 0 && K % kQuad == 0 && K <= 65536; }

#ifdef WARDEN_ONE_ROW_VECTOR

// The input rows quantized once per call, level by level: quantized row m * levels + l is level l of input row m.
struct QuantizedRows {
  std::vector<int8_t> codes;  // [M * levels, K]
  std::vector<float> scales;  // [M * levels]
  std::vector<int32_t> corrections;  // [M * levels]: 128 * sum of the row's codes
};

template <typename scalar_t>
QuantizedRows quantize_rows(const scalar_t* x, int64_t M, int64_t K, int levels) {
  QuantizedRows q{std::vector<int8_t>(M * levels * K), std::vector<float>(M * levels),
                  std::vector<int32_t>(M * levels)};
  warden::Int8Groups groups;
  for (int64_t m = 0; m < M; ++m) {
    if (levels == 1) {
      warden::quantize_groups_one_level(x + m * K, K, K, groups);
    } else {
      warden::quantize_groups_two_level(x + m * K, K, K, groups);
    }
    for (int l = 0; l < levels; ++l) {
      const int64_t row = m * levels + l;
      std::memcpy(q.codes.data() + row * K, warden::level_codes(groups, l).data(), K);
      q.scales[row] = l == 0 ? groups.scales[0] : groups.scales[0] / static_cast<float>(warden::kResidualSteps);
      q.corrections[row] = 128 * (l == 0 ? groups.code_sums[0] : groups.residual_sums[0]);
    }
  }
  return q;
}

// acc += the four byte products of each lane (unsigned `weights` x signed `inputs`), in place: GCC 12 compiles the
// intrinsic's result into another register and moves it back, a copy per instruction in the tile's loop.
inline void dot_accumulate(__m512i& acc, __m512i weights, __m512i inputs) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(weights), "v"(inputs));
}

// `B` packed blocks (from `w`, each K / 4 vectors) against `T` quantized rows from `row0` (whole input rows of
// `levels` levels each), written to y's columns `n0`.. of those input rows.
template <int T, int B, typename scalar_t>
inline void tile(const uint8_t* w, int64_t K, const QuantizedRows& q, int64_t row0, int levels, const scalar_t* s,
                 int64_t n0, int64_t N, scalar_t* y) {
  const int64_t quads = K / kQuad, block_bytes = quads * 64;
  const int8_t* x[T];
  for (int t = 0; t < T; ++t) x[t] = q.codes.data() + (row0 + t) * K;
  __m512i acc[T][B];
#pragma GCC unroll 8
  for (int t = 0; t < T; ++t)
#pragma GCC unroll 8
    for (int b = 0; b < B; ++b) acc[t][b] = _mm512_setzero_si512();
  for (int64_t i = 0; i < quads; ++i) {
    __m512i weights[B];
#pragma GCC unroll 8
    for (int b = 0; b < B; ++b) weights[b] = _mm512_loadu_si512(w + b * block_bytes + i * 64);
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t) {
      int32_t four;
      std::memcpy(&four, x[t] + i * kQuad, sizeof(four));
      const __m512i inputs = _mm512_set1_epi32(four);
#pragma GCC unroll 8
      for (int b = 0; b < B; ++b) dot_accumulate(acc[t][b], weights[b], inputs);
    }
  }
  // Each quantized row's dots as floats times its scale, then a row's levels added: the accumulators indexed by
  // constants only, so they stay in registers through the loop above.
  alignas(64) float dots[T][B * kBlockRows];
#pragma GCC unroll 8
  for (int t = 0; t < T; ++t) {
    const __m512i correction = _mm512_set1_epi32(q.corrections[row0 + t]);
    const __m512 scale = _mm512_set1_ps(q.scales[row0 + t]);
#pragma GCC unroll 8
    for (int b = 0; b < B; ++b)
      _mm512_store_ps(dots[t] + b * kBlockRows,
                      _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(acc[t][b], correction)), scale));
  }
  for (int t0 = 0; t0 < T; t0 += levels) {
    const int64_t m = (row0 + t0) / levels;
    for (int b = 0; b < B; ++b) {
      __m512 sum = _mm512_load_ps(dots[t0] + b * kBlockRows);
      for (int l = 1; l < levels; ++l) sum = _mm512_add_ps(sum, _mm512_load_ps(dots[t0 + l] + b * kBlockRows));
      alignas(64) float out[kBlockRows];
      _mm512_store_ps(out, _mm512_mul_ps(sum, warden::load_scales(s + n0 + b * kBlockRows)));
      warden::store_rounded(out, y + m * N + n0 + b * kBlockRows, kBlockRows);
    }
  }
}

template <int B, typename scalar_t>
inline void tile_rows(int64_t rows, const uint8_t* w, int64_t K, const QuantizedRows& q, int64_t row0, int levels,
                      const scalar_t* s, int64_t n0, int64_t N, scalar_t* y) {
  switch (rows) {
    case 1: tile<1, B>(w, K, q, row0, levels, s, n0, N, y); break;
    case 2: tile<2, B>(w, K, q, row0, levels, s, n0, N, y); break;
    case 3: tile<3, B>(w, K, q, row0, levels, s, n0, N, y); break;
    default: tile<kTileRows, B>(w, K, q, row0, levels, s, n0, N, y); break;
  }
}

template <typename scalar_t>
void blocks_against_rows(int64_t blocks, const uint8_t* w, int64_t K, const QuantizedRows& q, int64_t rows,
                         int levels, const scalar_t* s, int64_t n0, int64_t N, scalar_t* y) {
  for (int64_t row0 = 0; row0 < rows; row0 += kTileRows) {
    const int64_t count = std::min(kTileRows, rows - row0);
    switch (blocks) {
      case 1: tile_rows<1>(count, w, K, q, row0, levels, s, n0, N, y); break;
      case 2: tile_rows<2>(count, w, K, q, row0, levels, s, n0, N, y); break;
      case 3: tile_rows<3>(count, w, K, q, row0, levels, s, n0, N, y); break;
      case 4: tile_rows<4>(count, w, K, q, row0, levels, s, n0, N, y); break;
      case 5: tile_rows<5>(count, w, K, q, row0, levels, s, n0, N, y); break;
      default: tile_rows<kTileBlocks>(count, w, K, q, row0, levels, s, n0, N, y); break;
    }
  }
}

template <typename scalar_t>
void lm_head_kernel(const at::Tensor& x, const at::Tensor& packed, const at::Tensor& scales, int levels,
                    at::Tensor& out) {
  const int64_t M = x.size(0), K = x.size(1), N = scales.size(0);
  const QuantizedRows q = quantize_rows(x.const_data_ptr<scalar_t>(), M, K, levels);
  const uint8_t* w = packed.const_data_ptr<uint8_t>();
  const scalar_t* s = scales.const_data_ptr<scalar_t>();
  scalar_t* y = out.mutable_data_ptr<scalar_t>();
  const int64_t blocks = N / kBlockRows, groups = (blocks + kTileBlocks - 1) / kTileBlocks;
  // Each group of output blocks against every quantized row while its weight (6 x 9 KB for SmolLM2) is in L2.
  at::parallel_for(0, groups, 8, [&](int64_t begin, int64_t end) {
    for (int64_t g = begin; g < end; ++g) {
      const int64_t b0 = g * kTileBlocks, count = std::min(kTileBlocks, blocks - b0);
      blocks_against_rows(count, w + b0 * K * kBlockRows, K, q, M * levels, levels, s, b0 * kBlockRows, N, y);
    }
  });
}

#endif  // WARDEN_ONE_ROW_VECTOR

// [N, K] int8 -> [N / 16, K / 4, 64] uint8: vector (block, quad) holds in 32-bit lane j the four weights
// w[16 * block + j, 4 * quad .. 4 * quad + 3], each + 128.
at::Tensor lm_head_pack(const at::Tensor& weight) {
  TORCH_CHECK(weight.dim() == 2 && weight.scalar_type() == at::kChar && weight.device().is_cpu(),
              "weight is int8 [N, K] on the CPU");
  const int64_t N = weight.size(0), K = weight.size(1);
  TORCH_CHECK(shape_supported(N, K), "lm_head_pack needs N a multiple of 16 and K a multiple of 4 (at most 65536), "
              "got ", N, " x ", K);
  const at::Tensor flipped = (weight.to(at::kShort) + 128).to(at::kByte);
  return flipped.view({N / kBlockRows, kBlockRows, K / kQuad, kQuad}).permute({0, 2, 1, 3}).contiguous()
      .view({N / kBlockRows, K / kQuad, kBlockRows * kQuad});
}

at::Tensor lm_head_linear(const at::Tensor& x, const at::Tensor& packed, const at::Tensor& scales, int64_t levels) {
  TORCH_CHECK(warden::kOneRowVector, "lm_head_linear needs AVX-512 VNNI");
  TORCH_CHECK(levels == 1 || levels == 2, "levels is 1 (codes) or 2 (codes and residuals), got ", levels);
  TORCH_CHECK(x.dim() == 2 && packed.dim() == 3 && scales.dim() == 1, "x [rows, K], packed [N / 16, K / 4, 64], "
              "scales [N]");
  TORCH_CHECK(x.device().is_cpu() && packed.device().is_cpu() && scales.device().is_cpu(),
              "lm_head_linear runs on CPU tensors");
  const int64_t K = x.size(1), N = scales.size(0);
  TORCH_CHECK(packed.scalar_type() == at::kByte && packed.is_contiguous() && packed.size(0) * kBlockRows == N &&
              packed.size(1) * kQuad == K && packed.size(2) == kBlockRows * kQuad,
              "packed is lm_head_pack's [N / 16, K / 4, 64] for this x and scales");
  TORCH_CHECK(x.scalar_type() == at::kFloat || x.scalar_type() == at::kBFloat16 || x.scalar_type() == at::kHalf,
              "x is float32, bfloat16 or float16");
  TORCH_CHECK(scales.scalar_type() == x.scalar_type() && scales.is_contiguous(), "scales is contiguous in x's dtype");
  at::Tensor out = at::empty({x.size(0), N}, x.options());
#ifdef WARDEN_ONE_ROW_VECTOR
  const at::Tensor xc = x.contiguous();
  const int level_count = static_cast<int>(levels);
  if (x.scalar_type() == at::kFloat) {
    lm_head_kernel<float>(xc, packed, scales, level_count, out);
  } else if (x.scalar_type() == at::kBFloat16) {
    lm_head_kernel<c10::BFloat16>(xc, packed, scales, level_count, out);
  } else {
    lm_head_kernel<c10::Half>(xc, packed, scales, level_count, out);
  }
#endif
  return out;
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(warden_cpu, m) {
  // Whether lm_head_linear runs here (AVX-512 VNNI) for a head of N outputs and K inputs.
  m.def("lm_head_supported(int out_features, int in_features) -> bool", [](int64_t N, int64_t K) {
    return warden::kOneRowVector && shape_supported(N, K);
  });
  m.def("lm_head_pack(Tensor weight) -> Tensor");
  m.def("lm_head_linear(Tensor x, Tensor packed, Tensor scales, int levels) -> Tensor");
}

TORCH_LIBRARY_IMPL(warden_cpu, CPU, m) {
  m.impl("lm_head_pack", &lm_head_pack);
  m.impl("lm_head_linear", &lm_head_linear);
}
