"""PERSON and LOCATION as the values of fields whose keys name a person or a place."""

import pytest

from gateway.guardrails.fields import FieldValueRecognizer


def found(text: str) -> list[tuple[str, str]]:
    return [(r.entity_type, text[r.start : r.end]) for r in FieldValueRecognizer().analyze(text, [])]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"full_name": "Ngozi Okonjo", "status": "ok"}', [("PERSON", "Ngozi Okonjo")]),
        ("deploy approved_by='Søren Kierkegaard' ticket=88", [("PERSON", "Søren Kierkegaard")]),
        ("2026-01-02T03:04:05Z INFO updated owner=Mateusz Żółw status=200", [("PERSON", "Mateusz Żółw")]),
        ("customer:\n  name: María de la Cruz\n  tier: gold\n", [("PERSON", "María de la Cruz")]),
        ('birthplace: "Tromsø"', [("LOCATION", "Tromsø")]),
        ("city=Ushuaia;zip=9410", [("LOCATION", "Ushuaia")]),
        ('{"user": {"first_name": "Aiko", "city": "Sapporo"}}', [("PERSON", "Aiko"), ("LOCATION", "Sapporo")]),
    ],
)
def test_field_values_by_their_key(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        'file_name: "Quarterly Report"',  # a thing's name
        "hostname: Gateway",
        'service_name = "Billing"',
        '{"name": null}',
        '{"name": "unknown"}',
        'name: "build 42"',  # digits: no name
        "display_name: ADMIN",  # a shouted constant
        'city: "new york pizza place"',  # several lower-case words
        "status: pending",
    ],
)
def test_values_that_are_no_names(text: str) -> None:
    assert found(text) == []


def test_csv_cells_under_person_and_place_columns() -> None:
    text = 'id,customer_name,plan,city\n17,Oluwaseun Adeyemi,pro,Ibadan\n18,"Inés Ortega",free,Cuenca\n\nTotal: 2'
    assert found(text) == [("PERSON", "Oluwaseun Adeyemi"), ("LOCATION", "Ibadan"), ("PERSON", "Inés Ortega"),
                           ("LOCATION", "Cuenca")]


def test_csv_without_such_columns_or_with_ragged_rows() -> None:
    assert found("sku,qty,price\nAB-1,2,9.99\n") == []
    assert found("id,full_name,city\n1,Ana Lima\n") == []  # a row with too few cells ends the block


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('    hometown := "Zenica"\n', [("LOCATION", "Zenica")]),  # Go's short variable declaration
        ('{"country": "Saint Vincent and the Grenadines"}', [("LOCATION", "Saint Vincent and the Grenadines")]),
        ('origin="Bergen op Zoom" status=200', [("LOCATION", "Bergen op Zoom")]),
        ("id,birthplace,status\n7,Trinidad and Tobago,ok\n", [("LOCATION", "Trinidad and Tobago")]),
    ],
)
def test_place_values_with_connectors_and_go_assignments(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


def test_a_connector_does_not_make_two_people_one_name() -> None:
    assert found('{"assignee": "Tom and Jerry"}') == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('log full_name="Zizo, Manare" status=400', [("PERSON", "Zizo, Manare")]),  # "Last, First" in a field
        ('id,full_name,status\n5879,"Anjum, Gull",review\n', [("PERSON", "Anjum, Gull")]),  # and in a CSV cell
    ],
)
def test_a_person_written_last_name_first(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        'full_name="Zizo, manager on duty"',  # lower-case words after the comma: no first name
        'city="Paris, France"',  # a place field keeps its own rule: "Last, First" is a person's shape only
        'full_name="Anjum, Gull, Khan"',  # three parts: a list, not one person
    ],
)
def test_comma_values_that_are_no_last_name_first(text: str) -> None:
    assert not [value for kind, value in found(text) if "," in value]


def test_a_printed_forms_dotted_leaders_reach_the_field_rule() -> None:
    # No ':', '=' or other separator: the field rule's pre-filter must still let a form's dotted leaders through.
    from gateway.guardrails import PiiAnalyzer

    text = "APPLICANT DETAILS\nFULL NAME ........ Quorin Vaselt\nHOME TOWN ....... Brimwater Hollow\n"
    found = {(f.entity_type, text[f.start:f.end]) for f in PiiAnalyzer().analyze(text, ner_enabled=False)}
    assert found == {("PERSON", "Quorin Vaselt"), ("LOCATION", "Brimwater Hollow")}


