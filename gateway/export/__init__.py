"""Compliance export: streamed audit files, signed manifests, signed chain-head checkpoints, offline verification."""
