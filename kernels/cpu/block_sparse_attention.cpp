// Block-sparse causal attention over the paged KV cache for CPUs (kernels/block_sparse.py defines the pattern):
// every sequence of the batch, decodes included as chunks of one query, each query block against only the key
// blocks its pattern names. The other blocks are never loaded: the loop runs over the visible blocks, it does not
// mask a dense range. Same math as kernels/reference/block_sparse_attention.py.
//
// One task per (sequence, query block of its chunk, kv head): the task's query rows are its block's tokens times
// the query heads sharing the kv head (GQA), so each key and value tile it loads serves all of them. A flash-style
// loop over the visible key blocks keeps a running max and sum per row (float32), with two small GEMMs per key
// block (scores = Q K^T, acc += P V) run by ATen's CPU brgemm (oneDNN's micro-kernel, or the BLAS GEMM where it
// has none). Key and value rows are widened to float32 as they are gathered through the block table, so float32,
// bfloat16 and float16 caches share the loop. Only the diagonal block is masked (causal per token); every earlier
// visible block is seen whole. Soft-capping (Gemma 2) turns each score s into c * tanh(s / c) before the softmax.
//
// ``visits`` (optional, int64 [num_seqs, max_query_blocks]) receives, per sequence and query block, how many key
// blocks the loop read: the tests check it against kernels.block_sparse.visited_key_blocks.
//
// Built at run time by kernels/cpu/__init__.py with the other CPU kernels; registered as
// torch.ops.warden_cpu.block_sparse_attention.

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/native/CPUBlas.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

namespace {

struct Pattern {
  int64_t block, local, global, stride;

