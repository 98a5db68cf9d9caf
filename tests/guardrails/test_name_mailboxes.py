"""The display name of a mailbox in an e-mail's From, To, Cc, Reply-To or Sender header (RFC 5322), quoted, bare or
an RFC 2047 encoded word, is a person's name when it reads as one; a service or a team there is none."""

from __future__ import annotations

import pytest

from gateway.guardrails.record_names import mailbox_names


def names(text: str) -> list[str]:
    return [text[start:end] for start, end in mailbox_names(text)]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('From: "Nayfa Sinema-Kipkorir" <no-reply@forms.acme.example>\n', "Nayfa Sinema-Kipkorir"),
        ("To: Ana Lima <ana@example.org>, Bo <bo@example.org>\n", "Ana Lima"),
        ("From: =?UTF-8?Q?=D0=A2=D0=B0=D0=BC=D0=B0=D1=80=D0=B0_=D0=9D=D0=B8=D0=BA=D0=B8=D1=84=D0=BE=D1=80=D0=BE=D0=B2"
         "=D0=BD=D0=B0?= <x@example.org>\n",
         "=?UTF-8?Q?=D0=A2=D0=B0=D0=BC=D0=B0=D1=80=D0=B0_=D0=9D=D0=B8=D0=BA=D0=B8=D1=84=D0=BE=D1=80=D0=BE=D0=B2"
         "=D0=BD=D0=B0?="),  # Cyrillic, Q-encoded
        ("Reply-To: =?UTF-8?B?2YjYp9i12YQg2KfZhNiz2YPYp9mD2YrZhtmK?= <x@example.org>\n",
         "=?UTF-8?B?2YjYp9i12YQg2KfZhNiz2YPYp9mD2YrZhtmK?="),  # Arabic, B-encoded
        ("From: Anna <anna@example.org>\n", "Anna"),  # one word: a known name
    ],
)
def test_a_mailbox_display_name_is_a_person(text: str, name: str) -> None:
    assert name in names(text)


@pytest.mark.parametrize(
    "text",
    [
        "From: GitHub <noreply@github.com>\n",
        'To: Acme Billing <billing@acme.example>, "Customer Care" <care@acme.example>\n',
        "From: ana@example.org\n",
        "Subject: From: Ana Lima <ana@example.org>\n",  # no header line of its own
        "From: =?UTF-8?Q?broken?= <x@example.org>\n",
    ],
)
def test_no_person_where_no_name_is_displayed(text: str) -> None:
    assert names(text) == []
