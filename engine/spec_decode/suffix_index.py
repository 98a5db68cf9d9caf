"""Per-tenant suffix drafts: what a tenant's earlier answers wrote after the text the current sequence just wrote.

Agent loops repeat themselves across requests: the same tool-call scaffolding, the same argument names, the same
boilerplate answers. Prompt lookup (``engine.spec_decode.ngram_proposer``) only sees the current sequence; this
index holds the outputs of the tenant's finished requests (SuffixDecoding, Oliaro et al. 2024: a global store of
previous responses beside the per-request one), so a request can draft what the tenant's earlier requests wrote
after the same words.

For each ``n`` of ``min_n..max_n`` the index counts, per n-gram of those outputs, the tokens that followed it. A
proposal walks greedily: the longest n-gram ending the context (and the drafts so far) that the index holds, its
most frequent continuation, and so on for up to ``k`` tokens, while the product of the continuations' frequencies
(the chance the whole draft so far is what the tenant usually writes) stays at least ``min_probability``.

Isolation: one index per isolation domain (the request's ``cache_salt``, the HMAC the gateway derives per tenant,
else its ``tenant``; requests with neither, i.e. offline use, share the anonymous domain). A proposal reads only
its own domain's index, so one tenant's text is never drafted into another tenant's request.

Memory is bounded: each domain keeps its documents (the outputs, each with the few prompt tokens before it so the
answer's start can be matched) oldest first and evicts the oldest past ``tenant_tokens``; past ``total_tokens``
over all domains, the least recently used domain gives up its oldest document. Eviction subtracts the document's
counts, so the index always counts exactly the documents it keeps. N-grams are keyed by their hash (a collision
only costs a rejected draft, and only within one domain).
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Hashable


class TenantSuffixIndex:
    """One domain's documents and the continuation counts of their n-grams."""

    __slots__ = ("counts", "docs", "max_n", "min_n", "num_tokens")

    def __init__(self, min_n: int, max_n: int) -> None:
        self.min_n, self.max_n = min_n, max_n
        self.docs: deque[list[int]] = deque()
        self.num_tokens = 0
        self.counts: dict[int, dict[int, int]] = {}  # hash of an n-gram -> {next token: occurrences}

    def _update(self, doc: list[int], delta: int) -> None:
        counts = self.counts
        for stop in range(self.min_n, len(doc)):
            following = doc[stop]
            for n in range(self.min_n, min(self.max_n, stop) + 1):
                key = hash(tuple(doc[stop - n : stop]))
                nexts = counts.get(key)
                if nexts is None:
                    nexts = counts[key] = {}
                count = nexts.get(following, 0) + delta
                if count > 0:
                    nexts[following] = count
                else:
                    del nexts[following]
                    if not nexts:
                        del counts[key]

    def add(self, doc: list[int]) -> None:
        self.docs.append(doc)
        self.num_tokens += len(doc)
        self._update(doc, 1)

    def evict_oldest(self) -> int:
        """Forget the oldest document; the number of tokens freed."""
        doc = self.docs.popleft()
        self.num_tokens -= len(doc)
        self._update(doc, -1)
        return len(doc)

    def match_length(self, context: list[int]) -> int:
        """The longest n (``min_n..max_n``) whose n-gram ending ``context`` has a continuation here; 0 if none."""
        for n in range(min(self.max_n, len(context)), self.min_n - 1, -1):
            if hash(tuple(context[len(context) - n :])) in self.counts:
                return n
        return 0

    def propose(self, context: list[int], k: int, min_probability: float) -> list[int]:
        """Up to ``k`` tokens the domain's documents most often wrote after ``context``'s last tokens."""
        tail = context[-self.max_n :]
        drafts: list[int] = []
        probability = 1.0
        while len(drafts) < k:
            n = self.match_length(tail)
            if not n:
                break
            nexts = self.counts[hash(tuple(tail[len(tail) - n :]))]
            token, count = max(nexts.items(), key=lambda item: item[1])
            probability *= count / sum(nexts.values())
            if probability < min_probability:
                break
            drafts.append(token)
            tail = [*tail[1 - self.max_n :], token] if self.max_n > 1 else [token]
        return drafts


class SuffixStore:
    """Every domain's index, bounded per domain and in total."""

    def __init__(self, *, min_n: int, max_n: int, tenant_tokens: int, total_tokens: int,
                 prompt_context: int | None = None) -> None:
        if not 1 <= min_n <= max_n:
            raise ValueError("the suffix index needs 1 <= min_n <= max_n")
        if not 0 < tenant_tokens <= total_tokens:
            raise ValueError("the suffix index needs 0 < tenant_tokens <= total_tokens")
        self.min_n, self.max_n = min_n, max_n
        self.tenant_tokens = tenant_tokens
        self.total_tokens = total_tokens
        # Prompt tokens kept before each output: enough for an n-gram that ends at the answer's first token.
        self.prompt_context = max_n if prompt_context is None else prompt_context
        self.num_tokens = 0
        self._domains: OrderedDict[Hashable, TenantSuffixIndex] = OrderedDict()  # least recently used first

    def domain(self, key: Hashable) -> TenantSuffixIndex | None:
        return self._domains.get(key)

    @property
    def num_domains(self) -> int:
        return len(self._domains)

    def add(self, key: Hashable, prompt: list[int], output: list[int]) -> None:
        """Index a finished request's output (with the end of its prompt) under its domain."""
        if not output:
            return
        doc = [*prompt[len(prompt) - min(self.prompt_context, len(prompt)) :], *output][-self.tenant_tokens :]
        index = self._domains.get(key)
        if index is None:
            index = self._domains[key] = TenantSuffixIndex(self.min_n, self.max_n)
        self._domains.move_to_end(key)
        index.add(doc)
        self.num_tokens += len(doc)
        while index.num_tokens > self.tenant_tokens:
            self.num_tokens -= index.evict_oldest()
        while self.num_tokens > self.total_tokens:
            oldest_key, oldest = next(iter(self._domains.items()))
            self.num_tokens -= oldest.evict_oldest()
            if not oldest.docs:
                del self._domains[oldest_key]

    def propose(self, key: Hashable, context: list[int], k: int, min_probability: float) -> tuple[list[int], int]:
        """Drafts from ``key``'s own domain only, and the length of the n-gram they continue (0: no match)."""
        index = self._domains.get(key)
        if index is None or k <= 0:
            return [], 0
        self._domains.move_to_end(key)
        n = index.match_length(context[-self.max_n :])
        if not n:
            return [], 0
        return index.propose(context, k, min_probability), n
