#!/usr/bin/env python3
"""A complete p2pfish engine in plain Python (standard library only): it plays the first legal move.

Run it at a table with
    p2pfish join HOST:PORT --code CODE --engine "python3 examples/engines/first_legal.py"
or in a test match with
    p2pfish match fishnstones --players 3 --engine 1:"python3 examples/engines/first_legal.py"

The protocol (protocol/ENGINE.md): p2pfish writes one JSON object per line on our standard input; we answer
`hello` with `ready`, every `move` request with the move we pick, and stop at `quit` (or at the end of input).
Anything for people goes to standard error: standard output carries protocol lines alone.
"""

import json
import sys


def pick(request: dict[str, object]) -> int:
    """The index, in request["legal"], of the move to play. A smarter engine reads request["view"] here."""
    return 0


def main() -> None:
    for text in sys.stdin:
        message = json.loads(text)
        kind = message.get("type")
        if kind == "hello":
            print(f"first_legal: playing {message['game']} as seat {message['seat']}", file=sys.stderr)
            answer = {"type": "ready", "name": "first-legal", "protocol": 1}
        elif kind == "move":
            index = pick(message)
            answer = {"type": "move", "id": message["id"], "index": index, "move": message["legal"][index]}
        elif kind == "quit":
            return
        else:
            continue  # a line of a later protocol version: ignore it
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
