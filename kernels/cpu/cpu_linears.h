// What the CPU linears' kernel files share. Each kernel has a file of its own (int8_linear.cpp, int8_gemm_bf16.cpp,
// int4_linear.cpp, int4_gemm_bf16.cpp); the small-rows file of each weight type holds its *_linear_up_to op, which
// picks a kernel per call by row count through the declarations here, and the input checks both kernels apply.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

namespace warden {

// How far ahead of its loads a kernel requests its weight stream. One core streaming weights that are not in cache
// is bound by memory latency, not bandwidth, unless it keeps enough lines in flight.
constexpr int64_t kPrefetchBytes = 4096;

namespace int8 {

// int8_linear.cpp: x [rows, K] float32/bfloat16/float16, weight contiguous int8 [N, K] (K a multiple of 64),
// scales [N] in x's dtype; a clear error otherwise.
void check_inputs(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales);

// int8_gemm_bf16.cpp: whether the bf16 GEMM is built here (AVX512-BF16), whether it serves `out_features` outputs
// in `dtype`, and the GEMM itself.
bool bf16_gemm_built();
bool bf16_gemm_serves(c10::ScalarType dtype, int64_t out_features);
at::Tensor gemm_bf16(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& scales);

}  // namespace int8

namespace int4 {

// int4_linear.cpp: x [rows, K] bfloat16/float16, torch's uint8 int4 packing [N, K / 2] (N a multiple of 64),
// scales_zeros [K / group, N, 2] in x's dtype; a clear error otherwise.
void check_inputs(const at::Tensor& x, const at::Tensor& packed, int64_t group, const at::Tensor& scales_zeros);
// int4_linear.cpp: whether the AVX-512 small-rows kernel runs here (its instructions, and torch's 64-row packing).
bool avx512_kernel_runs();

// int4_gemm_bf16.cpp: whether the bf16 GEMM runs here, whether it serves inputs of `dtype`, and the GEMM itself.
bool bf16_gemm_runs();
bool bf16_gemm_serves(c10::ScalarType dtype);
at::Tensor gemm_bf16(const at::Tensor& x, const at::Tensor& packed, int64_t group, const at::Tensor& scales_zeros);

}  // namespace int4

}  // namespace warden
