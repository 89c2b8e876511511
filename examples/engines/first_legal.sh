#!/bin/sh
# A p2pfish engine in shell and jq (protocol/ENGINE.md): it plays the first legal move.
#   p2pfish join HOST:PORT --code CODE --engine "sh examples/engines/first_legal.sh"
while IFS= read -r line; do
  case $(printf '%s' "$line" | jq -r .type) in
    hello) echo '{"type":"ready","name":"sh-first"}' ;;
    move)  printf '%s' "$line" | jq -c '{id: .id, index: 0}' ;;
    quit)  exit 0 ;;
  esac
done
