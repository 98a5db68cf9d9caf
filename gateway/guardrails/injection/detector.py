"""Prompt-injection screening: phrase rules plus a classifier; the score is the larger of the two."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.guardrails.injection.classifier import InjectionClassifier, LinearInjectionClassifier
from gateway.guardrails.injection.heuristics import match_rules
from gateway.guardrails.normalize import reader_view


@dataclass(frozen=True, slots=True)
class InjectionVerdict:
    score: float
    signals: tuple[str, ...]  # rule names and the classifier's name when it scored highest; never the text

    def as_record(self) -> dict[str, object]:
        return {"score": round(self.score, 3), "signals": list(self.signals)}


class InjectionDetector:
    def __init__(self, classifier: InjectionClassifier | None = None) -> None:
        self._classifier = classifier if classifier is not None else LinearInjectionClassifier.load()

    @property
    def classifier_name(self) -> str:
        return self._classifier.name

    def score(self, text: str) -> InjectionVerdict:
        # As a reader sees it: "ig\u200bnore previous instructions" is the instruction the model will follow.
        text = reader_view(text).text
        rules = match_rules(text)
        rule_score = max((rule.score for rule in rules), default=0.0)
        model_score = self._classifier.probability(text)
        signals = [rule.name for rule in rules]
        if model_score >= 0.5:
            signals.append(self._classifier.name)
        return InjectionVerdict(max(rule_score, model_score), tuple(signals))
