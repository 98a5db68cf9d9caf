"""An operator-provided ONNX text classifier (for example a fine-tuned DeBERTa exported with optimum).

The directory holds `model.onnx` and the matching `tokenizer.json`. The model takes `input_ids` and
`attention_mask` (int64, [batch, seq]) and returns logits [batch, labels]; `injection_label` is the column that
means "injection". onnxruntime is imported only when this backend is used, so deployments without it pay nothing.

Everything that can be wrong with the deployment (no onnxruntime, a missing or unreadable file, a model with other
inputs or too few labels) is checked when the classifier is built, with one probe run, so the gateway refuses to
start instead of failing the first request that needs screening.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from gateway.guardrails.injection.features import chunks

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
_PROBE_TEXT = "Warden start-up check of the injection model."


class InjectionModelError(RuntimeError):
    """The operator's ONNX injection model cannot be used; raised at start-up, the message says why."""


class OnnxInjectionClassifier:
    name = "onnx"

    def __init__(self, model_dir: Path | str, injection_label: int = 1, max_tokens: int = 512) -> None:
        try:
            import onnxruntime  # optional dependency, loaded on demand
        except ImportError as exc:
            raise InjectionModelError(
                "the ONNX injection backend needs the onnxruntime package (pip install onnxruntime)"
            ) from exc
        model_dir = Path(model_dir)
        for file_name in (MODEL_FILE, TOKENIZER_FILE):
            if not (model_dir / file_name).is_file():
                raise InjectionModelError(f"ONNX injection model directory {model_dir} has no {file_name}")
        try:
            self._session = onnxruntime.InferenceSession(
                str(model_dir / MODEL_FILE), providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types for unreadable/invalid graphs
            raise InjectionModelError(f"cannot load {model_dir / MODEL_FILE}: {exc}") from exc
        try:
            self._tokenizer = Tokenizer.from_file(str(model_dir / TOKENIZER_FILE))
        except Exception as exc:  # tokenizers raises a bare Exception for malformed JSON
            raise InjectionModelError(f"cannot load {model_dir / TOKENIZER_FILE}: {exc}") from exc
        self._tokenizer.enable_truncation(max_tokens)
        self._input_names = {node.name for node in self._session.get_inputs()}
        if "input_ids" not in self._input_names or not self._input_names <= {"input_ids", "attention_mask"}:
            raise InjectionModelError(
                f"{model_dir / MODEL_FILE} must take input_ids (and optionally attention_mask); "
                f"it takes {sorted(self._input_names)}"
            )
        self._injection_label = injection_label
        self.name = f"onnx:{model_dir.name}"
        self._probe(model_dir)

    def _probe(self, model_dir: Path) -> None:
        try:
            logits = self._logits([_PROBE_TEXT])
        except Exception as exc:
            raise InjectionModelError(f"{model_dir / MODEL_FILE} failed on a probe input: {exc}") from exc
        if logits.ndim != 2 or logits.shape[0] != 1 or not 0 <= self._injection_label < logits.shape[1]:
            raise InjectionModelError(
                f"{model_dir / MODEL_FILE} returns logits of shape {list(logits.shape)}; expected [batch, labels] "
                f"with injection_label {self._injection_label} among the labels"
            )

    def _logits(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        width = max(1, max(len(encoding.ids) for encoding in encodings))
        input_ids = np.zeros((len(encodings), width), dtype=np.int64)
        attention = np.zeros_like(input_ids)
        for row, encoding in enumerate(encodings):
            input_ids[row, : len(encoding.ids)] = encoding.ids
            attention[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": attention}
        return np.asarray(
            self._session.run(None, {name: value for name, value in feeds.items() if name in self._input_names})[0]
        )

    def probability(self, text: str) -> float:
        logits = self._logits(chunks(text, size=1500, overlap=200)).astype(np.float64)
        logits = logits - logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        return float(probabilities[:, self._injection_label].max())
