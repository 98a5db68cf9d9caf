"""A self-signed development certificate, generated once on first run when no certificate is configured."""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import socket
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

CERT_FILE = "tls/dev-cert.pem"
KEY_FILE = "tls/dev-key.pem"
VALID_DAYS = 365


def _subject_alt_names() -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = [x509.DNSName("localhost")]
    hostname = socket.gethostname()
    if hostname and hostname != "localhost":
        names.append(x509.DNSName(hostname))
    names += [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.IPAddress(ipaddress.ip_address("::1"))]
    return names


def generate_self_signed(cert_path: Path, key_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Warden development certificate")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(_subject_alt_names()), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        # Key identifiers and usages: strict X.509 verifiers (Python 3.13's default) refuse a cert without them.
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), critical=False)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, content_commitment=False,
                                     key_encipherment=False, data_encipherment=False, key_agreement=False,
                                     crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path.parent.mkdir(parents=True, exist_ok=True)
    key_bytes = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption())
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key_bytes)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _expires_soon(cert_path: Path) -> bool:
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    return cert.not_valid_after_utc < dt.datetime.now(dt.UTC) + dt.timedelta(days=7)


def ensure_certificate(data_dir: Path, cert: Path | None, key: Path | None) -> tuple[Path, Path]:
    """The configured pair if given; otherwise the development pair under data_dir (made or renewed as needed)."""
    if cert is not None or key is not None:
        if cert is None or key is None:
            raise ValueError("set both WARDEN_TLS_CERT and WARDEN_TLS_KEY, or neither")
        return cert, key
    cert_path, key_path = data_dir / CERT_FILE, data_dir / KEY_FILE
    if not (cert_path.exists() and key_path.exists()) or _expires_soon(cert_path):
        generate_self_signed(cert_path, key_path)
    return cert_path, key_path
