"""The final branch of a session whose records form a tree (each names its parent):
pi session entries (``id`` / ``parentId``) and Claude Code lines (``uuid`` /
``parentUuid``). A rewind, an edit or a ``/tree`` jump leaves the abandoned branch in
the file; the producing tool's context is the path from the last record back to the
root, so the readers keep the other records out of the context (whole, as asides)."""

from __future__ import annotations

from typing import Callable


def final_branch(ids: list[str | None], parents: list[str | None],
                 members: list[bool], where: Callable[[int], str],
                 notes: list[str]) -> set[int] | None:
    """Indexes of the records on the path from the last member back to the root.

    ``ids[i]`` / ``parents[i]``: record i's id and its parent's (None: a root, or a
    record outside the tree); ``members[i]``: record i may be the leaf (a message
    on the main line). A parent id the file does not hold breaks the chain: the path
    continues with the previous record in file order and a note names the record
    (a truncated or hand-edited file). Returns None when no record has an id (a
    file without a tree: every record is on the line)."""
    if not any(ids):
        return None
    index = {}
    for i, rid in enumerate(ids):
        if rid is not None:
            index.setdefault(rid, i)
    leaf = next((i for i in range(len(ids) - 1, -1, -1)
                 if members[i] and ids[i] is not None), None)
    path: set[int] = set()
    i = leaf
    while i is not None and i not in path:
        path.add(i)
        parent = parents[i]
        if parent is None:
            break
        if parent in index and index[parent] not in path:
            i = index[parent]
            continue
        if parent not in index:
            notes.append(f"{where(i)}: parent {parent[:60]!r} is not in the file; the "
                         "main line continues with the record before it")
        i = next((j for j in range(i - 1, -1, -1)
                  if ids[j] is not None and j not in path), None)
    return path
