"""Credentials in pasted configs, logs and code: the SECRET entity family.

Two kinds of evidence. Issuers that prefix their tokens (AWS key ids, GitHub, GitLab, Slack, Stripe, Google API
keys), PEM private-key blocks and JWTs are recognised by shape alone. Anything else is a secret by position: the value
of a key whose name says credential (``password=...``, ``"api_key": "..."``, ``client_secret: ...``,
``Authorization: Bearer ...``), when it does not look like a placeholder and, unless the key names a password, is
random enough (Shannon entropy per character) to be a generated credential rather than a word or a number.
A long mixed-case random token counts with a credential word shortly before or after it, in any of the corpus'
languages ("Key: ...", "utilisez ce jeton : ..."). Without one, a token counts only where nothing else it could be
fits: base62/base64 text of upper- and lower-case letters and digits that does not read as words run together
(``getUserAccountSettings2``), or hex of a length no hash function produces (a digest's 32, 40, 56, 64, 96 or 128
digits stay digests). Only the value is reported, so a mask leaves ``password=<SECRET>`` readable; a PEM block is
reported whole.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Iterator

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult

from gateway.guardrails.columns import clause_after, column_name, may_have_columns
from gateway.guardrails.prefilters import AtLineStarts


class _WithLiteral:
    """A pattern's ``finditer``, the text searched only where it holds one of ``literals`` (each match holds one): a
    pattern led by a character class ("[sr]k_") is tried at each of that class's letters, a substring test is not."""

    def __init__(self, literals: tuple[str, ...], pattern: str) -> None:
        self.literals = literals
        self.pattern = re.compile(pattern)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.pattern.finditer(text) if any(literal in text for literal in self.literals) else iter(())


