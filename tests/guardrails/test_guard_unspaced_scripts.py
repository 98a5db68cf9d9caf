"""Structured values glued to the words of scripts written without spaces (Japanese, Chinese, Thai, Korean
particles): found through the spaced view (``unspaced_scripts``), at their raw spans."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.recognizers import build_detectors
from gateway.guardrails.unspaced_scripts import glued_findings, spaced_view

DETECTORS = build_detectors()


def found(analyzer: PiiAnalyzer, text: str) -> list[tuple[str, str]]:
    return [(text[f.start : f.end], f.entity_type) for f in analyzer.analyze(text) if f.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "value", "entity"),
    [
        ("メールはaisha_cheruiyot34@moraes.com.brに送ってください", "aisha_cheruiyot34@moraes.com.br", "EMAIL_ADDRESS"),
        ("21:04\t自分\tSSNは315-57-9538とのことです", "315-57-9538", "US_SSN"),
        ("サーバー180.182.198.13が落ちてます", "180.182.198.13", "IP_ADDRESS"),
        ("fe80:7001:f137:0000:0000:0000:5925:ced4からのアクセスが多いです", "fe80:7001:f137:0000:0000:0000:5925:ced4",
         "IP_ADDRESS"),
        ("カード番号4691-6426-7328-6626で決済済みです", "4691-6426-7328-6626", "CREDIT_CARD"),
        ("08:10\t総務\t電話番号は+39 02 1230 3172です", "+39 02 1230 3172", "PHONE_NUMBER"),
        ("IBANはDE89370400440532013000です", "DE89370400440532013000", "IBAN_CODE"),
        ("客户邮箱是li.wei@example.cn请确认", "li.wei@example.cn", "EMAIL_ADDRESS"),
        ("번호는+82 10-1234-5678입니다", "+82 10-1234-5678", "PHONE_NUMBER"),
        ("โทร+66 81 234 5678ครับ", "+66 81 234 5678", "PHONE_NUMBER"),
    ],
)
def test_a_value_glued_to_unspaced_words_is_found(analyzer: PiiAnalyzer, text: str, value: str, entity: str) -> None:
    assert (value, entity) in found(analyzer, text)


@pytest.mark.parametrize(
    "text",
    ["第12345678号の件です",
     "2026/11/21(土)\n20:50\t総務\t在庫1234567890123です",
     "バージョン3.11.9をデプロイしました"],
)
def test_numbers_between_unspaced_words_stay_numbers(analyzer: PiiAnalyzer, text: str) -> None:
    assert found(analyzer, text) == []


def test_the_spaced_view_keeps_every_position() -> None:
    text = "SSNは315-57-9538と𠮷野"
    view = spaced_view(text)
    assert view is not None and len(view) == len(text)
    assert view == "SSN 315-57-9538   "
    assert spaced_view("plain ASCII 315-57-9538") is None
    assert spaced_view("Ünïcode without those scripts") is None


# Values set apart from the unspaced words by a space or the script's own punctuation (and sentences ended with an
# ASCII full stop): the first pass finds them, the spaced view is not read.
APART = [("サーバー 180.182.198.13 が落ちてます。", "180.182.198.13", "IP_ADDRESS"),
         ("連絡先は「aisha_cheruiyot34@moraes.com.br」です。", "aisha_cheruiyot34@moraes.com.br", "EMAIL_ADDRESS"),
         ("서버 점검은 오늘 밤에 진행됩니다. 문의 +82 10-1234-5678", "+82 10-1234-5678", "PHONE_NUMBER")]


@pytest.mark.parametrize(("text", "value", "entity"), APART)
def test_a_value_set_apart_from_unspaced_words_is_found(analyzer: PiiAnalyzer, text: str, value: str,
                                                        entity: str) -> None:  # fmt: skip
    assert (value, entity) in found(analyzer, text)


@pytest.mark.parametrize(("text", "value", "entity"), APART)
def test_text_where_no_value_touches_unspaced_letters_is_not_read_again(text: str, value: str, entity: str) -> None:
    """Even with no finding from the first pass to leave out, the spaced view is not read: nothing is glued."""
    assert glued_findings(text, [], DETECTORS) == []


def test_a_glued_value_is_read_from_the_spaced_view() -> None:
    text = "SSNは315-57-9538とのことです"
    assert [(text[f.start : f.end], f.entity_type) for f in glued_findings(text, [], DETECTORS) if f.score >= 0.5] == [
        ("315-57-9538", "US_SSN")
    ]

