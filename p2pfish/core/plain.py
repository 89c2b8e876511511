"""Any game's view as plain JSON, by one generic walk: what an engine program in any language reads.

A view is built of named tuples, frozen dataclasses, tuples, strings, integers, booleans and None. A named
tuple or a dataclass becomes a JSON object of its fields in their declared order, a tuple or list a JSON list;
nothing else is accepted (bytes, say, would be a commitment: never part of what a seat is shown to decide by).
The view itself is the rules' `view(state, seat, known)`: it holds that seat's secrets and no other seat's.
"""

import dataclasses
from collections.abc import Mapping
from typing import Any

from p2pfish.core.wire import Json

MAX_DEPTH = 32


def plain(value: Any, depth: int = 0) -> Json:
    """`value` as JSON (see the module's docstring); TypeError for anything a view cannot hold."""
    if depth > MAX_DEPTH:
        raise TypeError("a view nested deeper than a view can be")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    fields = getattr(value, "_fields", None)
    if isinstance(value, tuple) and isinstance(fields, tuple):
        return {name: plain(item, depth + 1) for name, item in zip(fields, value, strict=True)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {item.name: plain(getattr(value, item.name), depth + 1) for item in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [plain(item, depth + 1) for item in value]
    if isinstance(value, Mapping) and all(isinstance(key, str) for key in value):
        return {key: plain(item, depth + 1) for key, item in value.items()}
    raise TypeError(f"a view holds a {type(value).__name__}, which has no plain JSON form")
