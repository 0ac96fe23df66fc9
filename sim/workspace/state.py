"""The state record of a workspace: everything a journal operation changes.

:class:`WorkspaceState` holds the blocks, groups and the indexes kept beside them;
:mod:`sim.workspace.ops` applies one operation to it, the same way live and in
replay. A :class:`~sim.workspace.workspace.Workspace` owns one (``ws.state``) and
shows its fields under their old names (``ws.blocks``, ``ws.turn``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .blocks import Block, Group
from .toplevel import TopLevel


@dataclass(slots=True, eq=False)
class WorkspaceState:
    """What the journal operations change (DESIGN.md "The block workspace contract").

    ``blocks`` id -> :class:`Block` and ``groups`` id -> :class:`Group`, in the order
    they were made; ``group_of``: the group an archived block or group is directly
    inside; ``versions``: id -> a counter bumped whenever the item's rendering may
    change (what assembly caches are keyed on); ``call_owner``: tool_call_id -> the
    tool-call block that made the call; ``results``: tool-call block -> {call id:
    result block}; ``refs``: sha256 -> live blocks and groups whose payload it is
    (a payload file is removed when this drops to none); ``by_sha``: sha256 -> every
    block or group that ever had it (recover-by-handle; :mod:`sim.workspace.handles`);
    ``top``: the top-level items in stream order (what a request renders);
    ``turn``: the current root turn; ``next_block`` / ``next_group``: the n of the
    next ``B<n>`` / ``G<n>``.
    """

    blocks: dict[str, Block] = field(default_factory=dict)
    groups: dict[str, Group] = field(default_factory=dict)
    group_of: dict[str, str] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)
    call_owner: dict[str, str] = field(default_factory=dict)
    results: dict[str, dict[str, str]] = field(default_factory=dict)
    refs: dict[str, int] = field(default_factory=dict)
    by_sha: dict[str, list[str]] = field(default_factory=dict)
    top: TopLevel = field(default_factory=TopLevel)
    turn: int = 0
    next_block: int = 1
    next_group: int = 1
