"""An operator-provided ONNX text classifier (for example a fine-tuned DeBERTa exported with optimum).

The directory holds `model.onnx` and the matching `tokenizer.json`. The model takes `input_ids` and
`attention_mask` (int64, [batch, seq]) and returns logits [batch, labels]; `injection_label` is the column that
means "injection". onnxruntime is imported only when this backend is used, so deployments without it pay nothing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from gateway.guardrails.injection.features import chunks


class OnnxInjectionClassifier:
    name = "onnx"

    def __init__(self, model_dir: Path, injection_label: int = 1, max_tokens: int = 512) -> None:
        try:
            import onnxruntime  # optional dependency, loaded on demand
        except ImportError as exc:  # pragma: no cover - depends on the deployment
            raise RuntimeError("the ONNX injection backend needs the onnxruntime package installed") from exc
        model_dir = Path(model_dir)
        self._session = onnxruntime.InferenceSession(str(model_dir / "model.onnx"), providers=["CPUExecutionProvider"])
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_tokens)
        self._input_names = {node.name for node in self._session.get_inputs()}
        self._injection_label = injection_label
        self.name = f"onnx:{model_dir.name}"

    def probability(self, text: str) -> float:
        encodings = self._tokenizer.encode_batch(chunks(text, size=1500, overlap=200))
        width = max(len(encoding.ids) for encoding in encodings)
        input_ids = np.zeros((len(encodings), width), dtype=np.int64)
        attention = np.zeros_like(input_ids)
        for row, encoding in enumerate(encodings):
            input_ids[row, : len(encoding.ids)] = encoding.ids
            attention[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": attention}
        logits = self._session.run(None, {name: value for name, value in feeds.items() if name in self._input_names})[0]
        logits = logits - logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        return float(probabilities[:, self._injection_label].max())