# (name, pattern, score): tokens whose prefix names their issuer. Each starts with a literal (fast to search for);
# that no word character comes right before it is checked on each match.
_PREFIXED: tuple[tuple[str, re.Pattern[str] | _WithLiteral | AtLineStarts, float], ...] = (
    ("aws access key id", re.compile(r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)"
                                     r"[A-Z0-9]{16}(?![A-Za-z0-9])"), 0.95),
    ("github token", re.compile(r"gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9_])"), 0.95),
    ("github fine-grained token", re.compile(r"github_pat_[A-Za-z0-9_]{22,255}"), 0.95),
    ("gitlab token", re.compile(r"glpat-[A-Za-z0-9_-]{20,}"), 0.95),
    ("slack token", re.compile(r"xox[abposr]-[A-Za-z0-9-]{10,}"), 0.95),
    ("stripe key", _WithLiteral(("k_live_", "k_test_"), r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"), 0.95),
    ("google api key", re.compile(r"AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"), 0.9),
    ("openai key", re.compile(r"sk-(?:proj-|ant-)?[A-Za-z0-9_-]{32,}"), 0.9),
    # A JWT: base64url JSON header (always '{"' -> "eyJ"), JSON payload ("ey"), signature.
    ("jwt", re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0.95),
    # A private key block, whole: BEGIN line, body, END line. A block cut off before its END line (a truncated paste)
    # is still a key: everything to the end of the text goes with it.
    ("private key block", re.compile(
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
        re.DOTALL), 1.0),
    # A line of a PEM body (base64 wrapped at 64 characters) alone: a key block streamed out in pieces longer than
    # the output's hold-back reaches the analyser without its BEGIN line.
    ("pem body line", AtLineStarts(r"(?m)^[A-Za-z0-9+/]{64}$"), 0.6),
)  # fmt: skip

# Words that name a credential (none is one). "pass" opens other words too, whose values are no credentials: a
# passenger's name ("PASSENGER: ROMA/HASSIN MR"), a passport's number, a passage, "passing", "passive".
LOGIN_WORDS = (r"pass(?!eng|egg|ag|port|iv|ion|ing)(?:word|wd|phrase)?|pwd|passcode|mot[ _-]de[ _-]passe|contraseña"
               r"|kennwort|passwort")
CREDENTIAL_WORDS = (
    r"secret|token|api[ _-]?key|apikey|access[ _-]?key|private[ _-]?key|client[ _-]?secret|credentials?|auth[ _-]?key"
    r"|session[ _-]?key|signing[ _-]?key|encryption[ _-]?key|master[ _-]?key|bearer|dsn|conn(?:ection)?[ _-]?string"
)
# The key: an identifier (or a few words) holding a credential word; then ':', '=', '=>', ':=' or the word "is",
# optionally quoted on either side; then the value up to a quote, whitespace or a delimiter. The match starts at the
# credential word (what precedes it in the key's name changes nothing), so the scan tries few positions: the words
# are one alternation of literals (in one group), whose first letters the regex engine skips to; a group of its own
# around the login words, first in the alternation, made it try every position (4 times the scan's cost). Whether
# the word is a login word (a password's key) is told after the match (``_LOGIN_WORD``): no credential word is one. It
# reads the text lower-cased (a case-insensitive alternation is several times slower to search).
_KEYED = re.compile(
    rf"(?P<word>{LOGIN_WORDS}|{CREDENTIAL_WORDS})(?:[ _-]?(?:key|id|value))?[A-Za-z0-9_.-]*"
    r"[\"']?\s*(?P<separator>:=|=>|[:=]|\s+is)\s*(?:[\"'](?P<quoted>[^\"'\r\n]{4,256})[\"']"
    r"|(?P<bare>[^\s\"'`,;(){}\[\]<>]{4,256}))"
)


def _literal_openings(alternation: str) -> tuple[str, ...]:
    """The letters each branch of a regex alternation of words opens with, as a literal ("api[ _-]?key": "api",
    "credentials?": "credential", "pass(?!eng|...)": "pass"); none that another one opens (each match of the
    alternation starts where one of these occurs)."""
    branches, depth, start = [], 0, 0
    for at, char in enumerate(alternation):
        depth += char in "([" and (at == 0 or alternation[at - 1] != "\\")
        depth -= char in ")]" and (at == 0 or alternation[at - 1] != "\\")
        if char == "|" and depth == 0:
            branches.append(alternation[start:at])
            start = at + 1
    branches.append(alternation[start:])
    openings = set()
    for branch in branches:
        letters = re.match(r"[^\W\d_]*", branch).group()  # type: ignore[union-attr]  # matches at every position
        if branch[len(letters) : len(letters) + 1] in ("?", "*", "{"):
            letters = letters[:-1]  # a quantified last letter may be left out
        if not letters:
            raise ValueError(f"a branch that opens with no letter: {branch!r}")
        openings.add(letters)
    return tuple(sorted(o for o in openings if not any(o != other and o.startswith(other) for other in openings)))


# Where a key's credential word may start: ``_KEYED`` is tried there alone, not at each of the many letters its words
# open with (a quarter of a text's characters).
_KEY_OPENINGS = _literal_openings(f"{LOGIN_WORDS}|{CREDENTIAL_WORDS}")


def _keyed_matches(lowered: str) -> Iterator[re.Match[str]]:
    """``_KEYED.finditer(lowered)``: its matches, each tried only where a credential word's opening occurs."""
    starts = set()
    for opening in _KEY_OPENINGS:
        at = lowered.find(opening)
        while at != -1:
            starts.add(at)
            at = lowered.find(opening, at + 1)
    position = 0
    for start in sorted(starts):
        if start >= position and (match := _KEYED.match(lowered, start)) is not None:
            yield match
            position = match.end()


_LOGIN_WORD = re.compile(LOGIN_WORDS)
_TOKEN_CHAR = re.compile(r"[A-Za-z0-9_-]")
_AUTHORIZATION = re.compile(
    r"\bauthorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token)\s+(?P<value>[A-Za-z0-9._~+/=-]{8,})"
)
# Values that stand for a secret instead of being one: variables, templates, masks, booleans, null.
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$\{?[\w.]+\}?|\{\{.*\}\}|%\(?\w+\)?s?|<[^>]*>|\*+|x+|\.+|-+|null|none|nil|true|false|undefined"
    r"|redacted|\[redacted\]|changeme|your[_-].*|example|secret|password|token|env\(.*|process\.env.*|os\.environ.*"
    r"|(?-i:[A-Z][A-Z0-9_]+))$"
)
# A token that looks generated wherever it stands: long, upper- and lower-case letters and digits mixed (hex digests
# and UUIDs have one case), high entropy. It is a SECRET only with a credential word before it ("Key: ...",
# "voici la clé : ...", "jeton", "Schlüssel").
_RANDOM_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{32,128}(?![A-Za-z0-9+/_=-])")
_RANDOM_TOKEN_MIN_CHARS = 32


