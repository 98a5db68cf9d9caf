"""Whether an object's class implements a runtime-checkable Protocol, answered once per class.

``isinstance(obj, SomeProtocol)`` walks the protocol's members on every call (about 25 µs on Python 3.11); the
request path asks the same question of the same few classes on every request (does this surface recall state, does
this engine report stats). The protocols checked here are made of methods, which a class defines, so the answer for
a class holds for all its instances.
"""

from __future__ import annotations

from typing import Any, Generic, TypeGuard, TypeVar

T = TypeVar("T")
MAX_CLASSES = 1024  # bounded: tests build many throwaway classes


class ClassCheck(Generic[T]):
    """``check(obj)`` is ``issubclass(type(obj), protocol)``, remembered per class. ``protocol``: a runtime-checkable
    Protocol of methods only (typed ``Any``: mypy takes no Protocol class as a value of ``type[T]``)."""

    __slots__ = ("_answers", "_protocol")

    def __init__(self, protocol: Any) -> None:
        self._protocol = protocol
        self._answers: dict[type, bool] = {}

    def __call__(self, obj: object) -> TypeGuard[T]:
        cls = type(obj)
        answer = self._answers.get(cls)
        if answer is None:
            answer = issubclass(cls, self._protocol)
            if len(self._answers) >= MAX_CLASSES:
                self._answers.clear()
            self._answers[cls] = answer
        return answer
