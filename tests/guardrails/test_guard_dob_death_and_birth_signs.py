"""The day of a death is no date of birth ("passed away on June 24, 2024, aged 55", "† 25. Mai 2026"), the
genealogical birth sign "*" before a date makes it one ("* 4. März 1941"), and "(b. " lets a two-digit year be read."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.dates import after_birth_sign, follows_death_cue, has_birth_word


def dates_of_birth(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("SCHEUERMANN, Joseph, passed away peacefully on June 24, 2024, aged 55.", []),  # the age at death
        (
            "Our dear father, passed away peacefully on May 20, 2019, aged 85. She was born 28 April 1954.",
            ["28 April 1954"],
        ),
        ("He was born in Berlin and died on 3 May 2020.", []),  # the death cue is the nearer
        ("Geboren am 3.4.1941 in Graz, gestorben am 5.6.2020", ["3.4.1941"]),
        ("Mme Roux, décédée le 3 mai 2020 à Lyon, née le 4 mai 1941", ["4 mai 1941"]),
        (
            "Fecha de nacimiento: 4 de mayo de 1941. Falleció el 3 de mayo de 2020, a los 79 años.",
            ["4 de mayo de 1941"],
        ),
        ("DOB 3 May 1961, d. 4 May 2021", ["3 May 1961"]),
        # A birth word nearer the date than the death cue: the date is the birth's.
        ("He died in the town where he was born on 3 May 1941.", ["3 May 1941"]),
    ],
)
def test_the_day_of_a_death_is_no_date_of_birth(analyzer: PiiAnalyzer, text: str, values: list[str]) -> None:
    assert dates_of_birth(analyzer, text) == values


@pytest.mark.parametrize(
    ("text", "value", "death"),
    [
        ("passed away peacefully on June 24, 2024", "June 24, 2024", True),
        ("* 4.3.1941 † 2.5.2020", "2.5.2020", True),
        ("* 4.3.1941 + 2.5.2020", "2.5.2020", True),  # the plus sign plain text writes for the dagger
        ("Sterbedatum: 3.5.2020", "3.5.2020", True),
        ("died in Rome. Born 3 May 1941", "3 May 1941", False),  # a birth word between
        ("He died last year. 03/05/1941 is on file", "03/05/1941", False),  # a sentence end between
        ("Call +49 04.03.2019 ok", "04.03.2019", False),
        ("Mortgage signed 3 May 2020", "3 May 2020", False),  # "mort" inside a word
        ("Ph.D. 3 May 1970", "3 May 1970", False),  # "D." inside an abbreviation
    ],
)
def test_follows_death_cue(text: str, value: str, death: bool) -> None:
    assert follows_death_cue(text, text.index(value)) is death


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Patrick Weber\n* 22.04.1937   † 25. Mai 2026", "22.04.1937"),
        ("Wir trauern um\n\n* 17. Dezember 1946   † 11. Mai 2026\n\nIn stiller Trauer", "17. Dezember 1946"),
        ("Hans Weber (* 4. März 1941 in Berlin; † 2. Mai 2020 in Wien)", "4. März 1941"),
        ("† 22. September 2020. * 18.09.1941. Spenden auf das Konto", "18.09.1941"),
        ("Lena Maier, *04.03.1941", "04.03.1941"),
    ],
)
def test_the_birth_sign_before_a_date_makes_it_a_date_of_birth(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert dates_of_birth(analyzer, text) == [value]


@pytest.mark.parametrize(
    "text",
    [
        "* 3 items shipped on 04.03.2019",  # the star before no date
        "Price* 04.03.2019 applies",  # a footnote's star after a word
        "* 2024-01-05 release notes",  # a Markdown bullet: words follow the date
        "Changes:\n* 2019-01-05. Fixed bug\n* 2019-02-01. Added X",  # bullets of a list
        "* 2019-01-05\n* 2019-02-01\n",
        "**04.03.2019**",  # bold
        "*04.03.2019*",  # italics
        "Release planned:\n* 04.03.2099\n",  # a date to come
    ],  # a date to come
)
def test_a_star_that_is_no_birth_sign(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == []


def test_after_birth_sign() -> None:
    text = "* 4.3.1941 † 2.5.2020"
    assert after_birth_sign(text, 2, 10)
    assert not after_birth_sign(text, text.index("2.5."), len(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Jane Doe (b. 24/10/26).", "24/10/26"),
        ("Jane Doe (b. 07/13/32) retired.", "07/13/32"),
        ("Jane Doe (b. 3/4/41)", "3/4/41"),
    ],
)
def test_b_in_brackets_reads_a_two_digit_year(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert dates_of_birth(analyzer, text) == [value]


def test_b_in_brackets_is_a_birth_word_and_b_alone_is_not() -> None:
    assert has_birth_word("Jane Doe (b. 24/10/26)")
    assert not has_birth_word("see the web. 24/10/26 update")
    assert not has_birth_word("Plan b. 24/10/26")
