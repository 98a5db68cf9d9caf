"""The prompt-injection classifier's offline tooling: the dataset generator and the trainer.

    python -m bench.injection.train

The gateway never imports this package (tests/test_import_arrows.py enforces it): at run time it loads only the
trained weights, gateway/guardrails/injection/data/model.npz.
"""
