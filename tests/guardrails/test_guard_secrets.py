"""SECRET: issuer-prefixed tokens, JWTs, private key blocks and credential-named values; placeholders are not."""

import base64
import json
import random
import string

import pytest

from gateway.guardrails.credentials import SecretRecognizer, shannon_entropy

RNG = random.Random(29)


def rand(alphabet: str, length: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(length))


ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits


def b64url(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


AWS_ID = "AKIA" + rand(UPPER_DIGITS, 16)
AWS_SESSION_ID = "ASIA" + rand(UPPER_DIGITS, 16)
AWS_SECRET = rand(ALNUM + "/+", 40)
GITHUB = "ghp_" + rand(ALNUM, 36)
GITHUB_APP = "ghs_" + rand(ALNUM, 36)
GITHUB_PAT = "github_pat_" + rand(ALNUM + "_", 82)
GITLAB = "glpat-" + rand(ALNUM + "-_", 20)
SLACK = f"xoxb-{rand(string.digits, 12)}-{rand(string.digits, 13)}-{rand(ALNUM, 24)}"
JWT = f"{b64url({'alg': 'HS256', 'typ': 'JWT'})}.{b64url({'sub': 'u-81', 'exp': 1767225600})}.{rand(ALNUM + '-_', 43)}"
PEM_BODY = "\n".join(rand(ALNUM + "+/", 64) for _ in range(5)) + "\n" + rand(ALNUM + "+/", 20) + "=="
PEM = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----"
API_KEY = rand(string.hexdigits.lower()[:16], 32)
PASSWORD = "Blue-Heron!42"


def found(text: str) -> list[str]:
    return sorted({text[r.start : r.end] for r in SecretRecognizer().analyze(text, []) if r.score >= 0.5})


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"export AWS_ACCESS_KEY_ID={AWS_ID}", AWS_ID),
        (f"creds: {AWS_SESSION_ID} (temporary)", AWS_SESSION_ID),
        (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
        (f"git remote set-url origin https://{GITHUB}@github.com/acme/app.git", GITHUB),
        (f"installation token {GITHUB_APP} expires in 1h", GITHUB_APP),
        (f"GH_TOKEN={GITHUB_PAT}", GITHUB_PAT),
        (f"curl --header 'PRIVATE-TOKEN: {GITLAB}' https://gitlab.example.com/api/v4/projects", GITLAB),
        (f"slack bot: {SLACK}", SLACK),
        (f"Authorization: Bearer {JWT}", JWT),
        (f'{{"id_token": "{JWT}"}}', JWT),
        (f"key file:\n{PEM}\nend of paste", PEM),
        (f'{{"api_key": "{API_KEY}", "region": "eu-west-1"}}', API_KEY),
        (f"client_secret: {API_KEY}\nclient_id: web", API_KEY),
        (f"DB_PASSWORD={PASSWORD}", PASSWORD),
        (f'password: "{PASSWORD}"', PASSWORD),
        (f"my password is {PASSWORD} don't tell", PASSWORD),
        (f"<add key=\"SigningKey\" value=\"x\" /> signing_key => '{API_KEY}'", API_KEY),
        (f"Voici la clé : {AWS_SECRET} merci", AWS_SECRET),
        (f"Nutze diesen Schlüssel: {AWS_SECRET}", AWS_SECRET),
        (f"Key: {API_KEY}\nAcme Ltd", API_KEY),
    ],
)
def test_credentials_are_found_as_their_value(text: str, secret: str) -> None:
    assert secret in found(text)


def test_a_truncated_private_key_block_is_masked_to_the_end() -> None:
    text = f"here:\n-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY[:130]}"
    block = text[text.index("-----BEGIN") :]
    assert block in found(text)
    assert all(value in block for value in found(text))  # its 64-character body lines, found on their own too


@pytest.mark.parametrize(
    "text",
    [
        "password: ${DB_PASSWORD}",
        "api_key = os.environ['API_KEY']",
        'token: "<your token here>"',
        "password=********",
        "secret_key: null",
        "the password is required",
        "token is expired",
        "max_tokens=4096",
        "token_count: 1834",
        "api_key: YOUR_API_KEY",
        "sort key: created_at",
        "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "commit 3f2c1e7b9a0d4c6e8f1a2b3c4d5e6f708192a3b4",
        "request id 7c9e6679-7425-40de-944b-e07fc1f90ae7",
        "-----BEGIN CERTIFICATE-----",
        "keyboard layout: us-intl",
        "PASSENGER: OKAFOR/CHIDI MR",
        "passport_no = 91x-2215-77",
        "passage = Ulmenweg-Nord",
    ],
)
def test_placeholders_and_look_alikes_are_no_secrets(text: str) -> None:
    assert found(text) == []


def test_generated_values_have_high_entropy_and_words_do_not() -> None:
    assert shannon_entropy(API_KEY) > 3.5
    assert shannon_entropy("aaaaaaaaaaaa") == 0


KEY_24_BYTES = RNG.randbytes(24).hex()  # 48 hex digits: no hash function's digest is that long
BASE62_KEY = rand(ALNUM, 40)
LETTERS_KEY = "".join(RNG.choice(string.ascii_uppercase if i % 2 else string.ascii_lowercase) for i in range(32))


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"here u go {BASE62_KEY} dont lose it", BASE62_KEY),  # no word names it: base62 with digits mixed in
        (f"here u go {AWS_SECRET}", AWS_SECRET),
        (f"use {KEY_24_BYTES} for staging", KEY_24_BYTES),
        (f"key is {LETTERS_KEY} dont share", LETTERS_KEY),  # letters only, case mixed at random, named a key
    ],
)
def test_random_tokens_no_word_names_and_letters_only_keys(text: str, secret: str) -> None:
    assert secret in found(text)


@pytest.mark.parametrize(
    "text",
    [
        f"md5 {RNG.randbytes(16).hex()} sha1 {RNG.randbytes(20).hex()} sha512 {RNG.randbytes(64).hex()}",  # digests
        f'"integrity": "sha512-{base64.b64encode(RNG.randbytes(64)).decode()}"',  # a digest, base64
        "class AbstractSingletonProxyFactoryBean2 extends HttpServletRequestWrapperFactory4",  # words run together
        "/usr/lib/python3/dist-packages/setuptools/command/build_py.py",
        f"payload {base64.b64encode(RNG.randbytes(32)).decode()}",  # padded: encoded data
        f"key is {'getUserAccountSettingsForTenantAdmin'} in the cache",  # words run together, named a key
    ],
)
def test_digests_encoded_data_and_identifiers_are_no_unnamed_secrets(text: str) -> None:
    assert found(text) == []
