// The int4 linear for many rows with int8 inputs (prompt chunks, draft verification above the small-batch rows) on
// AVX-512 VNNI + VBMI CPUs: int4_linear's math (the inputs quantized to int8 per group, one level) as a GEMM.
//
// int4_linear is a tiled GEMV: per tile of 8 rows it loads each 64-row weight block again and permutes its nibbles
// into vpdpbusd's operand (a vpermt2b and two ands per 16 columns and 4 k). Here each block is unpacked once per call
// into an int8 panel (the permuted, masked vectors int4_linear makes, 64 bytes per k: 1 KB per group), which every
// row of the call then reads from cache: per 4 k a register tile of kGemmRows rows costs 4 panel loads, one
// broadcast of each row's 4 input codes and 4 vpdpbusd per row, 4 x kGemmRows accumulators in registers.
// Measured (bench.cpu_linears, SmolLM2's layer shapes, one thread): as fast as int4_linear at 64-512 rows, not
// faster: int4_linear's permutes are ~3 instructions per 16 vpdpbusd at tiles of 8, so both are bound by the dots and
// each group's float update (4 conversions, 4 multiplies and 8 FMAs per row per 32 k, against 32 vpdpbusd). Not
// routed by the engine: int8 inputs above the small-batch rows cost agreement (bench.agreement's
// bf16+int4/int8-inputs), and at int4_linear's speed this GEMM gains nothing over it where they are wanted.
//
// Numerics: per row, group and 16 outputs the same integer sums and the same float update, in the same order, as
// int4_linear's permuting kernel (gemv_block_permuted): the results are bitwise int4_linear's (the tests compare).
// Included by int4_linear.cpp (inside its anonymous namespace, after the permuting kernel, whose column index and
// scale loads it shares), registered as torch.ops.warden_cpu.int4_gemm_int8.

#pragma once

#ifdef WARDEN_INT4_PERMUTED

constexpr int kGemmRows = 4;  // rows per register tile: 4 x 4 accumulators + 4 panel vectors (more rows spill)

// One input matrix quantized to int8 per group, one level: codes [M, K], per row and group the scale and the sum of
// the group's dequantized inputs (level_scales_and_sums' values for level 0).
struct QuantizedRows {
  std::vector<int8_t> codes;
  std::vector<float> scales, sums;  // [M, K / group]
};

template <typename scalar_t>
void quantize_rows(const scalar_t* x, int64_t M, int64_t K, int64_t group, QuantizedRows& q) {
  const int64_t G = K / group;
  q.codes.resize(M * K);
  q.scales.resize(M * G);
  q.sums.resize(M * G);
  at::parallel_for(0, M, 16, [&](int64_t begin, int64_t end) {
    warden::Int8Groups groups;
    std::vector<float> scales, sums;
    for (int64_t m = begin; m < end; ++m) {
      warden::quantize_groups_one_level(x + m * K, K, group, groups);
      warden::level_scales_and_sums(groups, 0, scales, sums);
      std::copy(groups.codes.begin(), groups.codes.end(), q.codes.begin() + m * K);
      std::copy(scales.begin(), scales.end(), q.scales.begin() + m * G);
      std::copy(sums.begin(), sums.end(), q.sums.begin() + m * G);
    }
  });
}

// One 64-row block's weights as vpdpbusd's unsigned operands: per 4 k, vector j = 2p + c holds output rows
// 16j .. 16j + 15 (c: the 16-column half, p: the nibble plane, the high nibbles kept in place as 16 x their codes),
// each 32-bit lane one row's 4 codes in k order (gemv_block_permuted's vectors, made once).
inline void unpack_panel(const uint8_t* block, int64_t K, __m512i* panel) {
  const __m512i low_mask = _mm512_set1_epi8(0x0F);
  const __m512i high_mask = _mm512_set1_epi8(static_cast<char>(0xF0));
  const __m512i index[2] = {_mm512_load_si512(kColumnIndex.bytes[0]), _mm512_load_si512(kColumnIndex.bytes[1])};
  for (int64_t k = 0; k < K; k += 4) {
    const uint8_t* line = block + k * (kBlockRows / 2);
    const __m512i first = _mm512_loadu_si512(line), second = _mm512_loadu_si512(line + 64);
    __m512i* out = panel + k;  // 4 vectors per 4 k
    for (int c = 0; c < 2; ++c) {
      const __m512i codes = _mm512_permutex2var_epi8(first, index[c], second);
      _mm512_store_si512(out + c, _mm512_and_si512(codes, low_mask));
      _mm512_store_si512(out + 2 + c, _mm512_and_si512(codes, high_mask));
    }
  }
}

