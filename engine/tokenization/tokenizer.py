"""The tokenizer: a ``tokenizers`` pipeline built from ``tokenizer.json`` or from GGUF ``tokenizer.ggml.*``
metadata, plus the chat template. Satisfies ``engine.protocol.TokenizerLike``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from gguf import GGUFReader
from tokenizers import AddedToken, Regex, decoders, models, pre_tokenizers
from tokenizers import Tokenizer as FastTokenizer

from engine.errors import UnknownModelError
from engine.loader.source import ModelSource
from engine.tokenization.chat_template import ChatTemplate

_CONTROL, _USER_DEFINED = 3, 4
# llama.cpp's pre-tokenizer regexes for byte-level BPE vocabularies (``tokenizer.ggml.pre``).
_LLAMA3_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_QWEN2_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_SPLITS = {"llama3": _LLAMA3_SPLIT, "llama-bpe": _LLAMA3_SPLIT, "llama-v3": _LLAMA3_SPLIT, "qwen2": _QWEN2_SPLIT}
# StarCoder-family vocabularies (SmolLM's) split every digit before GPT-2's byte-level regex.
_DIGIT_SPLIT_PRES = {"smollm", "starcoder", "refact", "codeshell"}


@lru_cache(maxsize=1)
def _byte_decoder() -> dict[str, int]:
    """GPT-2's printable stand-in character for each byte, inverted."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs, strict=True)}


