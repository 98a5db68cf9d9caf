"""Values in URL query strings: decoded (``+`` for space, %XX UTF-8 escapes) for detection, reported at raw spans."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.normalize import reader_view
from gateway.guardrails.query_strings import _FORM, _FORM_EDGES, _QUERY, _queries, decoded_view


def found(analyzer: PiiAnalyzer, text: str) -> set[tuple[str, str]]:
    return {(f.entity_type, text[f.start : f.end]) for f in analyzer.analyze(text) if f.score >= 0.5}


def test_a_query_reads_decoded_and_maps_back_to_its_escapes() -> None:
    raw = "/c?who=D%C5%A9ng+B%C3%B9i&n=1"
    view = decoded_view(reader_view(raw))
    assert view.text == "/c?who= Dũng Bùi; n= 1"
    start = view.text.index("Dũng")
    assert raw[slice(*view.raw_span(start, start + len("Dũng Bùi")))] == "D%C5%A9ng+B%C3%B9i"
    tilde = view.text.index("ũ")
    assert view.raw_span(tilde, tilde + 1) == (raw.index("%C5"), raw.index("%A9") + 3)


def test_a_text_without_a_query_is_its_own_view() -> None:
    view = reader_view("a = b and c? d")
    assert decoded_view(view) is view
    assert decoded_view(reader_view("x=1 & y")).text == "x=1 & y"  # a pair and a stray "&": no query


def test_a_bad_escape_stays_as_written() -> None:
    assert decoded_view(reader_view("/p?q=100%zz+off&x=%E2")).text == "/p?q= 100%zz off; x= \ufffd"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("GET /lookup?login=macharia.boniface@lachmann.com", ("EMAIL_ADDRESS", "macharia.boniface@lachmann.com")),
        ("login=macharia.boniface%40lachmann.com&next=%2Fhome", ("EMAIL_ADDRESS", "macharia.boniface%40lachmann.com")),
        ("GET /api/tickets?assignee=Txemi+Matei&status=open HTTP/1.1", ("PERSON", "Txemi+Matei")),
        ("/crm/search?customer=D%C5%A9ng+B%C3%B9i&page=2", ("PERSON", "D%C5%A9ng+B%C3%B9i")),
        ("/verify?ssn=536+22+1234&step=2", ("US_SSN", "536+22+1234")),
        ("/pay?iban=DE89+3704+0044+0532+0130+00&amount=12", ("IBAN_CODE", "DE89+3704+0044+0532+0130+00")),
    ],
)
def test_values_in_a_query_are_found_at_their_raw_span(analyzer: PiiAnalyzer, text: str,
                                                          expected: tuple[str, str]) -> None:  # fmt: skip
    assert expected in found(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "/p?sku=AB-12345-XL&v=1.2.3&build=20260105",
        "/o?id=550e8400-e29b-41d4-a716-446655440000&etag=d41d8cd98f00b204e9800998ecf8427e",
        "/search?q=red+shoes&sort=price+asc&page=3",
        "/v2/items?part=PN-4471-22&qty=12&status=open",
    ],
)
def test_look_alikes_in_a_query_stay_clean(analyzer: PiiAnalyzer, text: str) -> None:
    assert found(analyzer, text) == set()


def plain_queries(text: str) -> list[tuple[int, int]]:
    """The rule ``_queries`` implements, written plainly (quadratic: each "&" looks back over the whole text and
    through every query found): a query after each "?", and a form from the last edge before each "&" outside one."""
    spans: list[tuple[int, int]] = []
    mark = text.find("?")
    while mark >= 0:
        query = _QUERY.match(text, mark + 1)
        if query is not None:
            spans.append(query.span())
        mark = text.find("?", query.end() if query is not None else mark + 1)
    amp = text.find("&")
    while amp >= 0:
        if not any(start <= amp < end for start, end in spans):
            edge = max(text.rfind(char, 0, amp) for char in _FORM_EDGES)
            form = _FORM.match(text, edge + 1)
            if form is not None and form.end() > amp:
                spans.append(form.span())
                amp = form.end()
        amp = text.find("&", amp + 1)
    return sorted(spans)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab1=&?( \n#%+", max_size=60))
def test_queries_are_found_as_the_plain_rule_finds_them(text: str) -> None:
    assert _queries(text) == plain_queries(text)


def test_thousands_of_query_marks_are_thousands_of_queries() -> None:
    # A prompt of nothing but marks (the shape that made the plain rule quadratic): each "?a=b" its own query, and a
    # run of "&" no form.
    queries = "?a=b&" * 4000
    assert _queries(queries) == [(5 * i + 1, 5 * i + 4) for i in range(4000)]
    assert _queries("x=1" + "&" * 4000) == []