// R rows (from m0) against one unpacked block: each group's integer dots in registers, then gemv_block_permuted's
// float update of each row's 64 outputs (kept in `out`, [R, 64] float32, between groups).
// kGroup: the group's size as a constant (its k loop unrolled: otherwise gcc copies every accumulator between
// registers on each step), or 0 to read it from `group`.
template <int R, int kGroup>
__attribute__((always_inline)) inline void gemm_tile(const __m512i* panel, const float* scales, const float* offsets,
                                                     const QuantizedRows& q, int64_t m0, int64_t K, int64_t runtime_group,
                                                     float* out) {
  const int64_t group = kGroup > 0 ? kGroup : runtime_group;
  const int64_t G = K / group;
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < 4; ++j) _mm512_storeu_ps(out + r * kBlockRows + 16 * j, _mm512_setzero_ps());
  const int8_t* codes[R];
  const float* x_scales[R];
  const float* x_sums[R];
  for (int r = 0; r < R; ++r) {
    codes[r] = q.codes.data() + (m0 + r) * K;
    x_scales[r] = q.scales.data() + (m0 + r) * G;
    x_sums[r] = q.sums.data() + (m0 + r) * G;
  }
  for (int64_t g = 0; g < G; ++g) {
    // Every loop over the tile's rows and vectors unrolled, so the accumulators stay in registers (an array indexed
    // in a loop gcc keeps rolled lives on the stack).
    __m512i acc[R][4];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) acc[r][j] = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int64_t step = 0; step < group / 4; ++step) {
      const int64_t k = g * group + 4 * step;
      const __m512i* w = panel + k;
      const __m512i w0 = _mm512_load_si512(w), w1 = _mm512_load_si512(w + 1);
      const __m512i w2 = _mm512_load_si512(w + 2), w3 = _mm512_load_si512(w + 3);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const __m512i input = broadcast_four_codes(codes[r] + k);
        acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], w0, input);
        acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], w1, input);
        acc[r][2] = _mm512_dpbusd_epi32(acc[r][2], w2, input);
        acc[r][3] = _mm512_dpbusd_epi32(acc[r][3], w3, input);
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const float x_scale = x_scales[r][g];
      const __m512 low_scale = _mm512_set1_ps(x_scale), high_scale = _mm512_set1_ps(x_scale / 16.f);
      const __m512 x_sum = _mm512_set1_ps(x_sums[r][g]);
      float* o = out + r * kBlockRows;
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        const __m512 scale = _mm512_loadu_ps(scales + (g * 4 + j) * 16);
        const __m512 offset = _mm512_loadu_ps(offsets + (g * 4 + j) * 16);
        __m512 y = _mm512_loadu_ps(o + 16 * j);
        y = _mm512_fmadd_ps(_mm512_mul_ps(scale, j < 2 ? low_scale : high_scale), _mm512_cvtepi32_ps(acc[r][j]), y);
        y = _mm512_fmadd_ps(offset, x_sum, y);
        _mm512_storeu_ps(o + 16 * j, y);
      }
    }
  }
}

template <int R>
void gemm_tile_rows(const __m512i* panel, const float* scales, const float* offsets, const QuantizedRows& q,
                    int64_t m0, int64_t K, int64_t group, float* out) {
  if (group == 32) {
    gemm_tile<R, 32>(panel, scales, offsets, q, m0, K, group, out);
  } else {
    gemm_tile<R, 0>(panel, scales, offsets, q, m0, K, group, out);
  }
}

// y [M, N] = int4_linear(x) for any M, each 64-row block of weights unpacked once. Scales in torch's layout or per
// block (4 dimensions), as int4_linear reads them.
template <typename scalar_t>
void int4_gemm_int8_kernel(const at::Tensor& x, const at::Tensor& packed, const at::Tensor& scales_zeros,
                           int64_t group, at::Tensor& out) {
  const int64_t M = x.size(0), K = x.size(1), N = packed.size(0), G = K / group;
  const bool blocked = scales_zeros.dim() == 4;
  QuantizedRows q;
  quantize_rows(x.const_data_ptr<scalar_t>(), M, K, group, q);
  const uint8_t* w = packed.const_data_ptr<uint8_t>();
  const scalar_t* sz = scales_zeros.const_data_ptr<scalar_t>();
  scalar_t* y = out.mutable_data_ptr<scalar_t>();
  at::parallel_for(0, N / kBlockRows, 1, [&](int64_t begin, int64_t end) {
    std::vector<__m512i> panel(K);  // 4 vectors per 4 k
    std::vector<float> scales(G * kBlockRows), offsets(G * kBlockRows);
    alignas(64) float tile_out[kGemmRows * kBlockRows];
    for (int64_t b = begin; b < end; ++b) {
      const int64_t n0 = b * kBlockRows;
      unpack_panel(w + b * K * (kBlockRows / 2), K, panel.data());
      for (int64_t g = 0; g < G; ++g) {
        const scalar_t* pairs = blocked ? sz + (b * G + g) * kBlockRows * 2 : sz + (g * N + n0) * 2;
        for (int j = 0; j < 4; ++j) {
          __m512 scale, zero;
          load_scale_zero(pairs + j * 32, scale, zero);
          _mm512_storeu_ps(scales.data() + (g * 4 + j) * 16, scale);
          // zero - 8 * scale: what each unit of input adds, since the codes are stored without their -8.
          _mm512_storeu_ps(offsets.data() + (g * 4 + j) * 16, _mm512_fnmadd_ps(_mm512_set1_ps(8.f), scale, zero));
        }
      }
      for (int64_t m0 = 0; m0 < M; m0 += kGemmRows) {
        const int64_t rows = std::min<int64_t>(kGemmRows, M - m0);
        const __m512i* p = panel.data();
        switch (rows) {
          case 1: gemm_tile_rows<1>(p, scales.data(), offsets.data(), q, m0, K, group, tile_out); break;
          case 2: gemm_tile_rows<2>(p, scales.data(), offsets.data(), q, m0, K, group, tile_out); break;
          case 3: gemm_tile_rows<3>(p, scales.data(), offsets.data(), q, m0, K, group, tile_out); break;
          default: gemm_tile_rows<kGemmRows>(p, scales.data(), offsets.data(), q, m0, K, group, tile_out); break;
        }
        for (int64_t r = 0; r < rows; ++r) store_block(tile_out + r * kBlockRows, y + (m0 + r) * N + n0);
      }
    }
  });
}

#endif  // WARDEN_INT4_PERMUTED
