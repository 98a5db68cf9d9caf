"""Names written family name first with a comma ("SHINOHARA, Toshihide", "Stepanova, Igor"), and names in Latin
letters with a Japanese, Korean or Chinese honorific glued after them ("Vienna Đông様"): PERSON, the whole name."""

import pytest

from gateway.guardrails import PiiAnalyzer


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("2026. 06. 23. 11:33 - Iroda: beszéltem SHINOHARA, Toshihide kollégával", "SHINOHARA, Toshihide"),
        ('{"content": "<p>escalated on behalf of HORI, Saika</p>"}', "HORI, Saika"),
        ('{"content": "<p>reassigning to Stepanova, Igor for review</p>"}', "Stepanova, Igor"),
        ("per my call with AVINASH, Zabeen this morning", "AVINASH, Zabeen"),
        ("13:17\t営業部\tCARAIG, Yauさんから連絡がありました", "CARAIG, Yau"),
    ],
)
def test_a_family_name_first_with_a_comma_is_one_name(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert name in people(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "The office in Lima, Maria said, is closed.",  # a place, then a name: the place is no family name
        "Monday, June 3 works for us.",
        "NOTE, Please restart the service.",
        "We use NGINX, Redis and Postgres.",
    ],
)
def test_a_comma_between_other_words_is_no_inverted_name(analyzer: PiiAnalyzer, text: str) -> None:
    assert not any("," in name for name in people(analyzer, text))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("20:53\t自分\tVienna Đông様の件、確認お願いします", "Vienna Đông"),
        ("11:48\t営業部\tChithra Malallaさんから連絡がありました", "Chithra Malalla"),
        ("21:23\t営業部\t担当はD. S. Casallasさんです", "Casallas"),
    ],
)
def test_a_name_before_a_glued_honorific_ends_where_the_honorific_starts(
    analyzer: PiiAnalyzer, text: str, name: str
) -> None:
    found = people(analyzer, text)
    assert any(name in each and not any(char > "\u3000" for char in each) for each in found), found
