"""The ONNX injection backend against a real (tiny) ONNX classifier built with onnx.helper and run by onnxruntime."""

import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper  # noqa: E402
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers  # noqa: E402

from gateway.guardrails import GuardConfig, InputGuard  # noqa: E402
from gateway.guardrails.injection import (  # noqa: E402
    InjectionDetector,
    InjectionModelError,
    OnnxInjectionClassifier,
)
from gateway.guardrails.injection.features import chunks  # noqa: E402
from policies import InjectionAction, InjectionRules, PiiRules, Policy  # noqa: E402

# Words the phrase rules know nothing about, so a verdict on them comes from the ONNX model alone.
VOCAB = ["[UNK]", "[PAD]", "banana", "smoothie", "the", "weather", "is", "nice", "today", "warden", "start-up",
         "check", "of", "injection", "model", "."]  # fmt: skip
# Per token: [benign logit, injection logit]. The model mean-pools them over the attention mask.
TABLE = np.zeros((len(VOCAB), 2), dtype=np.float32)
TABLE[VOCAB.index("banana")] = [-3.0, 5.0]
TABLE[VOCAB.index("smoothie")] = [-1.0, 2.0]
TABLE[VOCAB.index("weather")] = [2.0, -1.0]
TABLE[VOCAB.index("nice")] = [1.0, -0.5]
BIAS = np.array([0.5, -0.5], dtype=np.float32)


