"""Dates of birth in other languages' labels and shapes (Danish, Norwegian, Hungarian, Indonesian, Japanese), read
aloud in English, and the context rules that keep other dates out: a chat export's timestamps, names that open with
an Italian birth word."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.dates import is_date_month_word, locale_month_names


def dates_of_birth(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]


def ip_addresses(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == "IP_ADDRESS" and f.score >= 0.5]


def test_month_names_are_read_from_a_provider_that_keeps_them_inside_its_method() -> None:
    assert locale_month_names("hu_HU")[8] == "szeptember"
    assert locale_month_names("id_ID")[7] == "Agustus"
    assert locale_month_names("da_DK")[2] == "marts"


@pytest.mark.parametrize("word", ["június", "junius", "szept", "Agustus", "Desember", "marts", "März"])
def test_a_month_word_is_read_without_its_diacritics(word: str) -> None:
    assert is_date_month_word(word)


@pytest.mark.parametrize("word", ["Team", "Összeg", "Kód", "no"])
def test_other_words_are_no_month(word: str) -> None:
    assert not is_date_month_word(word)


@pytest.mark.parametrize(
    ("text", "value"),
    [("Nr.;Fødselsdato;Sagsnr.;total\n722;19.11.1983;INC2482682;3087", "19.11.1983"),
     ("22/08/2024, 18:59 - Me: født 18. oktober 1956", "18. oktober 1956"),
     ("Work: lahir 21-07-1962", "21-07-1962"),
     ("tanggal lahir 15 Agustus 1961", "15 Agustus 1961"),
     ("Nr.;Születési idő;Kód\n1;1988.08.10.;5", "1988.08.10."),
     ("Születési idő: 1952. szeptember 23.", "1952. szeptember 23."),
     ("birthDate: 1968. július 15.\nuidNumber: 29692", "1968. július 15."),
     ("born 1984.\njúnius 3.", "1984.\njúnius 3."),
     ("Syntymäaika: 6.5.1960", "6.5.1960"),
     ("生年月日: 1980年8月25日", "1980年8月25日")],
)
def test_a_date_beside_its_languages_birth_label_is_a_date_of_birth(analyzer: PiiAnalyzer, text: str,
                                                                   value: str) -> None:  # fmt: skip
    assert any(value.rstrip(".") in found for found in dates_of_birth(analyzer, text))


@pytest.mark.parametrize(
    "text",
    ["Oprettet: 31. januar 2020",  # "created" in Danish
     "Létrehozva: 2018. április 14.",  # "created" in Hungarian
     "注文日: 2025年11月15日",  # "order date" in Japanese
     "born 1984. Team 3 won"],  # a year-first shape whose word is no month
)
def test_other_dates_in_those_languages_are_none(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("caller: my date of birth is november eighth nineteen sixty nine\nagent: thanks",
      "november eighth nineteen sixty nine"),
     ("caller: dob the thirteenth of july nineteen ninety three\nagent: thank you",
      "the thirteenth of july nineteen ninety three"),
     ("caller: i was born july sixteenth nineteen eighty five", "july sixteenth nineteen eighty five"),
     ("born march the twenty-first, two thousand and one", "march the twenty-first, two thousand and one"),
     ("DOB: December thirty first nineteen oh five", "December thirty first nineteen oh five")],
)
def test_a_date_read_aloud_beside_a_birth_word_is_a_date_of_birth(analyzer: PiiAnalyzer, text: str,
                                                                  value: str) -> None:  # fmt: skip
    assert dates_of_birth(analyzer, text) == [value]


@pytest.mark.parametrize(
    "text",
    ["born to run: march forward nineteen times",
     "date of birth? may the fourth be with you",
     "born on the first of many days"],
)
def test_words_that_read_no_whole_date_or_no_birth_date_are_none(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == []


def test_a_spoken_date_without_a_birth_word_is_none(analyzer: PiiAnalyzer) -> None:
    assert dates_of_birth(analyzer, "agent: your next call is on july sixteenth two thousand and twenty") == []


@pytest.mark.parametrize("text", ["Natalie Rossi, 03/04/1985", "Natarajan 03/04/1985", "NATO summit 03/04/1985"])
def test_a_name_that_opens_with_an_italian_birth_word_is_no_birth_context(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == []


@pytest.mark.parametrize("text", ["nata il 03/04/1985", "nato a Roma il 3 marzo 1985"])
def test_the_italian_birth_phrases_are_birth_context(analyzer: PiiAnalyzer, text: str) -> None:
    assert len(dates_of_birth(analyzer, text)) == 1


def test_a_chat_exports_timestamp_under_a_message_about_a_birth_date_is_none(analyzer: PiiAnalyzer) -> None:
    text = ("[2024-08-10] Mum: date of birth 3 May 1970 per the passport\n"
            "27/10/2025, 14:22 - Mum: total 1,200\n")  # fmt: skip
    assert dates_of_birth(analyzer, text) == ["3 May 1970"]


@pytest.mark.parametrize("text", ["Date of birth:\n1985-03-04 (verified)", "Date of birth\n1985-03-04"])
def test_a_date_under_its_label_line_is_still_a_date_of_birth(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == ["1985-03-04"]


@pytest.mark.parametrize(
    ("text", "value"),
    [("X-LAST-IP:2400:59d5::14a6:609c:465:0\nX-NATIONAL-ID:Y2395072G", "2400:59d5::14a6:609c:465:0"),
     ("X-LAST-IP:fe80:5ad6:2884:bd49::\nTEL:+1", "fe80:5ad6:2884:bd49::"),
     ("IPv6:2400:be69:917f:5adf:748a:d3ab:6115:648a", "2400:be69:917f:5adf:748a:d3ab:6115:648a")],
)
def test_an_ipv6_address_right_after_a_field_names_colon_is_found(analyzer: PiiAnalyzer, text: str,
                                                                  value: str) -> None:  # fmt: skip
    assert ip_addresses(analyzer, text) == [value]


@pytest.mark.parametrize("text", ["Time:10:30:45", "MAC:00:1a:2b:3c:4d:5e", "std::vector<int> v; Foo::bar()"])
def test_a_field_names_colon_before_other_colon_runs_makes_no_address(analyzer: PiiAnalyzer, text: str) -> None:
    assert ip_addresses(analyzer, text) == []
