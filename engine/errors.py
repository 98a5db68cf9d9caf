"""Exceptions the engine raises; the gateway maps each to an HTTP status."""


class EngineError(Exception):
    """Base class for every error the engine reports to a caller."""


class InvalidRequestError(EngineError, ValueError):
    """The request itself is malformed (maps to HTTP 400)."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


class EmptyPromptError(InvalidRequestError):
    """The prompt has no tokens."""


class PromptTooLongError(InvalidRequestError):
    """prompt tokens (+ max_tokens) exceed ``max_model_len``."""


class UnknownModelError(EngineError, LookupError):
    """The requested model is not served by this engine (maps to HTTP 404)."""


class EngineDeadError(EngineError, RuntimeError):
    """The engine process died or is shutting down (maps to HTTP 503)."""