def _may_hold_random_token(text: str) -> bool:
    """Whether a ``_RANDOM_TOKEN`` may occur: its characters hold no whitespace, so it lies inside a word split off by
    whitespace at least as long (the regex, led by a look-behind, is tried at every position of the text)."""
    return any(len(word) >= _RANDOM_TOKEN_MIN_CHARS for word in text.split())


_TOKEN_WORDS = re.compile(
    r"(?i)(?<![^\W\d_])(?:key|keys|token|tokens|secret|secrets|password|credential|credentials|api|clé|cle|jeton|"
    r"mot de passe|schlüssel|schluessel|passwort|kennwort|clave|contraseña|llave|chiave)(?![^\W\d_])"
)
_TOKEN_CONTEXT_CHARS = 32
# Words that name a random token as an identifier or a digest, not a credential: such a token is not a SECRET by its
# shape alone (a credential word near it still makes it one).
_IDENTIFIER_WORDS = re.compile(
    r"(?i)(?<![^\W\d_])(?:id|ids|identifier|trace|span|request|correlation|commit|sha|hash|checksum|digest|uuid|guid|"
    r"etag|nonce|ref|reference|référence|referenz|referencia|riferimento)(?![^\W\d_])"
)
# A column named for a credential: "token", "access_token", "client_secret", "api_key", "password".
_TOKEN_COLUMN = re.compile(rf"(?:{CREDENTIAL_WORDS}|{LOGIN_WORDS}|key)")
_HEX = re.compile(
    r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{32,}|(?=[0-9A-F]*[A-F])(?=[0-9A-F]*[0-9])[0-9A-F]{32,}"
)
_RANDOM_TOKEN_MIN_ENTROPY = 4.0
# Runs of letters as words are written: "User", "Account", "HTTP", "get". In a random base62 token of 32 or more
# characters, runs of four letters or more hold under 3/4 of it (99.9% of them); in identifiers made of words
# ("AbstractSingletonProxyFactoryBean2") they hold nearly all of it.
_LETTER_RUN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_MAX_WORDED_SHARE = 0.75
# Hex digits of every digest hashlib can produce: a hex value of one of these lengths may be a hash, not a key.
_DIGEST_HEX_LENGTHS = frozenset(
    2 * hashlib.new(name).digest_size for name in hashlib.algorithms_guaranteed if not name.startswith("shake")
)
_UNNAMED_TOKEN = re.compile(r"[A-Za-z0-9+/]+")  # no '=' padding (encoded data, digests), '_' or '-' (identifiers)
UNNAMED_SCORE = 0.6
_GENERATED_MIN_CHARS = 12
_GENERATED_MIN_ENTROPY = 3.0  # bits per character: "hello_world_again" ~3.1 is close; keys sit at 4-5.5
_PASSWORD_MIN_CHARS = 6


def shannon_entropy(value: str) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(count / total * math.log2(count / total) for count in counts.values())


def _looks_generated(value: str) -> bool:
    """A random credential: long, not one character class alone, and high entropy per character."""
    if len(value) < _GENERATED_MIN_CHARS or value.isdigit() or value.isalpha():
        return False
    return shannon_entropy(value) >= _GENERATED_MIN_ENTROPY


def _looks_random(value: str) -> bool:
    """Upper- and lower-case letters mixed as a random draw mixes them, high entropy, not words run together."""
    if not (any(c.isupper() for c in value) and any(c.islower() for c in value)):
        return False
    if shannon_entropy(value) < _RANDOM_TOKEN_MIN_ENTROPY:
        return False
    worded = sum(len(run) for run in _LETTER_RUN.findall(value) if len(run) >= 4)
    return worded < _MAX_WORDED_SHARE * len(value)


