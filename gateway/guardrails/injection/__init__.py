"""Offline prompt-injection screening (phrase rules + a shipped linear classifier, or an operator's ONNX model)."""

from gateway.guardrails.injection.classifier import InjectionClassifier, LinearInjectionClassifier
from gateway.guardrails.injection.detector import InjectionDetector, InjectionVerdict
from gateway.guardrails.injection.onnx_backend import InjectionModelError, OnnxInjectionClassifier

__all__ = [
    "InjectionClassifier",
    "InjectionDetector",
    "InjectionModelError",
    "InjectionVerdict",
    "LinearInjectionClassifier",
    "OnnxInjectionClassifier",
]
