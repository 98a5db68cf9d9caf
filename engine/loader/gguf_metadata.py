"""A GGUF file's architecture and tokenizer, read once and kept in a small cache file.

``gguf``'s reader parses every metadata field in Python on open, the vocabulary and merges included (SmolLM2's
49k tokens and 49k merges: 4-8 s on a shared CPU core), and building the ``tokenizers`` pipeline from them takes
seconds more. An engine start needs the architecture and the tokenizer in the gateway and again in the engine
process; a restart needs them again. So both are read from the file once and kept as JSON (the architecture's
fields, the tokenizer as ``tokenizers``' own serialisation and the fields the tokenizer needs beside it) under
``$XDG_CACHE_HOME/warden/gguf`` (``~/.cache/warden/gguf``), keyed by the file's path, size, modification time and
this module's format version; within a process the result is kept in memory too. Where the cache cannot be written
(a read-only home) the file is read each time, as without it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.models.config import ModelArchConfig

log = logging.getLogger(__name__)
FORMAT_VERSION = 1  # bump when what is cached, or how it is derived from the file, changes


@dataclass(frozen=True)
class GGUFMetadata:
    arch: ModelArchConfig
    tokenizer_json: str  # ``tokenizers.Tokenizer.to_str()``
    tokenizer_fields: dict[str, Any]  # engine.tokenization.tokenizer.Tokenizer's keyword arguments beside the pipeline

    def to_json(self) -> str:
        return json.dumps({"version": FORMAT_VERSION, "arch": dataclasses.asdict(self.arch),
                           "tokenizer_json": self.tokenizer_json, "tokenizer_fields": self.tokenizer_fields})

    @classmethod
    def from_json(cls, text: str) -> GGUFMetadata:
        data = json.loads(text)
        if data.get("version") != FORMAT_VERSION:
            raise ValueError("another format version")
        return cls(ModelArchConfig(**data["arch"]), data["tokenizer_json"], data["tokenizer_fields"])


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "warden" / "gguf"


def cache_key(path: Path) -> str:
    """The file's identity: a changed (rewritten, replaced) file has another size or modification time."""
    resolved = path.resolve()
    stat = resolved.stat()
    identity = f"{FORMAT_VERSION}\0{resolved}\0{stat.st_size}\0{stat.st_mtime_ns}"
    return hashlib.sha256(identity.encode()).hexdigest()[:32]


def read_gguf_metadata(path: Path) -> GGUFMetadata:
    """The architecture and tokenizer of the GGUF file at ``path``: from memory, the cache file, or the file.
    Raises ``UnknownModelError`` for a file that cannot be read or that Warden cannot serve."""
    return _read(path.resolve(), cache_key(path))


@lru_cache(maxsize=4)
def _read(path: Path, key: str) -> GGUFMetadata:
    cached = cache_dir() / f"{key}.json"
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        return GGUFMetadata.from_json(cached.read_text())
    metadata = _from_file(path)
    _store(cached, metadata)
    return metadata


def _from_file(path: Path) -> GGUFMetadata:
    from engine.loader.gguf_loader import gguf_arch_config, open_gguf
    from engine.tokenization.tokenizer import gguf_tokenizer_parts

    reader = open_gguf(path)
    fast, fields = gguf_tokenizer_parts(reader)
    return GGUFMetadata(gguf_arch_config(reader), fast.to_str(), fields)


def _store(target: Path, metadata: GGUFMetadata) -> None:
    """Write the cache file atomically (a reader sees the whole file or none); a failure only costs the next start
    the file's parse."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(metadata.to_json())
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError as exc:
        log.warning("cannot cache GGUF metadata under %s (%s); the file is parsed at each start", target.parent, exc)
