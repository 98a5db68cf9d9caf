"""PERSON in developer text by its slot: git blame's author, a greeting literal's name, a code literal that is wholly
a person's full name (``gateway.guardrails.code_names``)."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.code_names import CodeNameRecognizer, has_code_names


def found(text: str) -> list[str]:
    assert has_code_names(text)
    return [text[r.start : r.end] for r in CodeNameRecognizer().analyze(text, ["PERSON"])]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # git blame's default output: the author padded to a column, the ISO date, the line number
        ("e4f5a6b (K. Randles     2024-11-02 16:40:12 +0000 118)     return total", ["K. Randles"]),
        ("^1a2b3c4 src/tax.py (Anne van Rijnsbergen 2023-01-09 08:00:01 -0500  7) import os", ["Anne van Rijnsbergen"]),
        ("3f9c2e1a (Ихтиандър Мераков 2025-03-04 10:12:44 +0100 12) x = 1", ["Ихтиандър Мераков"]),
        # git blame --porcelain: the author header, then author-mail
        ("9d8e7f6 12 12 1\nauthor Tomasz Ó Briain\nauthor-mail <t@example.org>\nauthor-time 1700000000\n",
         ["Tomasz Ó Briain"]),
        # a greeting literal's name, and the literal that is wholly that name
        ('def test_greets_by_name():\n    assert greet("André") == "Hi André!"', ["André", "André"]),
        ("msg = 'Dear Sara Bischof,'", ["Sara Bischof"]),
        # a literal wholly a known first and family name, or a middle initial between two capitalised words
        ('make_customer("Sara Bischof", "sara@example.org", "+64 21 109 4135")', ["Sara Bischof"]),
        ('assert format_name(user) == "Advika C. Karnik"', ["Advika C. Karnik"]),
        ('owners = ["Kamil Nowak", "ops"]', ["Kamil Nowak"]),
        # a log message's noun for a person before the quoted name; an exception's message
        ('app[981]: user "Sayuri Suzuki" updated shipping address', ["Sayuri Suzuki"]),
        ("com.acme.crm.CustomerNotFoundException: Customer 'Ihtiandar Merakov' not found", ["Ihtiandar Merakov"]),
        ("Traceback (most recent call last):\n  File \"views.py\", line 88\nKeyError: 'Tanía Ríósdóttir'",
         ["Tanía Ríósdóttir"]),
    ],
)  # fmt: skip
def test_people_in_developer_slots(text: str, expected: list[str]) -> None:
    assert sorted(found(text)) == sorted(expected)


@pytest.mark.parametrize(
    "text",
    [
        "e4f5a6b (jkowalski 2024-11-02 16:40:12 +0000 118)     return total",  # a handle
        "e4f5a6b (dependabot[bot] 2024-11-02 16:40:12 +0000 3) x",  # a bot
        "e4f5a6b (GitHub Actions 2024-11-02 16:40:12 +0000 3) x",  # a service, in PascalCase
        "e4f5a6b (Release Bot 2024-11-02 16:40:12 +0000 3) x",  # English words
        'print("Hello World!")',
        'subject = f"Dear Customer, your order {order_id}"',
        'header("Welcome back Team!")',
        'features = ["Apollo Sync", "Smart Routing", "Sales Cloud"]',
        'register("Atlas Search", region="EU")',
        '{"birthplace": "Vila Andrade", "status": "closed"}',  # a key's value: the key reads it
        'company = "Morgan Stanley"',
        'He said "Morgan Stanley" was the lead bank.',  # prose quotes: no code position
        'raise ValueError("No shipping rates for Peru")',
        "class UserGreeter: pass  # see 'HttpClientFactory'",
        'Customer "Sales Cloud" plan renewed',  # every word English
        "KeyError: 'Content Type'",
        'user "Admin User" logged in',
    ],
)
def test_things_in_the_same_slots(text: str) -> None:
    assert found(text) == []


def test_the_analyzer_reports_them() -> None:
    text = 'def test_greets_by_name():\n    assert greet("Camilo") == "Hi Camilo!"'
    people = [text[f.start : f.end] for f in PiiAnalyzer().analyze(text) if f.entity_type == "PERSON"]
    assert people.count("Camilo") == 2
