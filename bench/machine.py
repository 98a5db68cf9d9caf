"""What a benchmark's CPU figures depend on, for its JSON: the architecture and the vector ISA torch dispatches to
(kernels.cpu's linears are AVX-512 VNNI or AVX2 builds; torch packs int4 weights differently on each)."""

from __future__ import annotations

import platform

import torch


def cpu_description() -> str:
    """e.g. ``x86_64 AVX512`` or ``x86_64 AVX2``."""
    return f"{platform.processor() or platform.machine()} {torch.backends.cpu.get_cpu_capability()}"