def _generated_wherever_it_stands(value: str, hex_key: bool) -> bool:
    """A token that is a credential with no word naming it: hex of no digest's length, or base62/base64 text
    (``_looks_random``) with digits among its letters and no padding."""
    if hex_key:
        return len(value) not in _DIGEST_HEX_LENGTHS
    return any(c.isdigit() for c in value) and _UNNAMED_TOKEN.fullmatch(value) is not None


class SecretRecognizer(EntityRecognizer):
    """SECRET: issuer-prefixed tokens, JWTs, PEM private keys, and credential-named keys' values."""

    KEYED_SCORE = 0.85
    PASSWORD_SCORE = 0.75
    CONTEXT = ["secret", "token", "password", "key", "credential", "auth"]  # noqa: RUF012

    def __init__(self) -> None:
        super().__init__(supported_entities=["SECRET"], context=self.CONTEXT, name="SecretRecognizer")

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        results = []
        for name, pattern, score in _PREFIXED:
            for match in pattern.finditer(text):
                if match.start() == 0 or not _TOKEN_CHAR.match(text, match.start() - 1):
                    results.append(self._result(match.start(), match.end(), score, name))
        lowered = text.lower()
        if len(lowered) != len(text):  # a few characters lower-case to two ("İ"): keep those as they are
            lowered = "".join(char if len(char.lower()) != 1 else char.lower() for char in text)
        # The header's name is a literal: a substring test spares the regex's scan of texts without it.
        for match in _AUTHORIZATION.finditer(lowered) if "authorization" in lowered else ():
            results.append(self._result(match.start("value"), match.end("value"), self.KEYED_SCORE, "authorization"))
        for match in _keyed_matches(lowered):
            group = "quoted" if match.group("quoted") is not None else "bare"
            value = text[match.start(group) : match.end(group)]
            if _PLACEHOLDER.match(value):
                continue
            if match.group("separator").strip() == "is" and value.isalpha():
                continue  # prose: "the password is required", "token is expired"
            if _LOGIN_WORD.fullmatch(match.group("word")) is not None:
                if len(value) < _PASSWORD_MIN_CHARS or (value.isdigit() and len(value) < 8):
                    continue
                score, name = self.PASSWORD_SCORE, "password value"
            elif _looks_generated(value):
                score, name = self.KEYED_SCORE, "credential value"
            else:
                continue
            results.append(self._result(match.start(group), match.end(group), score, name))
        for match in _RANDOM_TOKEN.finditer(text) if _may_hold_random_token(text) else ():
            value = match.group()
            hex_key = _HEX.fullmatch(value) is not None  # a hex key: one case, entropy at most 4 bits per character
            if not (hex_key or _looks_random(value)):
                continue
            if self._named_a_credential(text, match.start(), match.end()):
                results.append(self._result(match.start(), match.end(), self.KEYED_SCORE, "random token by a key word"))
            elif _generated_wherever_it_stands(value, hex_key) and not self._named(
                    _IDENTIFIER_WORDS, _IDENTIFIER_WORDS, text, match.start(), match.end()):
                results.append(self._result(match.start(), match.end(), UNNAMED_SCORE, "random token"))
        return results

    @staticmethod
    def _named_a_credential(text: str, start: int, end: int) -> bool:
        """A credential word shortly before the token, shortly after it in its clause ("... is the deploy token",
        "... ist das Deploy-Token", "... est le jeton"), or naming its CSV column ("access_token", "client_secret")."""
        return SecretRecognizer._named(_TOKEN_WORDS, _TOKEN_COLUMN, text, start, end)

    @staticmethod
    def _named(words: re.Pattern[str], column_words: re.Pattern[str], text: str, start: int, end: int) -> bool:
        """One of ``words`` shortly before the token or after it in its clause, or ``column_words`` in the name
        of its CSV column."""
        if words.search(text, max(0, start - _TOKEN_CONTEXT_CHARS), start):
            return True
        if words.search(text, end, clause_after(text, end, _TOKEN_CONTEXT_CHARS)):
            return True
        column = column_name(text, start) if may_have_columns(text) else None
        return column is not None and column_words.search(column) is not None

    def _result(self, start: int, end: int, score: float, name: str) -> RecognizerResult:
        return RecognizerResult("SECRET", start, end, score, AnalysisExplanation(self.name, score, pattern_name=name))
