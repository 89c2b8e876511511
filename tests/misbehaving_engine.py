"""An engine program for the tests (run as `python tests/misbehaving_engine.py MODE [SECONDS]`): it plays the
first legal move, but misbehaves as MODE says.

crash      exits with code 3 at its second move request
late       answers its first move request after SECONDS, naming the last legal move by index, without an id
skip-late  thinks SECONDS over its first move request and then skips it: it answers the next with their ids
silent     never answers a move request
slow       answers every move request after SECONDS
no-ready   never answers hello
bad-ready  answers hello with a line that is not JSON
garbage    answers its first move request with a line that is not JSON
huge       answers its first move request with a 100 KiB line
illegal    answers its first move request with a move that is not legal
bad-index  answers its first move request with index 999
wrong-id   answers its first move request with another request's id
mismatch   answers its first move request with an index and a move that differ
quit-log   writes every line it is sent to the file SECONDS names (a path, then), and plays first legal
"""

import json
import sys
import time


def main() -> None:
    mode = sys.argv[1]
    argument = sys.argv[2] if len(sys.argv) > 2 else "0"
    moves = 0
    for text in sys.stdin:
        if mode == "quit-log":
            with open(argument, "a") as log:
                log.write(text)
        message = json.loads(text)
        if message["type"] == "hello":
            if mode == "no-ready":
                continue
            print("hello to you too" if mode == "bad-ready" else json.dumps({"type": "ready"}), flush=True)
            continue
        if message["type"] != "move":
            return
        moves += 1
        answer: dict[str, object] = {"type": "move", "id": message["id"], "index": 0}
        first = moves == 1
        if mode == "crash" and moves == 2:
            sys.exit(3)
        if mode == "silent":
            continue
        if mode == "slow" or (mode in ("late", "skip-late") and first):
            time.sleep(float(argument))
        if mode == "skip-late" and first:
            continue
        if mode == "late" and first:
            answer = {"index": len(message["legal"]) - 1}
        line = json.dumps(answer)
        if first and mode == "garbage":
            line = "e2e4"
        elif first and mode == "huge":
            line = json.dumps({"index": 0, "pad": "x" * 100_000})
        elif first and mode == "illegal":
            line = json.dumps({"move": {"t": "no-such-move"}})
        elif first and mode == "bad-index":
            line = json.dumps({"index": 999})
        elif first and mode == "wrong-id":
            line = json.dumps({"id": message["id"] + 5, "index": 0})
        elif first and mode == "mismatch" and len(message["legal"]) > 1:
            line = json.dumps({"index": 0, "move": message["legal"][1]})
        print(line, flush=True)


if __name__ == "__main__":
    main()
