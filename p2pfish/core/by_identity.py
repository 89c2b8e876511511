"""A bounded cache keyed by an object's identity, for what is worked out from an immutable value (a Kuna Yala
school) that is asked about again and again while the same object is handed around."""

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    """`get(key)` is `work(key)`, worked out once per key object while it is remembered. Each entry keeps its key
    alive, so an id is not reused by another object while its entry is there; past `size` entries all are
    forgotten at once."""

    def __init__(self, work: Callable[[K], V], size: int) -> None:
        self._work, self._size = work, size
        self._entries: dict[int, tuple[K, V]] = {}

    def get(self, key: K) -> V:
        entry = self._entries.get(id(key))
        if entry is not None and entry[0] is key:
            return entry[1]
        return self.remember(key, self._work(key))

    def remember(self, key: K, value: V) -> V:
        """Keep `value` as what `key` gives (found another way than `work`), and return it."""
        if len(self._entries) >= self._size:
            self._entries.clear()
        self._entries[id(key)] = (key, value)
        return value
