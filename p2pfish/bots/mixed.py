"""Mixed strategies for secret choices: a bot draws a secret (a cat column, a Pêche card, a bait) so that a spy
who knows its algorithm and every value it computes cannot guess the secret much better than blind.

`capped_softmax` is a softmax over the choices' values whose largest probability is then capped at
1/k + SPY_MARGIN (k choices) by mixing in just enough of the uniform distribution: whatever the spy computes, it
guesses right with probability at most that cap. Within that bound the better choices stay the likelier."""

import math
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Final, TypeVar

SPY_MARGIN: Final = 0.05
"""How far above blind guessing (1/k) any one secret choice's probability may rise."""

T = TypeVar("T")


def capped_softmax(values: Sequence[float], temperature: float, margin: float = SPY_MARGIN) -> list[float]:
    """Probabilities over `values`: a softmax at `temperature`, none above 1/k + margin."""
    k = len(values)
    if k == 0:
        return []
    top = max(values)
    weights = [math.exp((v - top) / max(temperature, 1e-9)) for v in values]
    total = sum(weights)
    probabilities = [w / total for w in weights]
    return cap_probabilities(probabilities, min(1.0, 1.0 / k + margin))


def cap_probabilities(probabilities: Sequence[float], cap: float) -> list[float]:
    """`probabilities` mixed with the uniform distribution just enough that none exceeds `cap` (at least 1/k): the
    order of the choices is kept, and the likeliest gets exactly `cap` when it had more."""
    k = len(probabilities)
    top = max(probabilities, default=0.0)
    if k == 0 or top <= cap:
        return list(probabilities)
    even = 1.0 / k
    weight = (top - cap) / (top - even)
    return [(1.0 - weight) * p + weight * even for p in probabilities]


def draw_secret(rng: random.Random, choices: Sequence[T], values: Sequence[float], temperature: float) -> T:
    """One of `choices`, drawn from capped_softmax(values, temperature) with `rng`."""
    weights = capped_softmax(values, temperature)
    return rng.choices(list(choices), weights)[0]


def draw_hidden(
    rng: random.Random,
    legal: Sequence[T],
    values: Sequence[float],
    hidden: Callable[[T], Hashable],
    temperature: float,
) -> T:
    """A secret choice where what stays hidden is `hidden(action)` (several actions may hide the same, as the
    King Fish baits of one suit do): the hidden value is drawn from capped_softmax over each one's best action's
    value — so no hidden value is likelier than 1/k + SPY_MARGIN — and then its best action is played."""
    best: dict[Hashable, tuple[float, T]] = {}
    for action, value in zip(legal, values, strict=True):
        key = hidden(action)
        if key not in best or value > best[key][0]:
            best[key] = (value, action)
    keys = list(best)
    return best[draw_secret(rng, keys, [best[k][0] for k in keys], temperature)][1]


def uniform_hidden(rng: random.Random, legal: Sequence[T], hidden: Callable[[T], Hashable]) -> T:
    """A secret choice drawn evenly over what stays hidden (then evenly over the actions hiding it): blind
    guessing is all a spy can do."""
    groups: dict[Hashable, list[T]] = {}
    for action in legal:
        groups.setdefault(hidden(action), []).append(action)
    if len(groups) == len(legal):
        return legal[rng.randrange(len(legal))]
    chosen = list(groups.values())[rng.randrange(len(groups))]
    return chosen[rng.randrange(len(chosen))]
