"""Offline verification of an export: needs only the file, its manifest and the public key.

Checks, in order: the manifest's signature; the file's size and SHA-256 against the manifest; then, reading the
file once in constant memory, every row's hash and its link to the previous row; each chain's first and last
sequence numbers, row count and hashes against the manifest; and the signed checkpoints the manifest carries
(each verified, each matching the row at its sequence number, and none beyond the end of an export that should
have reached it: rows deleted from the newest end of a chain). Every problem found is reported in words.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from gateway.audit.chain import GENESIS_HASH, canonical_json
from gateway.export.manifest import CHECKPOINT_TYPE, MANIFEST_TYPE, signed_bytes
from gateway.export.records import CSV_COLUMNS, LINK_FIELDS, parse_csv_row
from gateway.export.signing import key_id_of, signature_valid

READ_BYTES = 1024 * 1024


@dataclass(slots=True)
class ExportVerification:
    rows: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _file_digest(path: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as f:
        while block := f.read(READ_BYTES):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def _rows(path: Path, fmt: str) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(line number, row) or (line number, why the line is not a row)."""
    with path.open("rb") as raw:
        if fmt == "jsonl":
            for number, line in enumerate(raw, start=1):
                try:
                    row = json.loads(line)
                except ValueError:
                    yield number, "not a JSON object"
                    continue
                yield number, row if isinstance(row, dict) else "not a JSON object"
            return
        text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        reader = csv.reader(text)
        header = next(reader, None)
        if header != list(CSV_COLUMNS):
            yield 1, "the CSV header is not Warden's export header"
            return
        for cells in reader:
            try:
                yield reader.line_num, parse_csv_row(cells)
            except ValueError as exc:
                yield reader.line_num, f"malformed row ({exc})"


def _row_hash(row: dict[str, Any]) -> str:
    payload = {k: v for k, v in row.items() if k not in LINK_FIELDS}
    return hashlib.sha256(str(row["prev_hash"]).encode("ascii") + canonical_json(payload)).hexdigest()


@dataclass(slots=True)
class _ChainState:
    chain_id: str
    first_seq: int | None = None
    last_seq: int | None = None
    first_prev_hash: str | None = None
    last_hash: str | None = None
    rows: int = 0
    broken: bool = False
    hashes_at: dict[int, str] = field(default_factory=dict)  # row hashes at the checkpoints' seqs


def _check_signature(manifest: dict[str, Any], public_key: Ed25519PublicKey) -> str | None:
    if manifest.get("type") != MANIFEST_TYPE:
        return "the manifest is not a Warden export manifest"
    if manifest.get("key_id") != key_id_of(public_key):
        return "the manifest was signed with a different key than the public key given"
    if not signature_valid(public_key, signed_bytes(manifest), str(manifest.get("signature", ""))):
        return "the manifest signature does not verify: the manifest was altered or not signed by this key"
    return None


def _walk(path: Path, manifest: dict[str, Any], result: ExportVerification,
          watch: dict[str, set[int]]) -> dict[str, _ChainState]:
    chains: dict[str, _ChainState] = {}
    order = [c["chain_id"] for c in manifest.get("chains", [])]
    current: _ChainState | None = None
    for number, row in _rows(path, str(manifest.get("format"))):
        if isinstance(row, str):
            result.problems.append(f"line {number}: {row}")
            continue
        result.rows += 1
        chain_id, seq = str(row.get("chain_id")), row.get("seq")
        if not isinstance(seq, int) or "prev_hash" not in row or "record_hash" not in row:
            result.problems.append(f"line {number}: not an audit record row")
            continue
        if current is None or current.chain_id != chain_id:
            if chain_id in chains:
                result.problems.append(f"line {number}: chain {chain_id} resumes after another chain's rows")
            current = chains.setdefault(chain_id, _ChainState(chain_id))
            if chain_id not in order:
                result.problems.append(f"line {number}: chain {chain_id} is not in the manifest")
        state = current
        where = f"line {number} (chain {chain_id}, seq {seq})"
        if state.rows == 0:
            state.first_seq, state.first_prev_hash = seq, row["prev_hash"]
            if seq == 1 and row["prev_hash"] != GENESIS_HASH:
                result.problems.append(f"{where}: the first record of a chain must link to the genesis hash")
        elif not state.broken:
            assert state.last_seq is not None
            if seq != state.last_seq + 1:
                missing = "is missing" if seq > state.last_seq + 1 else "is out of order or repeated"
                result.problems.append(f"{where}: seq {state.last_seq + 1} {missing}: a record was deleted or moved")
                state.broken = True
            elif row["prev_hash"] != state.last_hash:
                result.problems.append(f"{where}: prev_hash does not match the previous record's hash")
                state.broken = True
        if _row_hash(row) != row["record_hash"] and not state.broken:
            result.problems.append(f"{where}: record content does not match its record_hash (edited)")
            state.broken = True
        state.rows += 1
        state.last_seq, state.last_hash = seq, row["record_hash"]
        if seq in watch.get(chain_id, ()):
            state.hashes_at[seq] = row["record_hash"]
    return chains


