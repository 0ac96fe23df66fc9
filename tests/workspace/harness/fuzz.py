"""Journal fuzzing with valid checksums (issue 34): mutate the JSON of journal
lines and recompute each line's crc32, so every check behind the checksum
(:func:`sim.workspace.journal.check_entry`, the replay, the checkpoint cross-check)
is what a mutant meets."""

from __future__ import annotations

import json
import random

from sim.workspace.journal import decode_line, encode_line

_VALUES = (0, 1, -1, 2**40, "", "B1", "B999", "G1", None, [], {}, True, "x" * 3,
           "../etc", "\x00")


def mutate_entry(entry: dict, rng: random.Random) -> dict:
    """One random structural change of a journal entry (a field's value replaced,
    dropped or added; a nested value changed)."""
    e = json.loads(json.dumps(entry))
    keys = list(e)
    r = rng.random()
    if r < 0.4 and keys:
        e[rng.choice(keys)] = rng.choice(_VALUES)
    elif r < 0.55 and keys:
        del e[rng.choice(keys)]
    elif r < 0.7:
        e[rng.choice(["op", "id", "extra", "turn"])] = rng.choice(_VALUES)
    else:
        nested = [k for k in keys if isinstance(e[k], (dict, list)) and e[k]]
        if not nested:
            e["op"] = rng.choice(["register", "archive", "delete", "restore", "ids",
                                  "nope"])
        else:
            k = rng.choice(nested)
            if isinstance(e[k], dict):
                e[k][rng.choice(list(e[k]))] = rng.choice(_VALUES)
            else:
                e[k][rng.randrange(len(e[k]))] = rng.choice(_VALUES)
    return e


def mutant(raw: bytes, rng: random.Random, lines: int = 1) -> bytes:
    """``raw`` (a version-2 journal) with ``lines`` random lines mutated and
    re-checksummed (every line still passes its crc32)."""
    parts = raw.split(b"\n")
    tail = parts.pop()
    for _ in range(lines):
        i = rng.randrange(len(parts))
        parts[i] = encode_line(mutate_entry(decode_line(parts[i]), rng)).rstrip(b"\n")
    return b"\n".join(parts) + b"\n" + tail
