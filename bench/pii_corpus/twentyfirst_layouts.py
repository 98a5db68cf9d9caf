"""The layouts of the twenty-first dev-side corpus (``dev_twentyfirst``): structured records and data as systems and
people write them, written blind from general knowledge (no other split's record bank, phrase bank or the
detectors' key lists were read): JSON payloads and webhooks, agents' tool calls and results, YAML / TOML / INI
configs, CSV and TSV exports with headers in eleven languages, markdown and HTML tables, XML, SQL, key=value and
logfmt lines, query strings, headerless spreadsheet pastes, JSON Lines, Python / JS literals, GraphQL responses,
pandas prints and CLI tables.

A layout is a head, a row written one to `rows` times (joined by `joiner`) and a tail. Slots, ``⟨X:arg⟩``:

- ``P`` a person's full name in any form (also "Surname, Given"), ``Q`` one with no comma (a comma-separated
  field), ``F`` a given name and ``S`` a surname in their own fields (the same person's when the other part is
  still unwritten);
- ``C`` a city, ``K`` a country, ``U`` a US state, ``L`` any of them;
- ``E`` an e-mail address, ``T`` a mobile number, ``A`` a street address (one line);
- the argument of a PII slot is its key level: ``a`` a key naming the type, ``b`` a vague key, ``c`` no key;
- ``n:<kind>`` a hard negative of ``NEGATIVES[kind]``, ``H`` a handle made from a person's name (a negative),
  ``#`` a number, ``$`` an amount, ``d`` an ISO date-time (neither labelled).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Layout:
    name: str
    lang: str  # whose names, places, phones and streets it mostly holds: en de fr es it pt nl pl nordic
    row: str
    head: str = ""
    tail: str = ""
    joiner: str = "\n"
    rows: int = 3  # 1 to `rows` rows


# fmt: off
LAYOUTS: tuple[Layout, ...] = (
    # ---- JSON API payloads and webhooks
    Layout("json-crm-contact", "en", head='{"object": "contact", "data": [\n', joiner=",\n", tail="\n]}",
           row='  {"id": ⟨#⟩, "first_name": "⟨F:a⟩", "last_name": "⟨S:a⟩", "email": "⟨E⟩", "phone": "⟨T⟩", '
               '"city": "⟨C:a⟩", "lifecycle_stage": "⟨n:status⟩", "owner": "⟨P:b⟩"}'),
    Layout("json-user-profile", "any", rows=1,
           row='{\n  "user": {\n    "displayName": "⟨P:a⟩",\n    "username": "⟨H⟩",\n    "locale": "⟨n:language⟩",\n'
               '    "timezone": "⟨n:timezone⟩",\n    "location": "⟨C:a⟩, ⟨K:a⟩",\n    "plan": "⟨n:plan⟩"\n  }\n}'),
    Layout("json-order-shipment", "any", rows=1,
           row='{"order_id": "ORD-⟨#⟩", "status": "⟨n:status⟩", "items": [{"sku": "⟨n:sku⟩", "name": "⟨n:product⟩", '
               '"qty": 2}], "ship_to": {"name": "⟨Q:a⟩", "line1": "⟨A⟩", "city": "⟨C:a⟩", "country": "⟨K:a⟩"}, '
               '"total": "⟨$⟩"}'),
    Layout("json-booking", "any", rows=1,
           row='{\n  "bookingRef": "BK⟨#⟩",\n  "guest": {"name": "⟨P:a⟩", "email": "⟨E⟩"},\n'
               '  "property": "⟨n:product⟩",\n  "destination": "⟨C:b⟩",\n  "arrival": "⟨d⟩",\n'
               '  "roomType": "⟨n:category⟩"\n}'),
    Layout("json-ticket", "en", rows=1,
           row='{"ticket": {"key": "SUP-⟨#⟩", "summary": "Refund not received", "priority": "⟨n:status⟩", '
               '"assignee": "⟨Q:b⟩", "reporter": {"displayName": "⟨P:b⟩", "emailAddress": "⟨E⟩"}, '
               '"labels": ["⟨n:tag⟩", "⟨n:tag⟩"], "team": "⟨n:team⟩"}}'),
    Layout("json-webhook-event", "any", rows=1,
           row='{"event":"customer.updated","created":"⟨d⟩","data":{"object":{"name":"⟨Q:a⟩","address":{'
               '"city":"⟨C:a⟩","state":"⟨U:a⟩","country":"⟨K:b⟩"},"currency":"⟨n:currency⟩"}}}'),
    Layout("json-array-people", "any", head='{"attendees": [', joiner=", ", tail="], \"room\": \"⟨n:product⟩\"}",
           row='"⟨Q:c⟩"', rows=4),
    Layout("json-array-places", "any", head='{"regions_served": [', joiner=", ", tail="], \"tier\": \"⟨n:plan⟩\"}",
           row='"⟨L:c⟩"', rows=4),
    Layout("json-nested-team", "any", rows=1,
           row='{\n  "team": "⟨n:team⟩",\n  "members": [\n'
               '    {"name": "⟨P:a⟩", "role": "⟨n:role⟩", "base": "⟨C:b⟩", "mail": "⟨E⟩"},\n'
               '    {"name": "⟨Q:a⟩", "role": "⟨n:role⟩", "base": "⟨C:b⟩"}\n  ],\n  "lead": "⟨P:b⟩"\n}'),
    Layout("json-kv-pairs", "any", head='{"fields": [\n', joiner=",\n", tail="\n]}",
           row='  {"label": "⟨n:field⟩", "value": "⟨n:status⟩"},\n  {"label": "Contact", "value": "⟨Q:b⟩"},\n'
               '  {"label": "Site", "value": "⟨C:b⟩"}', rows=1),
    Layout("json-lines-audit", "any", joiner="\n", rows=3,
           row='{"ts":"⟨d⟩","actor":"⟨Q:b⟩","action":"⟨n:action⟩","target":"⟨n:camel⟩","geo":"⟨C:b⟩"}'),
    Layout("json-lines-people", "any", joiner="\n", rows=3, row='{"n": ⟨#⟩, "text": "⟨Q:b⟩", "tag": "⟨n:tag⟩"}'),
    # ---- agents' tool calls and results
    Layout("tool-call-args", "any", rows=1,
           row='Calling tool `create_contact` with arguments:\n{"full_name": "⟨Q:a⟩", "email": "⟨E⟩", '
               '"company": "⟨n:company⟩", "city": "⟨C:a⟩"}'),
    Layout("tool-result-search", "any", rows=1,
           row='<tool_result name="crm.search">\n[{"match": "⟨Q:b⟩", "score": 0.93, "segment": "⟨n:plan⟩"}, '
               '{"match": "⟨Q:b⟩", "score": 0.71, "segment": "⟨n:plan⟩"}]\n</tool_result>'),
    Layout("tool-call-weather", "any", rows=1,
           row='{"type": "function", "function": {"name": "get_forecast", "arguments": "{\\"location\\": \\"⟨C:a⟩\\", '
               '\\"units\\": \\"metric\\"}"}}'),
    Layout("tool-result-flights", "any", rows=1,
           row='Observation: {"from": "⟨C:b⟩", "to": "⟨C:b⟩", "carrier": "⟨n:company⟩", "passenger": "⟨P:a⟩", '
               '"fare_class": "⟨n:category⟩"}'),
    # ---- YAML / TOML / INI configs
    Layout("yaml-oncall", "en", rows=1,
           row='service: ⟨n:camel⟩\nowner: ⟨Q:b⟩\noncall:\n  primary: ⟨Q:b⟩\n  secondary: ⟨Q:b⟩\nescalation: ⟨E⟩\n'
               'region: ⟨n:timezone⟩\n'),
    Layout("yaml-maintainers", "any", head="maintainers:\n", joiner="\n", rows=3,
           row="  - name: ⟨P:a⟩\n    email: ⟨E⟩\n    github: ⟨H⟩"),
    Layout("yaml-offices", "any", head="offices:\n", joiner="\n", rows=3,
           row="  - site: ⟨C:b⟩\n    country: ⟨K:a⟩\n    phone: \"⟨T⟩\"\n    manager: ⟨Q:b⟩"),
    Layout("toml-authors", "any", rows=1,
           row='[package]\nname = "⟨n:module⟩"\nversion = "2.4.1"\nauthors = ["⟨Q:c⟩ <⟨E⟩>", "⟨Q:c⟩"]\n\n'
               '[tool.release]\napprover = "⟨Q:b⟩"\n'),
    Layout("ini-site", "any", rows=1,
           row="[site]\nlabel = ⟨C:b⟩\ncontact = ⟨Q:b⟩\ndatacenter = ⟨n:product⟩\n\n[billing]\n"
               "currency = ⟨n:currency⟩\nplan = ⟨n:plan⟩\n"),
    Layout("env-file", "any", rows=1,
           row="APP_NAME=⟨n:camel⟩\nSUPPORT_CONTACT=\"⟨Q:b⟩\"\nDEFAULT_CITY=⟨C:a⟩\nDEFAULT_COUNTRY=⟨K:a⟩\n"
               "TZ=⟨n:timezone⟩\n"),
    # ---- CSV / TSV exports, headers in many languages
    Layout("csv-en", "en", head="first_name,last_name,email,phone,city,state,plan\n",
           row="⟨F:a⟩,⟨S:a⟩,⟨E⟩,⟨T⟩,⟨C:a⟩,⟨U:a⟩,⟨n:plan⟩"),
    Layout("csv-en-full", "en", head="Customer,Billing Address,City,Country,Status\n",
           row='"⟨P:a⟩","⟨A⟩",⟨C:a⟩,⟨K:a⟩,⟨n:status⟩'),
    Layout("csv-de", "de", head="Vorname;Nachname;Straße;PLZ;Ort;Telefon;Status\n",
           row="⟨F:a⟩;⟨S:a⟩;⟨A⟩;⟨#⟩;⟨C:a⟩;⟨T⟩;⟨n:status⟩"),
    Layout("csv-de-kunde", "de", head="Kundennr;Kunde;Wohnort;Land;Betreuer\n",
           row="⟨#⟩;⟨P:a⟩;⟨C:a⟩;⟨K:a⟩;⟨Q:b⟩"),
    Layout("csv-fr", "fr", head="prénom,nom,adresse,ville,pays,téléphone\n",
           row='⟨F:a⟩,⟨S:a⟩,"⟨A⟩",⟨C:a⟩,⟨K:a⟩,⟨T⟩'),
    Layout("csv-fr-semicolon", "fr", head="Nom complet;Commune;Responsable;Statut\n",
           row="⟨P:a⟩;⟨C:a⟩;⟨Q:b⟩;⟨n:status⟩"),
    Layout("csv-es", "es", head="nombre|apellidos|municipio|provincia|correo|móvil\n",
           row="⟨F:a⟩|⟨S:a⟩|⟨C:a⟩|⟨n:category⟩|⟨E⟩|⟨T⟩"),
    Layout("csv-es-cliente", "es", head="cliente;domicilio;localidad;país\n", row="⟨P:a⟩;⟨A⟩;⟨C:a⟩;⟨K:a⟩"),
    Layout("csv-it", "it", head="nome;cognome;indirizzo;comune;cellulare;stato\n",
           row="⟨F:a⟩;⟨S:a⟩;⟨A⟩;⟨C:a⟩;⟨T⟩;⟨n:status⟩"),
    Layout("csv-it-referente", "it", head="ragione sociale;referente;sede;nazione\n",
           row="⟨n:company⟩;⟨Q:a⟩;⟨C:a⟩;⟨K:a⟩"),
    Layout("csv-pt", "pt", head="nome;sobrenome;endereço;cidade;celular\n", row="⟨F:a⟩;⟨S:a⟩;⟨A⟩;⟨C:a⟩;⟨T⟩"),
    Layout("csv-pt-responsavel", "pt", head="Cliente,Responsável,Localidade,Situação\n",
           row="⟨Q:a⟩,⟨Q:b⟩,⟨C:a⟩,⟨n:status⟩"),
    Layout("csv-nl", "nl", head="Klant;Voornaam;Achternaam;Adres;Woonplaats;Mobiel\n",
           row="⟨#⟩;⟨F:a⟩;⟨S:a⟩;⟨A⟩;⟨C:a⟩;⟨T⟩"),
    Layout("csv-nl-contact", "nl", head="Naam,Plaats,Land,Accountmanager\n", row="⟨Q:a⟩,⟨C:a⟩,⟨K:a⟩,⟨Q:b⟩"),
    Layout("csv-pl", "pl", head="Imię;Nazwisko;Ulica;Miejscowość;Telefon;Uwagi\n",
           row="⟨F:a⟩;⟨S:a⟩;⟨A⟩;⟨C:a⟩;⟨T⟩;⟨n:tag⟩"),
    Layout("csv-pl-klient", "pl", head="Klient,Miasto,Kraj,Opiekun\n", row="⟨Q:a⟩,⟨C:a⟩,⟨K:a⟩,⟨Q:b⟩"),
    Layout("csv-sv", "nordic", head="Förnamn;Efternamn;Adress;Ort;Mobil\n", row="⟨F:a⟩;⟨S:a⟩;⟨A⟩;⟨C:a⟩;⟨T⟩"),
    Layout("csv-da-no", "nordic", head="Fornavn;Etternavn;Poststed;Land;Ansvarlig\n",
           row="⟨F:a⟩;⟨S:a⟩;⟨C:a⟩;⟨K:a⟩;⟨Q:b⟩"),
    Layout("csv-fi", "nordic", head="Etunimi;Sukunimi;Kotikunta;Puhelin\n", row="⟨F:a⟩;⟨S:a⟩;⟨C:a⟩;⟨T⟩"),
    Layout("tsv-vague", "any", head="id\tlabel\tvalue\tcol4\tnote\n",
           row="⟨#⟩\t⟨n:status⟩\t⟨Q:b⟩\t⟨C:b⟩\t⟨n:tag⟩"),
    Layout("csv-vague-cols", "any", head="col1,col2,col3,col4\n", row="⟨#⟩,⟨Q:b⟩,⟨C:b⟩,⟨n:plan⟩"),
    Layout("csv-de-vague", "de", head="Feld1;Feld2;Feld3;Bemerkung\n", row="⟨Q:b⟩;⟨C:b⟩;⟨n:status⟩;⟨n:tag⟩"),
    Layout("csv-fr-vague", "fr", head="libellé;valeur;origine\n", row="⟨C:b⟩;⟨Q:b⟩;⟨K:b⟩"),
    Layout("csv-es-vague", "es", head="campo,dato,origen,destino\n", row="⟨n:field⟩,⟨Q:b⟩,⟨C:b⟩,⟨C:b⟩"),
    Layout("csv-it-vague", "it", head="voce;valore;sede\n", row="⟨n:field⟩;⟨Q:b⟩;⟨C:b⟩"),
    Layout("kv-vague", "any", row="text=\"⟨Q:b⟩\" target=⟨L:b⟩ src=⟨L:b⟩ kind=⟨n:category⟩"),
    Layout("json-event-vague", "any", rows=1,
           row='{"type": "checkin", "label": "⟨C:b⟩", "value": "⟨P:b⟩", "meta": {"origin": "⟨K:b⟩", '
               '"via": "⟨C:b⟩"}}'),
    # ---- headerless pastes
    Layout("paste-headerless-csv", "any", row="⟨Q:c⟩,⟨E⟩,⟨C:c⟩,⟨n:status⟩"),
    Layout("paste-headerless-tab", "any", row="⟨F:c⟩\t⟨S:c⟩\t⟨C:c⟩\t⟨K:c⟩\t⟨n:plan⟩"),
    Layout("paste-headerless-semicolon", "any", row="⟨#⟩;⟨Q:c⟩;⟨A⟩;⟨C:c⟩;⟨T⟩"),
    Layout("paste-list", "any", head="can you dedupe these?\n", row="⟨P:c⟩ - ⟨L:c⟩", rows=4),
    Layout("paste-headerless-de", "de", row="⟨S:c⟩;⟨F:c⟩;⟨A⟩;⟨C:c⟩;⟨n:status⟩"),
    Layout("paste-headerless-fr", "fr", row="⟨P:c⟩\t⟨C:c⟩\t⟨T⟩"),
    Layout("paste-headerless-es", "es", row="⟨Q:c⟩|⟨E⟩|⟨C:c⟩|⟨K:c⟩|⟨n:plan⟩"),
    Layout("paste-headerless-pl", "pl", row="⟨F:c⟩ ⟨S:c⟩, ⟨C:c⟩, ⟨T⟩"),
    Layout("paste-headerless-it", "it", row="⟨#⟩\t⟨Q:c⟩\t⟨C:c⟩\t⟨n:category⟩"),
    Layout("paste-headerless-nl", "nl", row="⟨Q:c⟩;⟨A⟩;⟨C:c⟩;⟨n:tag⟩"),
    Layout("csv-quoted-nokey", "any", row='"⟨P:c⟩","⟨E⟩","⟨C:c⟩","⟨K:c⟩"'),
    Layout("json-row-arrays", "any", head='{"columns": ["c0", "c1", "c2"], "rows": [\n', joiner=",\n", tail="\n]}",
           row='  ["⟨Q:c⟩", "⟨C:c⟩", "⟨n:status⟩"]'),
    Layout("jsonl-arrays", "any", row='["⟨Q:c⟩", "⟨E⟩", "⟨L:c⟩", ⟨#⟩]'),
    Layout("python-tuples", "any", head="rows = [\n", tail="\n]", row="    ('⟨Q:c⟩', '⟨C:c⟩', ⟨#⟩),"),
    Layout("js-array", "any", head="const names = [", joiner=", ", tail="];", row="'⟨Q:c⟩'", rows=4),
    Layout("yaml-list", "any", head="items:\n", row="  - ⟨Q:c⟩\n  - ⟨L:c⟩"),
    # ---- markdown and HTML tables, XML
    Layout("md-table", "any", head="| Name | Role | Office | Status |\n|---|---|---|---|\n",
           row="| ⟨P:a⟩ | ⟨n:role⟩ | ⟨C:a⟩ | ⟨n:status⟩ |"),
    Layout("md-table-vague", "any", head="| # | Item | Owner | Where |\n|---|------|-------|-------|\n",
           row="| ⟨#⟩ | ⟨n:product⟩ | ⟨Q:b⟩ | ⟨L:b⟩ |"),
    Layout("html-table", "any", head="<table>\n<tr><th>Contact</th><th>City</th><th>Country</th></tr>\n",
           row="<tr><td>⟨P:a⟩</td><td>⟨C:a⟩</td><td>⟨K:a⟩</td></tr>", tail="\n</table>"),
    Layout("html-table-nokey", "any", head="<table><tbody>\n", tail="\n</tbody></table>",
           row="<tr><td>⟨#⟩</td><td>⟨Q:c⟩</td><td>⟨L:c⟩</td><td>⟨n:status⟩</td></tr>"),
    Layout("xml-customer", "any", rows=1,
           row='<?xml version="1.0" encoding="UTF-8"?>\n<Customer id="⟨#⟩">\n  <GivenName>⟨F:a⟩</GivenName>\n'
               "  <FamilyName>⟨S:a⟩</FamilyName>\n  <Address>\n    <Street>⟨A⟩</Street>\n    <City>⟨C:a⟩</City>\n"
               "    <Country>⟨K:a⟩</Country>\n  </Address>\n  <Segment>⟨n:plan⟩</Segment>\n</Customer>"),
    Layout("xml-attrs", "any", head="<entries>\n", tail="\n</entries>",
           row='  <entry key="⟨n:field⟩" owner="⟨Q:b⟩" loc="⟨C:b⟩" state="⟨n:status⟩"/>'),
    # ---- SQL
    Layout("sql-insert", "any", head="INSERT INTO customers (first_name, last_name, city, country, phone) VALUES\n",
           joiner=",\n", tail=";", row="  ('⟨F:a⟩', '⟨S:a⟩', '⟨C:a⟩', '⟨K:a⟩', '⟨T⟩')"),
    Layout("sql-insert-positional", "any", head="INSERT INTO t_contact VALUES\n", joiner=",\n", tail=";",
           row="(⟨#⟩, '⟨Q:c⟩', '⟨C:c⟩', '⟨n:status⟩', '⟨d⟩')"),
    Layout("sql-update", "any", rows=1,
           row="UPDATE accounts SET owner_name = '⟨P:a⟩', hq_city = '⟨C:a⟩', tier = '⟨n:plan⟩' WHERE id = ⟨#⟩;"),
    Layout("sql-result", "any", head=" id  | name                 | city\n-----+----------------------+-----------\n",
           row=" ⟨#⟩ | ⟨Q:a⟩ | ⟨C:a⟩", tail="\n(3 rows)"),
    # ---- key=value, logfmt, query strings
    Layout("logfmt", "any", joiner="\n",
           row='ts=⟨d⟩ level=info msg="profile updated" user="⟨P:b⟩" city="⟨C:a⟩" plan=⟨n:plan⟩'),
    Layout("kv-pipe", "any", joiner="\n", row="customer=⟨Q:a⟩ | dest=⟨C:b⟩ | status=⟨n:status⟩"),
    Layout("query-string", "any", rows=1,
           row="GET /api/v2/search?name=⟨Q:a⟩&city=⟨C:a⟩&country=⟨K:a⟩&sort=⟨n:field⟩ HTTP/1.1"),
    Layout("query-string-vague", "any", rows=1,
           row="https://forms.example.org/submit?q=⟨Q:b⟩&loc=⟨C:b⟩&ref=⟨n:camel⟩&v=2"),
    # ---- code literals, GraphQL, pandas, CLI tables
    Layout("python-dict", "any", rows=1,
           row="contact = {\n    'name': '⟨Q:a⟩',\n    'city': '⟨C:a⟩',\n    'tags': ['⟨n:tag⟩', '⟨n:tag⟩'],\n"
               "    'tz': '⟨n:timezone⟩',\n}\n"),
    Layout("python-list", "any", rows=1, row="SPEAKERS = ['⟨Q:c⟩', '⟨Q:c⟩', '⟨Q:c⟩']\nVENUES = ('⟨C:c⟩', '⟨C:c⟩')"),
    Layout("js-object", "any", rows=1,
           row="const assignee = { fullName: '⟨Q:a⟩', homeTown: '⟨C:b⟩', team: '⟨n:team⟩', "
               "nationality: '⟨n:nationality⟩' };"),
    Layout("graphql-response", "any", rows=1,
           row='{\n  "data": {\n    "viewer": {\n      "name": "⟨Q:a⟩",\n      "location": "⟨C:a⟩",\n'
               '      "company": "⟨n:company⟩",\n      "followers": {"nodes": [{"name": "⟨Q:a⟩"}, {"name": "⟨Q:a⟩"}]}\n'
               "    }\n  }\n}"),
    Layout("pandas-print", "any", head="       name              city        country   segment\n",
           row="⟨#⟩  ⟨Q:a⟩   ⟨C:a⟩   ⟨K:a⟩   ⟨n:plan⟩"),
    Layout("cli-table", "any", head="NAME                 OWNER                REGION     STATUS\n",
           row="⟨n:module⟩   ⟨Q:b⟩   ⟨L:b⟩   ⟨n:status⟩"),
    Layout("cli-describe", "any", rows=1,
           row="Name:          ⟨n:camel⟩\nMaintainer:    ⟨Q:b⟩ <⟨E⟩>\nLocation:      ⟨C:a⟩\nTeam:          ⟨n:team⟩"),
    # ---- forms written in other languages as key: value
    Layout("form-de", "de", rows=1,
           row="Name: ⟨Q:a⟩\nAnschrift: ⟨A⟩, ⟨C:a⟩\nTelefon: ⟨T⟩\nAnsprechpartner: ⟨Q:b⟩\n"
               "Staatsangehörigkeit: ⟨n:nationality⟩"),
    Layout("form-fr", "fr", rows=1,
           row="Nom : ⟨S:a⟩\nPrénom : ⟨F:a⟩\nLieu de résidence : ⟨C:a⟩\nInterlocuteur : ⟨Q:b⟩\nLangue : ⟨n:language⟩"),
    Layout("form-es", "es", rows=1,
           row="Titular: ⟨Q:a⟩\nDirección: ⟨A⟩\nCiudad: ⟨C:a⟩\nGestor: ⟨Q:b⟩\nEstado: ⟨n:status⟩"),
    Layout("form-it", "it", rows=1,
           row="Intestatario: ⟨Q:a⟩\nLuogo di nascita: ⟨C:a⟩\nRecapito: ⟨T⟩\nCategoria: ⟨n:category⟩"),
    Layout("form-pt", "pt", rows=1, row="Nome completo: ⟨Q:a⟩\nNaturalidade: ⟨C:a⟩\nMorada: ⟨A⟩\nE-mail: ⟨E⟩"),
    Layout("form-nl", "nl", rows=1,
           row="Naam: ⟨Q:a⟩\nGeboorteplaats: ⟨C:a⟩\nContactpersoon: ⟨Q:b⟩\nTelefoonnummer: ⟨T⟩"),
    Layout("form-pl", "pl", rows=1,
           row="Imię i nazwisko: ⟨Q:a⟩\nMiejsce urodzenia: ⟨C:a⟩\nOsoba kontaktowa: ⟨Q:b⟩\nKraj: ⟨K:a⟩"),
    Layout("form-nordic", "nordic", rows=1,
           row="Namn: ⟨Q:a⟩\nBostadsort: ⟨C:a⟩\nKontaktperson: ⟨Q:b⟩\nLand: ⟨K:a⟩"),
)

# The negative-only layouts: the same shapes with no person or place in them.
NEGATIVE_LAYOUTS: tuple[Layout, ...] = (
    Layout("neg-json-product", "any", rows=1,
           row='{"sku": "⟨n:sku⟩", "name": "⟨n:product⟩", "category": "⟨n:category⟩", "status": "⟨n:status⟩", '
               '"price": "⟨$⟩", "currency": "⟨n:currency⟩"}'),
    Layout("neg-csv-plans", "any", head="plan,status,team,tag\n", row="⟨n:plan⟩,⟨n:status⟩,⟨n:team⟩,⟨n:tag⟩"),
    Layout("neg-yaml-service", "any", rows=1,
           row="service: ⟨n:camel⟩\nteam: ⟨n:team⟩\nowner_team: ⟨n:team⟩\ntimezone: ⟨n:timezone⟩\n"
               "schedule: ⟨n:weekday⟩\nhandle: ⟨H⟩\n"),
    Layout("neg-json-user", "any", rows=1,
           row='{"username": "⟨H⟩", "nationality": "⟨n:nationality⟩", "language": "⟨n:language⟩", '
               '"role": "⟨n:role⟩", "department": "⟨n:department⟩", "month": "⟨n:month⟩"}'),
    Layout("neg-md-table", "any", head="| Vendor | Product | Status |\n|---|---|---|\n",
           row="| ⟨n:company⟩ | ⟨n:product⟩ | ⟨n:status⟩ |"),
    Layout("neg-sql", "any", head="INSERT INTO plans (code, label, cycle) VALUES\n", joiner=",\n", tail=";",
           row="('⟨n:sku⟩', '⟨n:plan⟩', '⟨n:month⟩')"),
    Layout("neg-logfmt", "any", row="ts=⟨d⟩ action=⟨n:action⟩ entity=⟨n:camel⟩ actor=⟨H⟩ tag=⟨n:tag⟩"),
    Layout("neg-csv-de", "de", head="Artikel;Bezeichnung;Kategorie;Abteilung\n",
           row="⟨n:sku⟩;⟨n:product⟩;⟨n:category⟩;⟨n:department⟩"),
    Layout("neg-kv-enum", "any", rows=1,
           row="permission=⟨n:keyword⟩\ngender=⟨n:gender⟩\nnationality=⟨n:nationality⟩\nday=⟨n:weekday⟩"),
    Layout("neg-headerless", "any", row="⟨n:company⟩\t⟨n:plan⟩\t⟨n:currency⟩\t⟨n:status⟩"),
)

# Hard negatives, written from general knowledge.
NEGATIVES: dict[str, tuple[str, ...]] = {
    "status": ("Pending", "In Progress", "Closed Won", "Closed Lost", "Shipped", "Delivered", "On Hold", "Active",
               "Suspended", "Awaiting Payment", "Resolved", "Escalated", "Qualified", "Churned", "Backordered",
               "Offen", "Erledigt", "En attente", "Terminé", "Pendiente", "Completado", "In lavorazione",
               "Concluído", "Afgehandeld", "Zrealizowane", "Skickad"),
    "plan": ("Enterprise", "Pro Annual", "Starter", "Business Plus", "Team Monthly", "Premium", "Growth",
             "Free Tier", "Platinum", "Scale", "Essentials", "Ultimate"),
    "category": ("Home & Garden", "Electronics", "Deluxe Suite", "Standard Double", "Outdoor", "Office Supplies",
                 "Economy Plus", "Premium Economy", "Kitchenware", "Pet Care", "Haushalt", "Jardinería"),
    "product": ("Aurora Desk Lamp", "Trailblazer Backpack", "Nimbus Pro", "Quantum Mixer", "Harbor View Suite",
                "Evergreen Planner", "Summit Jacket", "Atlas Router", "Cedar Hall", "Orion Console",
                "Maple Conference Room", "Phoenix Dashboard"),
    "sku": ("TB-30L-BLK", "AUR-LMP-02", "SKU-88412", "NMB-PRO-256", "QX-500-WHT", "EVP-2025-A5", "SMT-JKT-M"),
    "company": ("Nordwind Logistik GmbH", "Bellamy & Rhodes LLP", "Harper Analytics Inc.", "Transports Marchand SARL",
                "Grupo Ibérica S.A.", "Fratelli Conti S.p.A.", "Van Leeuwen Holding B.V.", "Polmet Sp. z o.o.",
                "Nordlys AS", "Acme Widgets Ltd", "Larsen & Berg AB", "Quintal Serviços Lda"),
    "team": ("Platform Team", "Blue Squad", "Payments Core", "Growth Pod", "Team Falcon", "Site Reliability",
             "Customer Success EMEA", "Data Guild", "Checkout Crew"),
    "tag": ("Urgent", "VIP", "Follow Up", "Newsletter", "Wholesale", "Do Not Call", "Key Account", "Renewal",
            "Trial", "Beta"),
    "timezone": ("Europe/Berlin", "America/Sao_Paulo", "Asia/Tokyo", "Europe/Madrid", "America/Chicago",
                 "Australia/Sydney", "Europe/Warsaw", "UTC", "CET", "Pacific Standard Time"),
    "currency": ("Euro", "Swiss Franc", "Polish Zloty", "Pound Sterling", "US Dollar", "Brazilian Real",
                 "Swedish Krona", "Danish Krone", "Mexican Peso"),
    "nationality": ("German", "Brazilian", "French", "Spanish", "Italian", "Dutch", "Polish", "Swedish",
                    "Norwegian", "Portuguese", "Mexican", "Irish"),
    "language": ("Portuguese", "German", "French", "Spanish", "Italian", "Dutch", "Polish", "Finnish", "Deutsch",
                 "Français", "Español", "en-GB", "pt-BR"),
    "month": ("January", "March", "August", "October", "December", "Januar", "Mars", "Septiembre", "Maggio"),
    "weekday": ("Monday", "Wednesday", "Friday", "Sunday", "Montag", "Mercredi", "Sábado"),
    "camel": ("CustomerAccount", "OrderLineItem", "ShipmentTracker", "InvoiceBatch", "UserProfileService",
              "PaymentIntent", "BookingCalendar", "ContactMerger"),
    "module": ("billing-api", "auth-service", "notifier", "geo-lookup", "search-indexer", "crm-sync"),
    "role": ("Account Executive", "Head of Sales", "Staff Engineer", "Product Manager", "Office Manager",
             "Customer Success Lead", "Data Analyst"),
    "department": ("Finance", "Human Resources", "Legal", "Procurement", "Marketing", "Vertrieb", "Einkauf"),
    "action": ("Created", "Deleted", "Login", "Export", "Merge", "Approve"),
    "field": ("Priority", "Region Code", "Lead Source", "Close Date", "Account Type", "Industry"),
    "keyword": ("Grant", "Deny", "Allow", "Revoke"),
    "gender": ("Female", "Male", "Non-binary", "Unspecified"),
}
# fmt: on
