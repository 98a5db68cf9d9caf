"""Context besides the words before a value: the clause after it and its CSV column's header."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.guardrails import PiiAnalyzer, columns
from gateway.guardrails.columns import clause_after, column_name
from gateway.guardrails.open_tail import open_entity_start

TABLE = 'id,dob,latlng,status\n1,12-19-1960,"28.95,91.86",ok\n2,07-11-1986,"1.0,2.0",review\n'


def typed(analyzer: PiiAnalyzer, text: str, entity: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == entity and f.score >= 0.5]


def test_a_cell_is_named_by_its_blocks_header() -> None:
    assert column_name(TABLE, TABLE.index("12-19-1960")) == "dob"
    assert column_name(TABLE, TABLE.index("review")) == "status"
    assert column_name(TABLE, TABLE.index("1.0,2.0")) == "latlng"  # a quoted cell with a comma counts once
    assert column_name(TABLE, 0) is None  # the header itself
    assert column_name("born 12-19-1960", 6) is None


def test_a_row_of_another_width_or_a_blank_line_ends_the_block() -> None:
    text = "id,dob,status\n\n1,12-19-1960,ok"
    assert column_name(text, text.index("12-19")) is None
    text = "id,dob,status\n1,2\n3,12-19-1960,ok"
    assert column_name(text, text.index("12-19")) is None


def test_a_clause_ends_at_punctuation_or_the_limit() -> None:
    text = "536-22-1234, call me"
    assert clause_after(text, 11, 32) == 11
    assert clause_after("x is his birthday. Next", 1, 32) == len("x is his birthday")
    assert clause_after("x" + " word" * 20, 1, 10) == 11


@pytest.mark.parametrize(
    ("text", "entity", "value"),
    [
        ("12-19-1960 is his birthday", "DATE_OF_BIRTH", "12-19-1960"),
        ("Er wurde am 09.04.1965 geboren.", "DATE_OF_BIRTH", "09.04.1965"),
        ("26 December 1938 is his birthday", "DATE_OF_BIRTH", "26 December 1938"),
        (TABLE, "DATE_OF_BIRTH", "12-19-1960"),
        ("316481298 is the SSN on file.", "US_SSN", "316481298"),
        ("US-Sozialversicherungsnummer: 643074145", "US_SSN", "643074145"),
    ],
)
def test_context_after_the_value_or_in_its_column(analyzer: PiiAnalyzer, text: str, entity: str, value: str) -> None:
    assert value in typed(analyzer, text, entity)


@pytest.mark.parametrize(
    "text",
    ["invoice due 12-19-1960, happy birthday", "released 12-19-1960", "id,due,status\n1,12-19-1960,ok"],
)
def test_no_birth_context_in_the_clause_or_column(analyzer: PiiAnalyzer, text: str) -> None:
    assert typed(analyzer, text, "DATE_OF_BIRTH") == []


def test_a_context_word_past_a_comma_belongs_to_the_next_value(analyzer: PiiAnalyzer) -> None:
    text = "invoice 12-19-1960, birthday party at noon"
    assert typed(analyzer, text, "DATE_OF_BIRTH") == []
    text = "ssn 536-22-1234, call (415) 555-0132."
    ssn = [f for f in analyzer.analyze(text, ner_enabled=False) if f.start == 4]
    assert max(ssn, key=lambda f: f.score).entity_type == "US_SSN"


TOKEN = "foxZN6kQAUPk3qpFE0Nmbb2OKSlSfpF5HaWykzwClhvIy39I"


@pytest.mark.parametrize(
    "text",
    [f"{TOKEN} is the deploy token", f"{TOKEN} ist das Deploy-Token", f"{TOKEN} est le jeton de déploiement",
     f"id,access_token,status\n1,{TOKEN},ok", f"Credentials leaked: {TOKEN}"],
)
def test_random_tokens_named_after_or_by_their_column(analyzer: PiiAnalyzer, text: str) -> None:
    assert typed(analyzer, text, "SECRET") == [TOKEN]


def test_a_random_token_named_by_nothing_is_no_secret(analyzer: PiiAnalyzer) -> None:
    assert typed(analyzer, f"id,trace,status\n1,{TOKEN},ok", "SECRET") == []
    assert typed(analyzer, f"{TOKEN} is the trace id, keys rotate weekly", "SECRET") == []


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("xx 12-19-1960 is his birth", "12-19-1960 is his birth"),
        ("26 December 1938 is his bi", "26 December 1938 is his bi"),
        (f"ok {TOKEN} is the depl", f"{TOKEN} is the depl"),
        ("xx 12-19-1960, and then some", "some"),  # the clause ended: only the word being written
        ("send to Via Chittolini, 72", "Via Chittolini, 72"),  # an Italian street type, written first
        ("schick es an ul. Baczyńskiego 3", "ul. Baczyńskiego 3"),
        ("schick es an Eberthstr. 6", "Eberthstr. 6"),  # a German street type, glued on
    ],
)
def test_the_stream_holds_a_value_until_its_clause_ends(text: str, held: str) -> None:
    assert text[open_entity_start(text) :] == held


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Su número de identificación es 76491326687.", "76491326687"),  # a German IdNr in a Spanish sentence
        ("Son numéro d'identification : 94580730224", "94580730224"),  # a Brazilian CPF, bare
        ("926816543 is the identification number on file", "926816543"),  # a US ITIN, the context after it
    ],
)
def test_bare_national_ids_named_identification_numbers(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert value in typed(analyzer, text, "NATIONAL_ID")


def _cells_walked(line: str, delimiter: str) -> int:
    """The cells of a CSV line counted by walking them one by one, quoted ones whole."""
    count, position = 0, 0
    cell = re.compile(rf'"(?:[^"\n]|"")*"|[^{delimiter}\n]*')
    while True:
        match = cell.match(line, position)
        count += 1
        position = match.end() if match else position
        if position >= len(line) or line[position] != delimiter:
            return count
        position += 1


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet='ab 1,;"\t.', max_size=30), st.sampled_from(columns.DELIMITERS))
def test_a_lines_cells_counted_from_its_delimiters_are_those_walked(line: str, delimiter: str) -> None:
    """A line with no quote has one cell more than delimiters (counted at once); with quotes, cells are walked."""
    assert columns._cell_count(line, delimiter) == _cells_walked(line, delimiter)


def test_a_column_under_a_header_whatever_the_prose_lines_above_it() -> None:
    text = 'Note, see below.\nid,dob,city\n7,"1985-03-04",Oslo\n8,1990-01-02,"Bergen, NO"\nThanks, Ana'
    assert column_name(text, text.index("1990")) == "dob"
    assert column_name(text, text.index("Bergen")) == "city"
    assert column_name(text, text.index("1985")) == "dob"
    assert column_name(text, text.index("Ana")) is None  # prose after the block: another count of cells
    assert column_name(text, text.index(",dob")) is None  # a delimiter is in no cell
