"""``ErrorInfo``: an engine exception as data, as the core sends it to a caller (``("failed", ErrorInfo)``,
``("rejected", request_id, ErrorInfo)``).

Its own light module, so that a caller unpickling one (the gateway's engine client, on its event loop) imports
``engine.errors`` only, never the core and torch behind it.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import errors


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """An exception as data: exception classes with extra constructor arguments do not always unpickle."""

    kind: str  # class name in engine.errors (or a builtin) to re-raise as
    message: str
    param: str | None = None

    @classmethod
    def of(cls, exc: BaseException) -> ErrorInfo:
        kind = type(exc).__name__
        for klass in type(exc).__mro__:  # subclasses defined elsewhere map to their engine.errors ancestor
            if getattr(errors, klass.__name__, None) is klass:
                kind = klass.__name__
                break
        return cls(kind, str(exc), getattr(exc, "param", None))

    def to_exception(self) -> Exception:
        klass = getattr(errors, self.kind, None)
        if isinstance(klass, type) and issubclass(klass, errors.InvalidRequestError):
            return klass(self.message, param=self.param)
        if isinstance(klass, type) and issubclass(klass, errors.EngineError):
            return klass(self.message)
        return errors.EngineError(f"{self.kind}: {self.message}")
