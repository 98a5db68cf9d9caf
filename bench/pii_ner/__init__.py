"""The multilingual person/place NER the guardrails ship: its training data (``dataset``) and trainer (``train``)."""
