// The AVX2 builds of the int4 linear, for x86 CPUs without AVX-512 VNNI (AMD Zen 2/3, Intel client cores):
// int4_linear: the same weights, the same input quantization and the same math as the AVX-512 kernel, in 256-bit
// vectors without vpdpbusd; int4_gemm: float32 inputs for many rows. int4_linear.cpp's ops run these where the
// AVX-512 kernel is not built.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

namespace warden::avx2 {

// Whether this build has the AVX2 kernels (compiled for a CPU with AVX2, FMA and F16C).
bool built();

// int4_linear.cpp's int4_linear on AVX2: x [M, K] bf16/fp16 quantized in `levels` (1 or 2) levels, torch's CPU
// int4 packing in blocks of `block_rows` (64 or 32) output rows, out [M, N] preallocated.
void int4_linear(const at::Tensor& x, const at::Tensor& packed, int64_t group, const at::Tensor& scales_zeros,
                 int64_t block_rows, int64_t levels, at::Tensor& out);

// The same weights times many input rows in float32 (int4_gemm_avx2.cpp): each block dequantized once per call and
// multiplied by FMA with the unquantized inputs (torch's kernel's math); for steps above the small-batch kernel's.
void int4_gemm(const at::Tensor& x, const at::Tensor& packed, int64_t group, const at::Tensor& scales_zeros,
               int64_t block_rows, at::Tensor& out);

}  // namespace warden::avx2
