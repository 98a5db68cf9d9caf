// Greedy sampling's argmax: per row of float32 logits [rows, vocab], the index of the first largest value, with
// torch's semantics for max(dim) / argmax: ties go to the first index, and a NaN counts as larger than everything
// (the row's first NaN wins).
//
// Why: torch's max-with-index reduction compares one element at a time, far slower than the rows stream from
// cache. Here 16 lanes keep their own running
// maximum and the index where it first appeared (a lane only moves to a strictly larger value, so it keeps the first
// of its ties); four such accumulators read consecutive vectors so the compare-and-blend chains overlap. At the
// end the row's maximum is the largest lane value and its index the smallest index among the lanes holding it,
// which is the first occurrence in the row. NaNs are looked for per block of 64 (an ordered compare never picks
// one), and the first block with one is scanned for it in order, which is the first NaN in the row.
//
// Built with the other CPU kernels by kernels/cpu/__init__.py; registered as torch.ops.warden_cpu.argmax.

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__AVX512F__)
#include <immintrin.h>
#define WARDEN_ARGMAX_VECTOR 1
#endif

namespace {

bool argmax_supported() {
#ifdef WARDEN_ARGMAX_VECTOR
  return true;
#else
  return false;
#endif
}

// The loop builds without AVX-512 run (and the vector path's NaN search): one element at a time.
int64_t first_max_portable(const float* x, int64_t n) {
  int64_t best = 0;
  float best_value = x[0];
  for (int64_t i = 0; i < n; ++i) {
    const float value = x[i];
    if (std::isnan(value)) return i;
    if (value > best_value) {
      best_value = value;
      best = i;
    }
  }
  return best;
}

#ifdef WARDEN_ARGMAX_VECTOR

constexpr int64_t kLanes = 16;
constexpr int kAccumulators = 4;
constexpr int64_t kBlock = kLanes * kAccumulators;

int64_t first_nan(const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (std::isnan(x[i])) return i;
  return -1;  // not reached: called only where a compare found one
}

int64_t first_max_avx512(const float* x, int64_t n) {
  // Per accumulator and lane: the largest value so far and the start of the block it was first seen in (the lane's
  // element is at that start + 16 * accumulator + lane). Starting at -inf from block 0 is right for all--inf rows
  // too: then every lane ties at -inf and the smallest index, 0, wins.
  __m512 best[kAccumulators];
  __m512i where[kAccumulators];
  for (int a = 0; a < kAccumulators; ++a) {
    best[a] = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    where[a] = _mm512_setzero_si512();
  }
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    __m512 v[kAccumulators];
    __mmask16 nan = 0;
    for (int a = 0; a < kAccumulators; ++a) {
      v[a] = _mm512_loadu_ps(x + i + a * kLanes);
      nan |= _mm512_cmp_ps_mask(v[a], v[a], _CMP_UNORD_Q);
    }
    if (nan) return i + first_nan(x + i, kBlock);
    const __m512i start = _mm512_set1_epi32(static_cast<int32_t>(i));
    for (int a = 0; a < kAccumulators; ++a) {
      const __mmask16 larger = _mm512_cmp_ps_mask(v[a], best[a], _CMP_GT_OQ);
      best[a] = _mm512_mask_mov_ps(best[a], larger, v[a]);
      where[a] = _mm512_mask_mov_epi32(where[a], larger, start);
    }
  }
  // The tail (fewer than 64): whole and partial vectors into accumulator 0, whose lanes are offset 0 from a start.
  for (; i < n; i += kLanes) {
    const int64_t count = std::min(kLanes, n - i);
    const __mmask16 valid = count == kLanes ? __mmask16(0xFFFF) : __mmask16((1u << count) - 1);
    const __m512 v = _mm512_mask_loadu_ps(_mm512_set1_ps(-std::numeric_limits<float>::infinity()), valid, x + i);
    if (_mm512_mask_cmp_ps_mask(valid, v, v, _CMP_UNORD_Q)) return i + first_nan(x + i, count);
    const __mmask16 larger = _mm512_cmp_ps_mask(v, best[0], _CMP_GT_OQ);
    best[0] = _mm512_mask_mov_ps(best[0], larger, v);
    where[0] = _mm512_mask_mov_epi32(where[0], larger, _mm512_set1_epi32(static_cast<int32_t>(i)));
  }
  __m512 top = best[0];
  for (int a = 1; a < kAccumulators; ++a) top = _mm512_max_ps(top, best[a]);
  const __m512 row_max = _mm512_set1_ps(_mm512_reduce_max_ps(top));
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  int32_t first = std::numeric_limits<int32_t>::max();
  for (int a = 0; a < kAccumulators; ++a) {
    const __mmask16 holds = _mm512_cmp_ps_mask(best[a], row_max, _CMP_EQ_OQ);
    const __m512i index = _mm512_add_epi32(where[a], _mm512_add_epi32(lane, _mm512_set1_epi32(a * kLanes)));
    first = std::min(first, _mm512_mask_reduce_min_epi32(holds, index));  // all-lanes-false: INT32_MAX
  }
  return first;
}

#endif  // WARDEN_ARGMAX_VECTOR

at::Tensor argmax(const at::Tensor& x, bool portable) {
  TORCH_CHECK(x.device().is_cpu(), "argmax runs on CPU tensors");
  TORCH_CHECK(x.dim() == 2 && x.scalar_type() == at::kFloat, "x is float32 [rows, vocab]");
  const int64_t rows = x.size(0), n = x.size(1);
  TORCH_CHECK(n > 0, "argmax of an empty row");  // as torch: a maximum of nothing has no index
  TORCH_CHECK(n <= std::numeric_limits<int32_t>::max(), "rows longer than 2^31 - 1 are not supported");
  // Rows may be strided (a slice of a wider buffer); their elements are read as one contiguous run.
  const at::Tensor xs = x.stride(1) == 1 ? x : x.contiguous();
  const float* data = xs.const_data_ptr<float>();
  const int64_t stride = xs.stride(0);
  at::Tensor out = at::empty({rows}, x.options().dtype(at::kLong));
  int64_t* indices = out.mutable_data_ptr<int64_t>();
  const bool vector = !portable && argmax_supported();
  // Rows split over threads once there are enough elements to pay for waking them (ATen's own grain, 32k).
  const int64_t grain = std::max<int64_t>(1, at::internal::GRAIN_SIZE / n);
  at::parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* row = data + r * stride;
#ifdef WARDEN_ARGMAX_VECTOR
      indices[r] = vector ? first_max_avx512(row, n) : first_max_portable(row, n);
#else
      (void)vector;
      indices[r] = first_max_portable(row, n);
#endif
    }
  });
  return out;
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(warden_cpu, m) {
  m.def("argmax_supported() -> bool", &argmax_supported);
  // portable=True runs the loop of builds without AVX-512 wherever it is built, so tests check it on any machine.
  m.def("argmax(Tensor x, bool portable=False) -> Tensor");
}

TORCH_LIBRARY_IMPL(warden_cpu, CPU, m) {
  m.impl("argmax", &argmax);
}
