"""What runs next and where its KV cache lives: the continuous-batching ``scheduler`` (decodes first, then chunked
prefill split across tenants by ``fairness``), the paged ``block_manager`` with the prefix-cache index, each
request's ``sequence`` state, and ``mamba_state``, the recurrent-state slots and snapshots of models with Mamba2
layers that the block manager admits beside their KV blocks. No tensors of the model run here.
"""