  bool sees(int64_t qb, int64_t kb) const {
    if (kb > qb || kb < 0) return false;
    return kb < global || qb - kb < local || (stride > 0 && (kb + 1) % stride == 0);
  }
};

// One task's rows: the queries of sequence ``seq`` at positions [pos_begin, pos_end), all in query block ``qb``,
// the ``index``-th block of the sequence's chunk, starting at row ``row`` of q.
struct QueryBlock {
  int64_t seq, qb, index, row, pos_begin, pos_end;
};

// Cache rows to float32 (bfloat16 and float16 widen exactly; -O3 -march=native vectorizes the loop).
template <typename scalar_t>
inline void widen(const scalar_t* src, float* dst, int64_t n) {
  if constexpr (std::is_same_v<scalar_t, float>) {
    std::memcpy(dst, src, n * sizeof(float));
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
  }
}

template <typename scalar_t>
void block_sparse_kernel(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                         const at::Tensor& block_tables, const std::vector<QueryBlock>& tasks, double scale_d,
                         const Pattern& pattern, double softcap_d, int64_t* visits, int64_t visits_stride,
                         at::Tensor& out) {
  const int64_t heads = q.size(1), head_dim = q.size(2);
  const int64_t cache_block = k_cache.size(1), kv_heads = k_cache.size(2);
  const int64_t group = heads / kv_heads, table_stride = block_tables.stride(0);
  const scalar_t* q_ptr = q.const_data_ptr<scalar_t>();
  const scalar_t* k_ptr = k_cache.const_data_ptr<scalar_t>();
  const scalar_t* v_ptr = v_cache.const_data_ptr<scalar_t>();
  const int32_t* tables = block_tables.const_data_ptr<int32_t>();
  scalar_t* out_ptr = out.mutable_data_ptr<scalar_t>();
  const float scale = static_cast<float>(scale_d), softcap = static_cast<float>(softcap_d);
  const int64_t B = pattern.block;
  const int64_t max_rows = B * group;

  at::parallel_for(0, static_cast<int64_t>(tasks.size()) * kv_heads, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> qf(max_rows * head_dim), kt(head_dim * B), vf(B * head_dim), s(max_rows * B);
    std::vector<float> acc(max_rows * head_dim), m(max_rows), l(max_rows);
    for (int64_t task = begin; task < end; ++task) {
      const QueryBlock& t = tasks[task / kv_heads];
      const int64_t h = task % kv_heads;
      const int64_t tokens = t.pos_end - t.pos_begin, rows = tokens * group;
      const int32_t* table = tables + t.seq * table_stride;
      // Row r = token r / group, query head h * group + r % group.
      for (int64_t i = 0; i < tokens; ++i)
        for (int64_t g = 0; g < group; ++g) {
          float* dst = qf.data() + (i * group + g) * head_dim;
          widen(q_ptr + ((t.row + i) * heads + h * group + g) * head_dim, dst, head_dim);
          for (int64_t d = 0; d < head_dim; ++d) dst[d] *= scale;
        }
      std::fill(m.begin(), m.begin() + rows, -std::numeric_limits<float>::infinity());
      std::fill(l.begin(), l.begin() + rows, 0.f);
      std::fill(acc.begin(), acc.begin() + rows * head_dim, 0.f);
      int64_t visited = 0;
      for (int64_t kb = 0; kb <= t.qb; ++kb) {
        if (!pattern.sees(t.qb, kb)) continue;
        ++visited;
        // Keys past the task's last query are seen by none of its rows (only the diagonal block has any).
        const int64_t k_begin = kb * B, k_end = std::min((kb + 1) * B, t.pos_end), n = k_end - k_begin;
        for (int64_t j = 0; j < n; ++j) {
          const int64_t pos = k_begin + j;
          const int64_t slot = static_cast<int64_t>(table[pos / cache_block]) * cache_block + pos % cache_block;
          float row[512];
          const int64_t offset = (slot * kv_heads + h) * head_dim;
          widen(k_ptr + offset, row, head_dim);
          for (int64_t d = 0; d < head_dim; ++d) kt[d * n + j] = row[d];  // K^T [head_dim, n]
          widen(v_ptr + offset, vf.data() + j * head_dim, head_dim);
        }
        // s [rows, n] = Q [rows, head_dim] . K^T [head_dim, n]
        at::native::cpublas::brgemm(rows, n, head_dim, head_dim, n, n, false, qf.data(), kt.data(), s.data());
        const bool diagonal = kb == t.qb;
        for (int64_t r = 0; r < rows; ++r) {
          float* sr = s.data() + r * n;
          if (softcap > 0.f)
            for (int64_t j = 0; j < n; ++j) sr[j] = softcap * std::tanh(sr[j] / softcap);
          // The diagonal block: key j is visible to the row's query at pos iff k_begin + j <= pos.
          const int64_t seen = diagonal ? t.pos_begin + r / group - k_begin + 1 : n;
          float block_max = -std::numeric_limits<float>::infinity();
          for (int64_t j = 0; j < seen; ++j) block_max = std::max(block_max, sr[j]);
          const float m_new = std::max(m[r], block_max);  // finite: every visited block shows a row >= 1 key
          const float alpha = std::exp(m[r] - m_new);
          float sum = 0.f;
          for (int64_t j = 0; j < seen; ++j) {
            sr[j] = std::exp(sr[j] - m_new);
            sum += sr[j];
          }
          for (int64_t j = seen; j < n; ++j) sr[j] = 0.f;
          l[r] = l[r] * alpha + sum;
          m[r] = m_new;
          if (alpha != 1.f) {
            float* a = acc.data() + r * head_dim;
            for (int64_t d = 0; d < head_dim; ++d) a[d] *= alpha;
          }
        }
        // acc [rows, head_dim] += P [rows, n] . V [n, head_dim]
        at::native::cpublas::brgemm(rows, head_dim, n, n, head_dim, head_dim, true, s.data(), vf.data(),
                                    acc.data());
      }
      for (int64_t r = 0; r < rows; ++r) {
        const float inv = 1.f / l[r];
        const float* a = acc.data() + r * head_dim;
        scalar_t* o = out_ptr + ((t.row + r / group) * heads + h * group + r % group) * head_dim;
        for (int64_t d = 0; d < head_dim; ++d) o[d] = static_cast<scalar_t>(a[d] * inv);
      }
      if (visits != nullptr && h == 0) visits[t.seq * visits_stride + t.index] = visited;
    }
  });
  at::native::cpublas::brgemm_release();
}

