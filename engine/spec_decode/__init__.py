"""Speculative decoding: draft tokens proposed by prompt lookup or by a small draft model, verified by the target
model in one step."""

from engine.spec_decode.draft_model import DraftModelProposer
from engine.spec_decode.ngram_proposer import NgramProposer

__all__ = ["DraftModelProposer", "NgramProposer"]
