"""Faker instances for one dev-side corpus, one per locale, each seeded from the corpus's name, its seed and the
locale: a corpus draws the same values however many corpora the process generated before it."""

from __future__ import annotations

from faker import Faker


class SeededFakers:
    def __init__(self, name: str, seed: int) -> None:
        self.name, self.seed = name, seed
        self._fakers: dict[str, Faker] = {}

    def restart(self, seed: int) -> None:
        """Fresh instances, seeded from `seed`, for the corpus about to be generated."""
        self.seed = seed
        self._fakers.clear()

    def __call__(self, locale: str) -> Faker:
        if locale not in self._fakers:
            self._fakers[locale] = Faker(locale)
            self._fakers[locale].seed_instance(f"{self.name}:{self.seed}:{locale}")
        return self._fakers[locale]
