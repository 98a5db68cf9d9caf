"""Speculative decoding: draft tokens proposed without a model, verified by the target model in one step."""

from engine.spec_decode.ngram_proposer import NgramProposer

__all__ = ["NgramProposer"]