at::Tensor block_sparse_attention(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                                  const at::Tensor& block_tables, const at::Tensor& seq_lens,
                                  const at::Tensor& query_start_loc, double scale, at::IntArrayRef pattern_ints,
                                  double softcap, const std::optional<at::Tensor>& visits) {
  TORCH_CHECK(q.dim() == 3 && k_cache.dim() == 4 && v_cache.sizes() == k_cache.sizes(),
              "q [tokens, heads, head_dim], caches [blocks, block_size, kv_heads, head_dim]");
  TORCH_CHECK(q.device().is_cpu() && k_cache.device().is_cpu(), "block_sparse_attention runs on CPU tensors");
  TORCH_CHECK(q.scalar_type() == k_cache.scalar_type() && v_cache.scalar_type() == k_cache.scalar_type(),
              "q and the caches share one dtype");
  TORCH_CHECK(q.size(2) == k_cache.size(3) && q.size(1) % k_cache.size(2) == 0, "head_dim / GQA mismatch");
  TORCH_CHECK(q.size(2) <= 512, "head_dim above 512");
  TORCH_CHECK(k_cache.is_contiguous() && v_cache.is_contiguous(), "caches must be contiguous");
  TORCH_CHECK(block_tables.scalar_type() == at::kInt && seq_lens.scalar_type() == at::kInt &&
                  query_start_loc.scalar_type() == at::kInt,
              "block_tables, seq_lens and query_start_loc are int32");
  TORCH_CHECK(pattern_ints.size() == 4, "pattern is [block_size, local_blocks, global_blocks, stride]");
  const Pattern pattern{pattern_ints[0], pattern_ints[1], pattern_ints[2], pattern_ints[3]};
  TORCH_CHECK(pattern.block >= 1 && pattern.local >= 1, "block_size and local_blocks must be positive");
  const int64_t num_seqs = seq_lens.size(0);
  TORCH_CHECK(query_start_loc.size(0) == num_seqs + 1 && block_tables.size(0) >= num_seqs, "one row per sequence");
  const at::Tensor starts = query_start_loc.contiguous(), lens = seq_lens.contiguous();
  const int32_t* start_ptr = starts.const_data_ptr<int32_t>();
  const int32_t* len_ptr = lens.const_data_ptr<int32_t>();
  TORCH_CHECK(start_ptr[num_seqs] == q.size(0), "query_start_loc must end at the number of query tokens");

  std::vector<QueryBlock> tasks;
  int64_t most_blocks = 0;
  for (int64_t b = 0; b < num_seqs; ++b) {
    const int64_t row = start_ptr[b], q_len = start_ptr[b + 1] - row, len = len_ptr[b], first = len - q_len;
    TORCH_CHECK(q_len >= 0 && first >= 0, "a sequence's queries exceed its context");
    if (q_len == 0) continue;
    int64_t index = 0;
    for (int64_t qb = first / pattern.block; qb <= (len - 1) / pattern.block; ++qb, ++index) {
      const int64_t lo = std::max(first, qb * pattern.block), hi = std::min(len, (qb + 1) * pattern.block);
      tasks.push_back({b, qb, index, row + lo - first, lo, hi});
    }
    most_blocks = std::max(most_blocks, index);
  }
  int64_t* visit_ptr = nullptr;
  int64_t visit_stride = 0;
  if (visits.has_value()) {
    TORCH_CHECK(visits->scalar_type() == at::kLong && visits->dim() == 2 && visits->is_contiguous() &&
                    visits->size(0) >= num_seqs && visits->size(1) >= most_blocks,
                "visits is a contiguous int64 [num_seqs, max_query_blocks]");
    visit_ptr = visits->mutable_data_ptr<int64_t>();
    visit_stride = visits->stride(0);
  }
  const at::Tensor qc = q.contiguous();
  const at::Tensor tables = block_tables.stride(1) == 1 ? block_tables : block_tables.contiguous();
  at::Tensor out = at::empty_like(qc);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, q.scalar_type(), "block_sparse_attention", [&] {
    block_sparse_kernel<scalar_t>(qc, k_cache, v_cache, tables, tasks, scale, pattern, softcap, visit_ptr,
                                  visit_stride, out);
  });
  return out;
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(warden_cpu, m) {
  m.def("block_sparse_attention(Tensor q, Tensor k_cache, Tensor v_cache, Tensor block_tables, Tensor seq_lens, "
        "Tensor query_start_loc, float scale, int[] pattern, float softcap=0., Tensor(a!)? visits=None) -> Tensor");
}

TORCH_LIBRARY_IMPL(warden_cpu, CPU, m) { m.impl("block_sparse_attention", &block_sparse_attention); }