@pytest.mark.parametrize(
    "text",
    [
        "Assigned to: Tier 3 Escalations",
        "Reporter: Customer Success",
        "Owner: Accounts Payable",
        "assignee=Quality Assurance",
        # a chat line whose speaker is "customer": the words after the label are a sentence, not a name
        "[10:02] customer: Passport number: X1234567",
        "[10:03] customer: Our invoice: INV-2024-118",
        "[10:05] customer: parcel #99120 never came",
        "[10:06] customer: Ticket 4471 reopened",
    ],
)
def test_ordinary_words_under_a_roles_key_are_no_person(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Reporter: Grace Baker", [("PERSON", "Grace Baker")]),  # ordinary words, but a first name opens them
        ("Owner: Ms. Ware", [("PERSON", "Ms. Ware")]),  # a title makes a name of the word after it
        ("Assigned to: Arash Ahmady", [("PERSON", "Arash Ahmady")]),  # a word no dictionary holds
        ("| # | Full Name |\n|---|---|\n| 1 | Flint Fable |", [("PERSON", "Flint Fable")]),  # a name's key: a name
    ],
)
def test_names_of_ordinary_words_that_stay_people(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("On call: Ifeoma Nwosu", [("PERSON", "Ifeoma Nwosu")]),
        ("Next of kin: Dario Venturi\nRelation: brother", [("PERSON", "Dario Venturi")]),
        ("| # | Contact Person |\n|---|---|\n| 1 | Teodora Vlasić |", [("PERSON", "Teodora Vlasić")]),
        ("CONTACT PERSON ........ TEODORA VLASIC\n", [("PERSON", "TEODORA VLASIC")]),
    ],
)
def test_a_roles_key_written_with_spaces(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        '<form>\n  <input id="a1" name="passport" type="text">\n  <select name="Surname"></select>\n</form>',
        '<textarea\n    name="Notes" rows="3"></textarea>',
        "metadata:\n  name: payments-gateway\n  labels:\n    app: payments-gateway\n",
        "containers:\n  - name: scheduler\n    image: registry.example/scheduler:1.4\n",
        '{"name": "billingAddress", "type": "string"}',
        "owner=teamPlatform status=200",
    ],
)
def test_a_controls_or_a_resources_identifier_is_no_person(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<author name="Efua Mensah" role="editor"/>', [("PERSON", "Efua Mensah")]),  # an XML element's attribute
        ("name: grace\n", [("PERSON", "grace")]),  # lower case, but names-dataset's name
        ("name: Sean McDonald\n", [("PERSON", "Sean McDonald")]),  # capitals inside a name opened in capitals
    ],
)
def test_names_beside_identifiers_stay_people(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # SQL: an UPDATE's SET and a WHERE clause, the column's own name key
        ("UPDATE applicants SET applicant_name = 'Sawako Nishida' WHERE id = 67076;", "Sawako Nishida"),
        ("SELECT id FROM payees WHERE holder_name = 'GIGA, Meriko' LIMIT 1;", "GIGA, Meriko"),
        # a Python subscript and the Series pandas prints from it
        ("record['holder_name'] = 'Yoshi Inui'\n", "Yoshi Inui"),
        ('       "applicant_name    PUELLO, Eliecer\\n",\n', "PUELLO, Eliecer"),
        ("signatory       N. S. Kasai\nmethod          Gantt chart\n", "N. S. Kasai"),
        # shell: git's dotted key, and a file named after what is appended to it
        ("git config --global user.name 'Luu, Kei'", "Luu, Kei"),
        ("x=1; echo 'M. Alekseeva' >> ~/notes/requester.txt", "M. Alekseeva"),
        # a multipart form's part, a LaTeX command, a Jira record's two-cell row
        ('Content-Disposition: form-data; name="signatory"\r\n\r\nSAIDIBRAHIM, Timiro\r\n--b--', "SAIDIBRAHIM, Timiro"),
        ("x: \\signature{Thinnes van Abrantes}\n\\begin{document}", "Thinnes van Abrantes"),
        ("||Field||Value||\n|signatory|Takamura, Chika|\n", "Takamura, Chika"),
        # a bare value that goes on after its comma, and a name in capitals under a name's key
        ("applicant_name= YÊN, Vuong; request_id= 6b3a", "YÊN, Vuong"),
        ("Given names: ANNA MARIA\n", "ANNA MARIA"),
    ],
)
def test_person_keys_in_code_shell_form_and_record_syntaxes(text: str, expected: str) -> None:
    assert found(text) == [("PERSON", expected)]


