"""How many drafts each decoding sequence verifies this step: the count that maximizes expected tokens per second.

A step of ``B`` decoding sequences yields ``B`` tokens; verifying ``D`` drafts more makes it a step of ``B + D``
tokens that yields ``B`` plus the accepted drafts. The ``j``-th draft of a sequence is kept with probability
``first * then**(j - 1)`` (its rates, ``engine.spec_decode.acceptance``), which falls with ``j``, so for any total
``D`` the best drafts to verify are the ``D`` likeliest, each sequence's taken in order. The step verifies the
``D`` (zero included) that maximizes ``expected tokens / step cost`` (SmartSpec's goodput, Liu et al. 2024), with
the costs measured on this machine (``StepCostTable``): on a GPU, where a few more rows are nearly free, nearly any
draft pays; on a CPU a lone sequence drafts only while its drafts are mostly accepted.

A batch size whose plain step is neither measured nor between measured sizes drafts nothing, so that it gets
measured; a verification size past the largest measured one is assumed as cheap as it could be, so it is tried.
"""

from __future__ import annotations

from engine.spec_decode.step_costs import StepCostTable


def choose_draft_lengths(num_decodes: int, proposed: list[int], rates: list[tuple[float, float]],
                         plain: StepCostTable, verify: StepCostTable) -> list[int]:
    """Drafts to verify for each of the sequences that proposed ``proposed[i]`` tokens with acceptance rates
    ``rates[i]`` (first, then), in a step of ``num_decodes`` decoding sequences (a prefix of each proposal)."""
    chosen = [0] * len(proposed)
    base = plain.estimate(num_decodes) if plain.covers(num_decodes) else None
    if base is None:
        return chosen
    gains: list[tuple[float, int]] = []  # (the chance a draft is kept, its sequence)
    for i, (n, (first, then)) in enumerate(zip(proposed, rates, strict=True)):
        gains += [(first * then ** (j - 1), i) for j in range(1, n + 1)]
    gains.sort(key=lambda gain: -gain[0])  # stable: each sequence's drafts stay in order
    best_total, best_goodput = 0, num_decodes / base
    expected = float(num_decodes)
    for total, (gain, _) in enumerate(gains, start=1):
        expected += gain
        cost = max(base, verify.estimate(num_decodes + total) or base)
        if expected / cost > best_goodput:
            best_total, best_goodput = total, expected / cost
    for _, i in gains[:best_total]:
        chosen[i] += 1
    return chosen
