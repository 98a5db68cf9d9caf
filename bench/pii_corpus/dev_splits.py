"""The dev-side corpora beyond `dev`, by split name, and which of them are blind.

They are generated each time from their seeds, never committed as JSONL. The blind ones (``BLIND_SPLITS``, dev-15 on)
were written without reading any phrase bank or cue list; no training sample of the multilingual NER may read them
(``SHAPED_SPLITS`` is what ``bench.pii_ner`` trains on), so that they keep scoring how the detectors generalise.
"""

from __future__ import annotations

from collections.abc import Callable

from bench.pii_corpus import (
    dev_eighteenth,
    dev_eighth,
    dev_eleventh,
    dev_fifteenth,
    dev_fifth,
    dev_fourteenth,
    dev_fourth,
    dev_nineteenth,
    dev_ninth,
    dev_seventeenth,
    dev_seventh,
    dev_sixteenth,
    dev_sixth,
    dev_tenth,
    dev_third,
    dev_thirteenth,
    dev_twelfth,
    dev_twentieth,
    dev_twentyfifth,
    dev_twentyfirst,
    dev_twentyfourth,
    dev_twentysecond,
    dev_twentyseventh,
    dev_twentysixth,
    dev_twentythird,
    fresh_dev,
)
from bench.pii_corpus.model import Case

# Each generator takes its own keyword arguments (`seed` among them); called bare it writes the split the bench scores.
Generator = Callable[..., list[Case]]

GENERATED_SPLITS: dict[str, Generator] = {
    fresh_dev.NAME: fresh_dev.generate_fresh_dev,
    dev_third.NAME: dev_third.generate_third_dev,
    dev_fourth.NAME: dev_fourth.generate_fourth_dev,
    dev_fifth.NAME: dev_fifth.generate_fifth_dev,
    dev_sixth.NAME: dev_sixth.generate_sixth_dev,
    dev_seventh.NAME: dev_seventh.generate_seventh_dev,
    dev_eighth.NAME: dev_eighth.generate_eighth_dev,
    dev_ninth.NAME: dev_ninth.generate_ninth_dev,
    dev_tenth.NAME: dev_tenth.generate_tenth_dev,
    dev_eleventh.NAME: dev_eleventh.generate_eleventh_dev,
    dev_twelfth.NAME: dev_twelfth.generate_twelfth_dev,
    dev_thirteenth.NAME: dev_thirteenth.generate_thirteenth_dev,
    dev_fourteenth.NAME: dev_fourteenth.generate_fourteenth_dev,
    dev_fifteenth.NAME: dev_fifteenth.generate_fifteenth_dev,
    dev_sixteenth.NAME: dev_sixteenth.generate_sixteenth_dev,
    dev_seventeenth.NAME: dev_seventeenth.generate_seventeenth_dev,
    dev_eighteenth.NAME: dev_eighteenth.generate_eighteenth_dev,
    dev_nineteenth.NAME: dev_nineteenth.generate_nineteenth_dev,
    dev_twentieth.NAME: dev_twentieth.generate_twentieth_dev,
    dev_twentyfirst.NAME: dev_twentyfirst.generate_twentyfirst_dev,
    dev_twentysecond.NAME: dev_twentysecond.generate_twentysecond_dev,
    dev_twentythird.NAME: dev_twentythird.generate_twentythird_dev,
    dev_twentyfourth.NAME: dev_twentyfourth.generate_twentyfourth_dev,
    dev_twentyfifth.NAME: dev_twentyfifth.generate_twentyfifth_dev,
    dev_twentysixth.NAME: dev_twentysixth.generate_twentysixth_dev,
    dev_twentyseventh.NAME: dev_twentyseventh.generate_twentyseventh_dev,
}
BLIND_SPLITS = frozenset({
    dev_fifteenth.NAME, dev_sixteenth.NAME, dev_seventeenth.NAME, dev_eighteenth.NAME, dev_nineteenth.NAME,
    dev_twentieth.NAME, dev_twentyfirst.NAME, dev_twentysecond.NAME, dev_twentythird.NAME, dev_twentyfourth.NAME,
    dev_twentyfifth.NAME, dev_twentysixth.NAME, dev_twentyseventh.NAME,
})  # fmt: skip
SHAPED_SPLITS: dict[str, Generator] = {name: generate for name, generate in GENERATED_SPLITS.items()
                                       if name not in BLIND_SPLITS}  # fmt: skip
