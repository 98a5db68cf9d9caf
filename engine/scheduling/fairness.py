"""Fair sharing across tenants: how much of a step's token budget each tenant gets, and each one's recent usage.

The scheduler's rule (``token_allowances``): over the tenants that want prefill this step, each is entitled to a
weight share of everything the active tenants recently used plus this step's budget, and claims what it has not
yet used of that entitlement. The budget is split by those claims, then whatever a tenant cannot use goes to the
others by weight. Two tenants that both keep the engine busy converge to the same recent usage, so they split
every step by policy weight; a tenant that has been light (the victim of a flood) claims far more than a heavy
one and its prompt is prefilled almost as fast as on an idle engine. Usage decays with a half-life counted in
tokens the engine computes, so credit from long ago is forgiven and the state stays bounded.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import TypeVar

T = TypeVar("T", bound=Hashable)
_FORGOTTEN = 1e-3  # usage below this (in tokens) is dropped: an idle tenant costs no memory


def water_fill(amount: int, caps: Mapping[T, int], weights: Mapping[T, float]) -> dict[T, int]:
    """Split ``amount`` whole tokens in proportion to ``weights``, never giving a key more than its cap; what a
    capped key cannot take is split again among the rest. The last few tokens (fewer than keys) go one each to
    the keys least served for their weight, heavier first on a tie."""
    given = dict.fromkeys(caps, 0)
    live = [k for k in caps if caps[k] > 0 and weights[k] > 0]
    while amount > 0 and live:
        total = sum(weights[k] for k in live)
        shares = {k: min(caps[k] - given[k], int(amount * weights[k] / total)) for k in live}
        if not any(shares.values()):
            for k in sorted(live, key=lambda k: (given[k] / weights[k], -weights[k]))[:amount]:
                given[k] += 1
            return given
        for k, share in shares.items():
            given[k] += share
            amount -= share
        live = [k for k in live if given[k] < caps[k]]
    return given


def token_allowances(budget: int, demand: Mapping[T, int], weights: Mapping[T, int],
                     usage: Mapping[T, float]) -> dict[T, int]:
    """Each tenant's prefill tokens this step (see the module docstring). ``demand``: tokens it could use;
    ``weights``: policy weights (>= 1); ``usage``: decayed recent usage in tokens (missing: 0)."""
    active = [t for t in demand if demand[t] > 0]
    if not active or budget <= 0:
        return dict.fromkeys(demand, 0)
    total_weight = sum(weights[t] for t in active)
    pool = sum(usage.get(t, 0.0) for t in active) + budget
    claims = {t: max(0.0, pool * weights[t] / total_weight - usage.get(t, 0.0)) for t in active}
    first = water_fill(budget, {t: min(demand[t], math.ceil(claims[t])) for t in active}, claims)
    rest = water_fill(budget - sum(first.values()), {t: demand[t] - first[t] for t in active},
                      {t: float(weights[t]) for t in active})
    allowances = dict.fromkeys(demand, 0)
    for t in active:
        allowances[t] = first[t] + rest[t]
    return allowances


class DecayedUsage:
    """Tokens each tenant had computed, halving every ``half_life_tokens`` tokens the whole engine computes."""

    def __init__(self, half_life_tokens: int) -> None:
        assert half_life_tokens > 0
        self.half_life_tokens = half_life_tokens
        self.tokens: dict[object, float] = {}

    def get(self, tenant: object) -> float:
        return self.tokens.get(tenant, 0.0)

    def charge(self, step_tokens: Mapping[object, int]) -> None:
        """Account one step: everyone's past usage decays by the step's size, then each tenant adds its tokens."""
        factor = 0.5 ** (sum(step_tokens.values()) / self.half_life_tokens)
        for tenant in list(self.tokens):
            value = self.tokens[tenant] * factor
            if value < _FORGOTTEN and tenant not in step_tokens:
                del self.tokens[tenant]
            else:
                self.tokens[tenant] = value
        for tenant, n in step_tokens.items():
            if n:
                self.tokens[tenant] = self.tokens.get(tenant, 0.0) + n