def _compare_parts(manifest: dict[str, Any], chains: dict[str, _ChainState], result: ExportVerification) -> None:
    for part in manifest.get("chains", []):
        chain_id = part["chain_id"]
        state = chains.get(chain_id)
        if state is None:
            result.problems.append(f"chain {chain_id}: the manifest lists {part['rows']} rows, the file has none")
            continue
        if state.rows != part["rows"] or state.last_seq != part["last_seq"]:
            result.problems.append(
                f"chain {chain_id}: the file holds {state.rows} rows ending at seq {state.last_seq}; the manifest "
                f"says {part['rows']} rows ending at seq {part['last_seq']} (rows removed or added)")
        elif state.last_hash != part["last_hash"]:
            result.problems.append(f"chain {chain_id}: the last record's hash differs from the manifest's head hash")
        if state.first_seq != part["first_seq"] or state.first_prev_hash != part["first_prev_hash"]:
            result.problems.append(f"chain {chain_id}: the file starts at seq {state.first_seq}; the manifest says "
                                   f"{part['first_seq']} (rows removed from the start)")
    if result.rows != manifest.get("row_count"):
        result.problems.append(f"the file holds {result.rows} rows; the manifest says {manifest.get('row_count')}")


def _parse_time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def _check_checkpoints(manifest: dict[str, Any], chains: dict[str, _ChainState], public_key: Ed25519PublicKey,
                       result: ExportVerification) -> None:
    end = _parse_time(manifest.get("to"))
    for checkpoint in manifest.get("checkpoints", []):
        chain_id, seq = checkpoint.get("chain_id"), checkpoint.get("seq")
        label = f"chain {chain_id}: signed checkpoint at seq {seq}"
        if (checkpoint.get("type") != CHECKPOINT_TYPE or checkpoint.get("key_id") != key_id_of(public_key)
                or not signature_valid(public_key, signed_bytes(checkpoint), str(checkpoint.get("signature", "")))):
            result.problems.append(f"{label}: its signature does not verify")
            continue
        state = chains.get(str(chain_id))
        if state is None or state.last_seq is None or state.first_seq is None or not isinstance(seq, int):
            continue
        if state.first_seq <= seq <= state.last_seq:
            if state.hashes_at.get(seq) != checkpoint["head_hash"]:
                result.problems.append(f"{label}: the record at that seq differs from the signed head hash")
        elif seq > state.last_seq:
            created = _parse_time(checkpoint.get("created_at"))
            if end is None or (created is not None and created < end):
                result.problems.append(
                    f"{label} ({checkpoint.get('created_at')}) says the chain had reached seq {seq}, but the export "
                    f"ends at seq {state.last_seq}: the newest records are missing (truncated)")


def verify_export(path: Path, manifest: dict[str, Any], public_key: Ed25519PublicKey) -> ExportVerification:
    result = ExportVerification()
    problem = _check_signature(manifest, public_key)
    if problem:
        result.problems.append(problem)
    digest, size = _file_digest(path)
    if digest != manifest.get("file_sha256") or size != manifest.get("file_bytes"):
        result.problems.append(f"the file's SHA-256 ({digest[:16]}…, {size} bytes) differs from the manifest's "
                               f"({str(manifest.get('file_sha256'))[:16]}…, {manifest.get('file_bytes')} bytes): "
                               "the file was altered, truncated or extended")
    watch: dict[str, set[int]] = {}
    for checkpoint in manifest.get("checkpoints", []):
        if isinstance(checkpoint.get("seq"), int):
            watch.setdefault(str(checkpoint.get("chain_id")), set()).add(checkpoint["seq"])
    chains = _walk(path, manifest, result, watch)
    _compare_parts(manifest, chains, result)
    _check_checkpoints(manifest, chains, public_key, result)
    return result
