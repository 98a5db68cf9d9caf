"""The people the corpus names: Faker's per-locale first and last name providers, a source the detector is not built
from (Warden's own name list is a names-dataset snapshot), so PERSON recall on the corpus says how the detector
does on names it has never seen.

Locales are those whose names Faker writes in a cased script (Latin with any diacritics, Greek, Cyrillic), plus the
romanised names of Japanese and Chinese. Names in scripts without case (Arabic, Hebrew, Devanagari, Thai, Han,
Hangul...) are not in the corpus: nothing marks where such a name starts, and the detector has no rule for them.
A name's gender is drawn first, so that gendered surnames agree with it (Nowak/Kowalska, Иванов/Иванова).
"""

from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass

from faker import Faker

from bench.pii_corpus.partition import split_of

LATIN_LOCALES = (
    "en_US", "en_GB", "en_IE", "en_IN", "en_NZ", "en_KE", "en_NG", "en_PK", "en_TH", "fr_FR", "fr_BE", "fr_CA",
    "fr_CH", "fr_DZ", "es_ES", "es_MX", "es_AR", "es_CO", "es_CA", "de_DE", "de_AT", "de_CH", "it_IT", "pt_BR",
    "pt_PT", "nl_NL", "nl_BE", "pl_PL", "cs_CZ", "sk_SK", "sl_SI", "hr_HR", "hu_HU", "ro_RO", "da_DK", "sv_SE",
    "no_NO", "fi_FI", "et_EE", "lv_LV", "lt_LT", "is_IS", "tr_TR", "az_AZ", "id_ID", "ga_IE", "yo_NG", "ha_NG",
    "ig_NG", "tw_GH", "zu_ZA", "sw", "uz_UZ",
)  # fmt: skip
OTHER_CASED_LOCALES = ("el_GR", "ru_RU", "uk_UA", "bg_BG", "mk_MK")
ROMANISED_LOCALES = ("ja_JP", "zh_CN")  # Faker's first_romanized_name / last_romanized_name
PERSON_LOCALES = LATIN_LOCALES + OTHER_CASED_LOCALES + ROMANISED_LOCALES
LATIN_SCRIPT_LOCALES = LATIN_LOCALES + ROMANISED_LOCALES  # what an e-mail address is made of
# Locales whose double surnames are two words ("García López"); elsewhere they are hyphenated ("Müller-Lüdenscheidt").
SPACED_DOUBLE_SURNAME = ("es_", "pt_")
# A name part: letters of a cased script, joined by single apostrophes, hyphens or spaces ("O'Neill", "Jean-Pierre",
# "van Hagen", "Maria Helena"). Faker's data holds a few damaged entries ("N˜zamett˜n"); they fail it.
_PART = re.compile(r"^[^\W\d_]+(?:['’\- ][^\W\d_]+)*$")


def is_written_name(name: str) -> bool:
    """A name as running text writes it: letters of a cased script (below U+0530), capitalised somewhere."""
    name = unicodedata.normalize("NFC", name)
    return (len(name) >= 2 and bool(_PART.match(name)) and all(ord(char) < 0x0530 for char in name)
            and any(char.isupper() for char in name) and not name.isupper())  # fmt: skip


def split_words(name: str) -> list[str]:
    """The words of a name that decide its split: capitalised words of three letters or more (particles such as
    "van", "de", "da" and initials are shared by many names and decide nothing)."""
    return [word for word in re.split(r"[ \-]", name) if len(word) > 2 and word[0].isupper()]


def in_split(name: str, split: str) -> bool:
    words = split_words(name)
    return bool(words) and all(split_of(word) == split for word in words)


@dataclass
class NameSource:
    """One split's first and last names, drawn from Faker's locales."""

    split: str
    fakers: dict[str, Faker]

    @classmethod
    def build(cls, split: str, rng: random.Random) -> NameSource:
        fakers = {}
        for locale in PERSON_LOCALES:
            fakers[locale] = Faker(locale)
            fakers[locale].seed_instance(rng.getrandbits(32))
        return cls(split, fakers)

    def _draw(self, make) -> str:
        for _ in range(10_000):
            name = " ".join(make().split())
            if is_written_name(name) and in_split(name, self.split):
                return name
        raise RuntimeError("no name of the split after 10000 draws")

    def person(self, rng: random.Random, locales: tuple[str, ...] = PERSON_LOCALES) -> tuple[str, str, str, str]:
        """(locale, first name, last name, a second last name) of one of `locales`, of one gender."""
        locale = rng.choice(locales)
        fake = self.fakers[locale]
        if locale in ROMANISED_LOCALES:
            first, last = fake.first_romanized_name, fake.last_romanized_name
        elif rng.random() < 0.5:
            first, last = fake.first_name_female, fake.last_name_female
        else:
            first, last = fake.first_name_male, fake.last_name_male
        return locale, self._draw(first), self._draw(last), self._draw(last)