@pytest.mark.parametrize(
    "text",
    [
        "| Name | Owner |\n|---|---|\n",  # a Markdown table's header row, not a record's row
        "echo 'done' >> ~/notes/requester.txt",  # a word, not a name
        "the customer 'Bob Smith'",  # prose before a quote: no key
        "git config --global user.name 'build-bot'",
        "display_name: ACME SUPPORT TEAM",  # a desk in capitals
        "status     Pending Review\n",
        "Model name : Kelvin scale\n",  # a thing's kind before "name"
    ],
)
def test_syntaxes_that_hold_no_persons_name(text: str) -> None:
    assert [entity for entity, _ in found(text) if entity == "PERSON"] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the person an audit or activity record says acted (Activity Streams 2.0's and OCSF's actor)
        ('AUDIT 2025-03-04T10:12:44Z actor="Марина Фомина" action=role.grant', [("PERSON", "Марина Фомина")]),
        ('{"actor": "Kwame Mensah", "verb": "update"}', [("PERSON", "Kwame Mensah")]),
        # the people package metadata names (core metadata, package.json, a YAML list under "maintainers")
        ('maintainer = "Kamil Nowak"', [("PERSON", "Kamil Nowak")]),
        ("maintainers:\n  - Vitalija Kaupas\n  - Е. Златков\n",
         [("PERSON", "Vitalija Kaupas"), ("PERSON", "Е. Златков")]),
        ("contributor: Ana Silva", [("PERSON", "Ana Silva")]),
        # the on-call person's name, as a role's name key ("applicant_name")
        ('ONCALL_PHONE="(506) 462-4085"\nONCALL_NAME="E. Ó Macháin"', [("PERSON", "E. Ó Macháin")]),
        ("on_call_name: Tomás Ó Briain", [("PERSON", "Tomás Ó Briain")]),
    ],
)  # fmt: skip
def test_record_and_package_people_keys(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    ["AUDIT actor=jkowalski action=user.update", "actor=jennifer.morgan action=user.update", "actor=system",
     '{"actor": "svc-billing"}',
     "Maintainer: Debian Python Team <team@example.org>"],
)  # fmt: skip
def test_record_and_package_keys_hold_handles_and_teams(text: str) -> None:
    assert [entity for entity, value in found(text) if entity == "PERSON"] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<table>\n<tr><th>Contact</th><th>City</th><th>Country</th></tr>\n"
         "<tr><td>Zayyir Ghauth</td><td>Seogwipo</td><td>Kosovo</td></tr>\n"
         "<tr><td>I. Melo</td><td>Buluan</td><td>Hong Kong</td></tr>\n</table>",
         [("PERSON", "Zayyir Ghauth"), ("LOCATION", "Seogwipo"), ("LOCATION", "Kosovo"), ("PERSON", "I. Melo"),
          ("LOCATION", "Buluan"), ("LOCATION", "Hong Kong")]),
        # a cell holding an element is skipped but counted: the columns stay aligned
        ('<TABLE><THEAD><TR><TH>Order</TH><TH class="x">Customer Name</TH><TH>Ship city</TH></TR></THEAD>'
         '<TBODY><TR><TD><a href="/o/1">1</a></TD><TD>Aoife Byrne</TD><TD> Dundalk </TD></TR></TBODY></TABLE>',
         [("PERSON", "Aoife Byrne")]),
    ],
)  # fmt: skip
def test_html_table_header_cells_type_their_columns(text: str, expected: list[tuple[str, str]]) -> None:
    assert [pair for pair in found(text) if pair in expected or pair[0] == "PERSON"] == expected


@pytest.mark.parametrize(
    "text",
    [
        # header cells that name no person or place column; data cells without a header row
        "<table><tr><th>Product</th><th>Status</th></tr><tr><td>Orion Console</td><td>Shipped</td></tr></table>",
        "<table><tr><td>Contact</td><td>City</td></tr><tr><td>Orion Console</td><td>Shipped</td></tr></table>",
    ],
)
def test_html_tables_with_no_person_column_name_no_person(text: str) -> None:
    assert [entity for entity, value in found(text) if entity == "PERSON"] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a person noun over the object (WordNet's noun.person), its list, or the path: the name in capitals too
        ('{"bookingRef": "BK68461",\n  "guest": {"name": "MAJD UBAIDAH", "email": "ubaidah.m@example.com"}}',
         [("PERSON", "MAJD UBAIDAH")]),
        ('{"passengers": [{"name": "ANNA BERG", "seat": "3A"}, {"seat": "3B", "name": "OLIVIA FOOT"}]}',
         [("PERSON", "ANNA BERG"), ("PERSON", "OLIVIA FOOT")]),
        ('{"assigneeUser": {"id": 3, "name": "JAN HANSEN"}}', [("PERSON", "JAN HANSEN")]),
        ("guest.name: MAJD UBAIDAH", [("PERSON", "MAJD UBAIDAH")]),
        # a bare name in capitals elsewhere is no person's: a constant, a product, a team
        ('{"name": "MAJD UBAIDAH"}', []),
        ('{"product": {"name": "ORION CONSOLE"}}', []),
        ('{"team": {"name": "CUSTOMER SUCCESS"}}', []),
        # the product rule still holds under a person noun
        ('{"guest": {"name": "Orion Console", "sku": "X-1", "price": 3}}', []),
    ],
)  # fmt: skip
def test_a_person_noun_over_a_bare_name_makes_it_a_persons_name(text: str,
                                                                 expected: list[tuple[str, str]]) -> None:  # fmt: skip
    assert [pair for pair in found(text) if pair[0] == "PERSON"] == expected
