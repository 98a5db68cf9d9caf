"""Structured values glued to the words of scripts written without spaces (Japanese, Chinese, Thai, Korean
particles): found through the spaced view (``unspaced_scripts``), at their raw spans."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.unspaced_scripts import spaced_view


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