def _gguf_fast_tokenizer(reader: GGUFReader) -> tuple[FastTokenizer, bool]:
    from engine.loader.gguf_loader import field_value  # imports torch: only on a metadata cache miss

    kind = field_value(reader, "tokenizer.ggml.model")
    tokens: list[str] = field_value(reader, "tokenizer.ggml.tokens", [])
    types: list[int] = field_value(reader, "tokenizer.ggml.token_type", [])
    merges = field_value(reader, "tokenizer.ggml.merges")
    if kind not in ("gpt2", "llama") or not merges:
        raise UnknownModelError(f"unsupported GGUF tokenizer {kind!r} (byte-level or SentencePiece BPE with merges)")
    vocab = {tok: i for i, tok in enumerate(tokens)}
    pairs = [tuple(m.split(" ", 1)) for m in merges]
    if kind == "gpt2":
        fast = FastTokenizer(models.BPE(vocab=vocab, merges=pairs, fuse_unk=False))
        pre = field_value(reader, "tokenizer.ggml.pre", "default")
        if pre in _SPLITS:
            fast.pre_tokenizer = pre_tokenizers.Sequence(
                [pre_tokenizers.Split(Regex(_SPLITS[pre]), behavior="isolated"),
                 pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
            )
        elif pre in _DIGIT_SPLIT_PRES:
            fast.pre_tokenizer = pre_tokenizers.Sequence(
                [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
            )
        else:
            fast.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        fast.decoder = decoders.ByteLevel()
    else:  # SentencePiece BPE (Llama 2, Mistral): metaspace + byte fallback
        unk = field_value(reader, "tokenizer.ggml.unknown_token_id", 0)
        fast = FastTokenizer(models.BPE(vocab=vocab, merges=pairs, unk_token=tokens[unk], byte_fallback=True,
                                        fuse_unk=True))
        prepend = "first" if field_value(reader, "tokenizer.ggml.add_space_prefix", True) else "never"
        fast.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme=prepend, split=False)
        fast.decoder = decoders.Sequence(
            [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()]
            + ([decoders.Strip(" ", 1, 0)] if prepend == "first" else [])
        )
    fast.add_special_tokens(
        [AddedToken(t, special=True, normalized=False) for t, ty in zip(tokens, types, strict=False) if ty == _CONTROL]
    )
    fast.add_tokens(
        [AddedToken(t, special=False, normalized=False) for t, ty in zip(tokens, types, strict=False)
         if ty == _USER_DEFINED]
    )
    return fast, kind == "gpt2"


def gguf_tokenizer_parts(reader: GGUFReader) -> tuple[FastTokenizer, dict[str, Any]]:
    """The pipeline and ``Tokenizer``'s other keyword arguments (JSON values) from a GGUF file's metadata."""
    from engine.loader.gguf_loader import field_value  # imports torch: only on a metadata cache miss

    fast, byte_level = _gguf_fast_tokenizer(reader)
    eos = field_value(reader, "tokenizer.ggml.eos_token_id")
    eot = field_value(reader, "tokenizer.ggml.eot_token_id")
    bos = field_value(reader, "tokenizer.ggml.bos_token_id")
    pad = field_value(reader, "tokenizer.ggml.padding_token_id")
    return fast, {
        "chat_template": field_value(reader, "tokenizer.chat_template"),
        "bos_token_id": None if bos is None else int(bos),
        "eos_token_ids": [int(t) for t in (eos, eot) if t is not None],
        "add_bos_token": bool(field_value(reader, "tokenizer.ggml.add_bos_token", False)),
        "byte_level": byte_level,
        "pad_token_id": None if pad is None else int(pad),
    }


class Tokenizer:
    """Encode, decode and chat-template rendering for one model."""

    def __init__(
        self,
        fast: FastTokenizer,
        *,
        chat_template: str | None,
        bos_token_id: int | None,
        eos_token_ids: list[int],
        add_bos_token: bool,
        byte_level: bool,
        pad_token_id: int | None = None,
    ) -> None:
        self._fast = fast
        self.chat_template = chat_template
        self.bos_token_id = bos_token_id
        self.eos_token_ids = list(dict.fromkeys(eos_token_ids))
        self.add_bos_token = add_bos_token
        self.byte_level = byte_level
        self.pad_token_id = pad_token_id
        self.vocab_size = fast.get_vocab_size(with_added_tokens=True)
        self.all_special_ids = {i for i, t in fast.get_added_tokens_decoder().items() if t.special}
        self._token_text: dict[int, str] = {}
        # The template's special-token variables, looked up once: every chat call renders with them.
        self._special_tokens = self._special_tokens_map()
        self._template: ChatTemplate | None = None

    # --- construction -----------------------------------------------------------------------------
    @classmethod
    def from_source(cls, source: ModelSource) -> Tokenizer:
        if source.kind == "gguf":
            # Built once per file and cached (engine.loader.gguf_metadata): parsing the vocabulary takes seconds.
            from engine.loader.gguf_metadata import read_gguf_metadata

            metadata = read_gguf_metadata(source.path)
            return cls(FastTokenizer.from_str(metadata.tokenizer_json), **metadata.tokenizer_fields)
        return cls.from_hf_dir(source.path)

    @classmethod
    def from_gguf(cls, reader: GGUFReader) -> Tokenizer:
        fast, fields = gguf_tokenizer_parts(reader)
        return cls(fast, **fields)

    @classmethod
    def from_hf_dir(cls, directory: Path) -> Tokenizer:
        path = directory / "tokenizer.json"
        if not path.is_file():
            raise UnknownModelError(f"{directory} has no tokenizer.json")
        fast = FastTokenizer.from_file(str(path))
        cfg_path = directory / "tokenizer_config.json"
        cfg: dict[str, Any] = json.loads(cfg_path.read_text()) if cfg_path.is_file() else {}
        template = cfg.get("chat_template")
        if isinstance(template, list):  # named templates: use "default"
            template = next((t["template"] for t in template if t.get("name") == "default"), None)
        jinja_path = directory / "chat_template.jinja"
        if template is None and jinja_path.is_file():
            template = jinja_path.read_text()

        def token_id(key: str) -> int | None:
            tok = cfg.get(key)
            tok = tok.get("content") if isinstance(tok, dict) else tok
            return None if tok is None else fast.token_to_id(tok)

        eos_ids = [i for i in [token_id("eos_token")] if i is not None]
        gen_path = directory / "generation_config.json"
        if gen_path.is_file():
            gen_eos = json.loads(gen_path.read_text()).get("eos_token_id")
            eos_ids += [] if gen_eos is None else ([gen_eos] if isinstance(gen_eos, int) else list(gen_eos))
        pre = json.dumps(json.loads(path.read_text()).get("decoder") or {})
        return cls(
            fast,
            chat_template=template,
            bos_token_id=token_id("bos_token"),
            eos_token_ids=eos_ids,
            add_bos_token=bool(cfg.get("add_bos_token", False)),
            byte_level="ByteLevel" in pre,
            pad_token_id=token_id("pad_token"),
        )

    @property
    def backend(self) -> FastTokenizer:
        """The underlying ``tokenizers.Tokenizer`` (for grammar engines that need the whole vocabulary)."""
        return self._fast

    # --- TokenizerLike ----------------------------------------------------------------------------
    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        ids = self._fast.encode(text, add_special_tokens=False).ids
        if add_special_tokens and self.add_bos_token and self.bos_token_id is not None:
            ids = [self.bos_token_id, *ids]
        return ids

    def decode(self, token_ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        return self._fast.decode(list(token_ids), skip_special_tokens=skip_special_tokens)

    def apply_chat_template(
        self,
        messages: list[dict[str, Any]],
        *,
        add_generation_prompt: bool = True,
        tools: list[dict[str, Any]] | None = None,
    ) -> str:
        if not self.chat_template:
            raise UnknownModelError("this model has no chat template")
        template = self._template
        if template is None or template.source is not self.chat_template:
            template = self._template = ChatTemplate(self.chat_template, self._special_tokens)
        return template.render(messages, add_generation_prompt=add_generation_prompt, tools=tools)

    # --- helpers ----------------------------------------------------------------------------------
    def special_tokens_map(self) -> dict[str, str | None]:
        return dict(self._special_tokens)

    def _special_tokens_map(self) -> dict[str, str | None]:
        def text(i: int | None) -> str | None:
            return None if i is None else self._fast.id_to_token(i)

        return {
            "bos_token": text(self.bos_token_id),
            "eos_token": text(self.eos_token_ids[0] if self.eos_token_ids else None),
            "pad_token": text(self.pad_token_id),
        }

    def token_text(self, token_id: int) -> str:
        """The text of one token on its own (for logprobs); cached."""
        text = self._token_text.get(token_id)
        if text is None:
            text = self._fast.decode([token_id], skip_special_tokens=False)
            self._token_text[token_id] = text
        return text

    def token_bytes(self, token_id: int) -> list[int]:
        """The exact bytes a token stands for (a byte-level token may hold part of a UTF-8 character)."""
        piece = self._fast.id_to_token(token_id) or ""
        if self.byte_level and token_id not in self.all_special_ids:
            table = _byte_decoder()
            if all(ch in table for ch in piece):
                return [table[ch] for ch in piece]
        return list(self.token_text(token_id).encode("utf-8"))

    def convert_ids_to_tokens(self, token_ids: Sequence[int]) -> list[str]:
        return [self._fast.id_to_token(i) or "" for i in token_ids]
