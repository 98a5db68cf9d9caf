"""How often a sequence's drafts are accepted, observed whether it drafts or not.

Prompt lookup's drafts come in runs: when the sequence quotes its context, a first draft that matches is followed
by more that match; when it writes its own words, the first draft usually misses. So two rates are kept: ``first``,
how often the first draft of a proposal is accepted, and ``then``, how often a draft is accepted after the one
before it was. A proposal of ``d`` verified with ``a`` accepted is one first-draft trial (a hit if ``a >= 1``) and,
after a hit, ``a - 1`` continuation hits in ``a - 1`` trials, plus one more trial if a later draft missed. The
``j``-th draft is then expected to be kept with probability ``first * then**(j - 1)``.

Prompt lookup proposes for free, so a sequence that is not drafting still proposes, and its *shadow* proposal is
checked against the tokens the sequence then decodes one at a time: the same observation verification would have
made, at no cost. A sequence that stopped drafting because its text stopped quoting the context therefore starts
again as soon as it quotes again.

Acceptance is bursty (a sequence copies a passage, then writes its own words), so each sequence weighs its recent
proposals most (``decay`` per observation), and it starts from the engine-wide rates, which move slowly.
"""

from __future__ import annotations


class AcceptanceCounts:
    """Decayed hit and trial counts of the two rates."""

    __slots__ = ("first_hits", "first_trials", "then_hits", "then_trials")

    def __init__(self, first: float = 0.0, then: float = 0.0, weight: float = 0.0) -> None:
        self.first_hits, self.first_trials = first * weight, weight
        self.then_hits, self.then_trials = then * weight, weight

    def add(self, proposed: int, accepted: int, decay: float) -> None:
        self.first_hits = self.first_hits * decay + (accepted > 0)
        self.first_trials = self.first_trials * decay + 1
        self.then_hits *= decay
        self.then_trials *= decay
        if accepted > 0:
            self.then_hits += accepted - 1
            self.then_trials += accepted - 1 + (accepted < proposed)


class DraftHistory:
    """One sequence's recent draft outcomes, and the shadow proposal still being checked (not drafting)."""

    __slots__ = ("counts", "shadow", "shadow_at")

    def __init__(self) -> None:
        self.counts = AcceptanceCounts()
        self.shadow: list[int] = []  # proposed, not drafted: compared with the tokens decoded from ``shadow_at`` on
        self.shadow_at = 0


class AcceptanceTracker:
    def __init__(self, *, decay: float = 0.6, engine_decay: float = 0.99, prior_rate: float = 0.5,
                 prior_weight: float = 1.0) -> None:
        self.decay = decay  # per observation, for one sequence
        self.engine_decay = engine_decay
        self.prior_weight = prior_weight  # observations' worth of the engine-wide rates in each sequence's estimate
        self.engine = AcceptanceCounts(prior_rate, prior_rate, 2.0)

    @property
    def engine_rates(self) -> tuple[float, float]:
        return self.engine.first_hits / self.engine.first_trials, self.engine.then_hits / self.engine.then_trials

    def rates(self, history: DraftHistory) -> tuple[float, float]:
        """(first, then) for ``history``'s sequence, its own observations blended with the engine's rates."""
        first, then = self.engine_rates
        c, w = history.counts, self.prior_weight
        return ((c.first_hits + w * first) / (c.first_trials + w), (c.then_hits + w * then) / (c.then_trials + w))

    def observe(self, history: DraftHistory, proposed: int, accepted: int) -> None:
        """A proposal of ``proposed`` tokens of which the first ``accepted`` matched what the model sampled."""
        if proposed <= 0:
            return
        history.counts.add(proposed, accepted, self.decay)
        self.engine.add(proposed, accepted, self.engine_decay)

    def settle_shadow(self, history: DraftHistory, token_ids: list[int], *, final: bool = False) -> None:
        """Compare the shadow proposal with the tokens decoded since; once it has missed or been matched in
        full, record the outcome and drop it. A shadow still matching so far waits for more tokens, unless
        ``final`` (the sequence drafts now, and verification takes over): its matches so far are recorded."""
        if not history.shadow:
            return
        decoded = token_ids[history.shadow_at : history.shadow_at + len(history.shadow)]
        matched = 0
        while matched < len(decoded) and decoded[matched] == history.shadow[matched]:
            matched += 1
        if matched < len(decoded):  # missed
            self.observe(history, len(history.shadow), matched)
        elif matched == len(history.shadow) or final:
            self.observe(history, matched, matched)
        else:
            return
        history.shadow = []

    @staticmethod
    def start_shadow(history: DraftHistory, proposal: list[int], position: int) -> None:
        """Follow ``proposal`` (the tokens proposed for ``position`` on) while the sequence decodes without it."""
        if not history.shadow and proposal:
            history.shadow = list(proposal)
            history.shadow_at = position