def write_tokenizer(path: Path) -> Tokenizer:
    tokenizer = Tokenizer(models.WordLevel({word: i for i, word in enumerate(VOCAB)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.save(str(path))
    return tokenizer


def write_model(path: Path, *, labels: int = 2, with_mask: bool = True) -> None:
    """logits = mean over unmasked tokens of TABLE[token] + BIAS: an embedding-bag classifier, [batch, labels]."""
    table, bias = TABLE[:, :labels], BIAS[:labels]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])]
    if with_mask:
        inputs.append(helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]))
    nodes = [helper.make_node("Gather", ["table", "input_ids"], ["embedded"])]  # [batch, seq, labels]
    if with_mask:
        nodes += [
            helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["mask", "axis2"], ["mask3"]),
            helper.make_node("Mul", ["embedded", "mask3"], ["masked"]),
            helper.make_node("ReduceSum", ["masked", "axis1"], ["summed"], keepdims=0),
            helper.make_node("ReduceSum", ["mask", "axis1"], ["count"], keepdims=1),
            helper.make_node("Max", ["count", "one"], ["safe_count"]),
            helper.make_node("Div", ["summed", "safe_count"], ["pooled"]),
        ]
    else:
        nodes.append(helper.make_node("ReduceMean", ["embedded"], ["pooled"], axes=[1], keepdims=0))
    nodes.append(helper.make_node("Add", ["pooled", "bias"], ["logits"]))
    graph = helper.make_graph(
        nodes,
        "tiny-injection-classifier",
        inputs,
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", labels])],
        initializer=[
            helper.make_tensor("table", TensorProto.FLOAT, table.shape, table.flatten().tolist()),
            helper.make_tensor("bias", TensorProto.FLOAT, bias.shape, bias.tolist()),
            helper.make_tensor("axis1", TensorProto.INT64, [1], [1]),
            helper.make_tensor("axis2", TensorProto.INT64, [1], [2]),
            helper.make_tensor("one", TensorProto.FLOAT, [], [1.0]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def expected_probability(tokenizer: Tokenizer, text: str) -> float:
    """The same computation in numpy, per 1500-character chunk, maximum over chunks."""
    best = 0.0
    for chunk in chunks(text, size=1500, overlap=200):
        ids = tokenizer.encode(chunk).ids
        logits = TABLE[ids].mean(axis=0) + BIAS
        probabilities = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
        best = max(best, float(probabilities[1]))
    return best


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "tiny-injection"
    directory.mkdir()
    write_model(directory / "model.onnx")
    write_tokenizer(directory / "tokenizer.json")
    return directory


def test_backend_scores_match_the_model(model_dir):
    classifier = OnnxInjectionClassifier(model_dir)
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    assert classifier.name == "onnx:tiny-injection"
    for text in ["banana banana smoothie", "the weather is nice today", "Banana", "unknown words only"]:
        assert classifier.probability(text) == pytest.approx(expected_probability(tokenizer, text), abs=1e-5)
    assert classifier.probability("banana banana smoothie") > 0.95
    assert classifier.probability("the weather is nice today") < 0.2


def test_long_text_is_the_maximum_over_padded_chunks(model_dir):
    """Chunks of different token counts share one padded batch; padding must not change any chunk's score."""
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    text = "the weather is nice today " * 120 + "banana smoothie " * 30 + "nice " * 10
    assert len(chunks(text, size=1500, overlap=200)) > 2
    score = OnnxInjectionClassifier(model_dir).probability(text)
    assert score == pytest.approx(expected_probability(tokenizer, text), abs=1e-5)
    assert score > 0.5 > OnnxInjectionClassifier(model_dir).probability("the weather is nice today " * 120)


def test_model_without_attention_mask_input_is_fed_input_ids_only(tmp_path):
    write_model(tmp_path / "model.onnx", with_mask=False)
    tokenizer = write_tokenizer(tmp_path / "tokenizer.json")
    text = "banana weather"
    assert OnnxInjectionClassifier(tmp_path).probability(text) == pytest.approx(
        expected_probability(tokenizer, text), abs=1e-5
    )


def test_detector_and_guard_decide_with_the_onnx_model(model_dir):
    detector = InjectionDetector(OnnxInjectionClassifier(model_dir))
    verdict = detector.score("banana banana smoothie")
    assert verdict.score > 0.95 and verdict.signals == ("onnx:tiny-injection",)
    assert detector.score("the weather is nice today").signals == ()

    guard = InputGuard(b"secret", config=GuardConfig(injection_onnx_dir=model_dir))
    policy = Policy(pii_input=PiiRules(entities={}, ner_enabled=False),
                    injection=InjectionRules(action=InjectionAction.BLOCK))
    blocked = guard.scan_messages_sync("t1", [{"role": "user", "content": "banana banana smoothie"}], policy)
    assert blocked.blocked and "prompt injection" in (blocked.block_reason or "")
    record = next(d for d in blocked.decisions if d["kind"] == "injection")
    assert record["action"] == "block" and record["signals"] == ["onnx:tiny-injection"]
    allowed = guard.scan_messages_sync("t1", [{"role": "user", "content": "the weather is nice today"}], policy)
    assert not allowed.blocked and allowed.injection_score < 0.2


def test_missing_onnxruntime_is_a_startup_error(model_dir, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime now raises ImportError
    with pytest.raises(InjectionModelError, match="needs the onnxruntime package"):
        InputGuard(b"secret", config=GuardConfig(injection_onnx_dir=model_dir))


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        (lambda d: (d / "model.onnx").unlink(), "has no model.onnx"),
        (lambda d: (d / "tokenizer.json").unlink(), "has no tokenizer.json"),
        (lambda d: (d / "model.onnx").write_bytes(b"not a model"), "cannot load .*model.onnx"),
        (lambda d: (d / "tokenizer.json").write_text("{"), "cannot load .*tokenizer.json"),
        (lambda d: write_model(d / "model.onnx", labels=1), r"logits of shape \[1, 1\]"),
    ],
    ids=["no-model", "no-tokenizer", "corrupt-model", "corrupt-tokenizer", "one-label"],
)
def test_bad_model_dir_is_a_startup_error(model_dir, breakage, message):
    breakage(model_dir)
    with pytest.raises(InjectionModelError, match=message):
        InputGuard(b"secret", config=GuardConfig(injection_onnx_dir=model_dir))


def test_missing_directory_is_a_startup_error(tmp_path):
    with pytest.raises(InjectionModelError, match=r"has no model\.onnx"):
        InputGuard(b"secret", config=GuardConfig(injection_onnx_dir=tmp_path / "absent"))


async def test_gateway_settings_select_the_onnx_model(model_dir, monkeypatch):
    from gateway.app import _build_guardrails
    from gateway.core.errors import APIError
    from gateway.core.settings import Settings

    monkeypatch.setenv("WARDEN_INJECTION_ONNX_DIR", str(model_dir))
    guard_in, _guard_out, _close = _build_guardrails(b"secret", Settings(_env_file=None))
    policy = Policy(pii_input=PiiRules(entities={}, ner_enabled=False),
                    injection=InjectionRules(action=InjectionAction.BLOCK))
    with pytest.raises(APIError, match="prompt injection") as blocked:  # the words only the ONNX model flags
        await guard_in.screen_input([{"role": "user", "content": "banana banana smoothie"}], tenant_id="t1",
                                    policy=policy)
    assert blocked.value.status == 400
    await guard_in.screen_input([{"role": "user", "content": "the weather is nice today"}], tenant_id="t1",
                                policy=policy)

    monkeypatch.setenv("WARDEN_INJECTION_ONNX_DIR", str(model_dir / "absent"))
    with pytest.raises(InjectionModelError, match=r"has no model\.onnx"):
        _build_guardrails(b"secret", Settings(_env_file=None))
