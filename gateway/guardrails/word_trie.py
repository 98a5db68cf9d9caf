"""A set of words as one regex alternation shaped as a trie: a position that starts none of them fails on its first
character, not after trying each word in turn (thousands of street names or types cost one branch per character)."""

from __future__ import annotations

import re


def alternation(words: frozenset[str], fold: bool = True) -> str:
    """One regex for the words; longer words win over their prefixes ("Streets" over "Street"). Folded, the words are
    lower case (match the regex ignoring case) and their trailing dot is left to the caller ("ul." matches "ul");
    unfolded, they are matched as written."""
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for char in word.rstrip(".").lower() if fold else word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _trie_regex(trie)


def _trie_regex(node: dict[str, dict]) -> str:
    branches = [re.escape(char) + _trie_regex(child) for char, child in sorted(node.items()) if char]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if "" in node:  # a word ends here; a longer one goes on
        return f"(?:{body})?" if len(branches) == 1 else body + "?"
    return body
