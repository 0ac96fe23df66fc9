"""Request assembly (VISTA §2.1-2.2, Appendix F.1): overhead + visible blocks +
handles/placeholders + dashboard, as an OpenAI chat-completions request.

Protocol validity (DESIGN.md invariant 4): a visible tool call is followed at once by
one tool message per call id: the result itself, its placeholder if archived, a stub
if deleted or not yet registered. A result whose call is archived or deleted becomes
ordinary user context, never an orphan tool message.

Incremental: rendered messages and their token counts are cached per block and group,
keyed by a version number the workspace bumps on every change to that item (or to a
result of that call), so a new block costs one tokenization, not a rebuild.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .blocks import IN_STREAM, BlockStatus, BlockType
from .dashboard import MESSAGE_TOKENS, BudgetFacts, Row, make_dashboard
from .ids import format_ids
from .messages import decode_call_message, render_parts, wire_safe
from .tokenizer import Tokenizer

if TYPE_CHECKING:  # pragma: no cover
    from .workspace import Workspace

_TYPE = {t: t.value for t in BlockType}  # enum .value is slow in a 10k-block loop
_STATUS = {s: s.value for s in BlockStatus}

#: tokens that prime the reply (OpenAI cookbook convention)
REPLY_PRIMING = 3

#: VISTA's context-management protocol, verbatim (implementation appendix)
PROTOCOL = (
    "CONTEXT MANAGEMENT PROTOCOL: A <context_workspace_status> dashboard is shown every "
    "turn as a compact map of context blocks. Use context tools only when clearly "
    "needed. Do not archive, delete, or offload content solely because it is old, "
    "large, or listed in context metadata; leave content visible when the context "
    "budget is sufficient. Large payloads may be represented by placeholders; inspect "
    "originals only when needed. Use ordinary file/terminal/python tools, source "
    "metadata, and any in-context payload placeholders to inspect external evidence "
    "when details are needed. For structured data or calculations, use the source "
    "file, source tool, or query directly. Do not copy table, CSV, or JSON rows from "
    "the conversation into code.")


def default_system_prompt(budget: int | None) -> str:
    """The protocol plus VISTA's budget notice (``<budget:token_budget>B``)."""
    if budget is None:
        return PROTOCOL
    return (f"{PROTOCOL}\nYou need to complete the task within the following context "
            f"window size: <budget:token_budget>{budget}</budget:token_budget>")


def message_tokens(message: dict[str, Any], tokenizer: Tokenizer) -> int:
    """Tokens one chat message costs: 3 framing tokens + content + for each tool call
    its function name, arguments and 3 framing tokens (+1 for a ``name`` field)."""
    n = MESSAGE_TOKENS
    content = message.get("content")
    if isinstance(content, str):
        n += tokenizer.count(content)
    for call in message.get("tool_calls") or ():
        fn = call["function"]
        n += 3 + tokenizer.count(fn["name"]) + tokenizer.count(fn["arguments"])
    if message.get("name"):
        n += 1
    return n


def native_message(btype: BlockType, text: str, meta: dict[str, Any],
                   recovered_from: str | None, bid: str) -> dict[str, Any]:
    """A block's message as registered (how it renders while visible), wire-safe:
    non-text parts as placeholders (:func:`~sim.workspace.messages.render_parts`),
    every string valid Unicode (:func:`~sim.workspace.messages.wire_safe`; the
    stored bytes keep the original)."""
    return wire_safe(_native_message(btype, text, meta, recovered_from, bid))


def _native_message(btype: BlockType, text: str, meta: dict[str, Any],
                    recovered_from: str | None, bid: str) -> dict[str, Any]:
    if recovered_from is not None:
        return {"role": "user", "content": f"[recovered {recovered_from} as {bid}]\n{text}"}
    role = meta.get("role", "user")
    if btype is BlockType.TOOL_RESULT:
        return {"role": "tool", "tool_call_id": meta["tool_call_id"],
                "content": render_parts(text)}
    if btype is BlockType.TOOL_CALL:  # ``text`` is the stored message (canonical JSON)
        msg = decode_call_message(text.encode("utf-8", "surrogatepass"))
        return {"role": "assistant", "content": render_parts(msg.get("content") or "")
                or None, "tool_calls": meta["tool_calls"]}
    if role == "tool":  # a note/summary typed over a tool role: plain context
        role = "user"
    msg = {"role": role, "content": render_parts(text)}
    if meta.get("name"):
        msg["name"] = meta["name"]
    return msg


def _parts_message(parts: tuple[str, str, str], tok: Tokenizer,
                   fields: dict[str, Any] | None = None) -> tuple[dict, int]:
    """The message ``fields`` (default: a user message) with text ``"".join(parts)``
    (a placeholder: facts ending in ``;``, `` payload <path>]``, and ``""`` or a space
    and the replacement), wire-safe, and its tokens (:func:`message_tokens`).

    In cl100k_base the parts are counted apart, each a memo hit once seen (a block's
    facts and path recur in every program of a sweep, a replacement in many
    blocks), where the whole text would be new for each program (issue 35). The
    counts add up because the pre-tokenizer always cuts at both joins, whatever
    the path and the replacement hold: ``;`` and ``]`` are punctuation pre-tokens
    that stop at the space after them (no pattern takes a space after punctuation),
    and no pattern looks behind, so each part is cut from the text after the join
    exactly as when it starts a text. A part that ``wire_safe`` changes (a lone
    surrogate) is counted whole. ``tests/workspace/test_fast_paths.py`` checks the
    sum equals the whole count."""
    text = "".join(parts)
    msg = wire_safe({**(fields or {"role": "user"}), "content": text})
    if tok.name != "cl100k_base" or msg["content"] is not text:
        return msg, message_tokens(msg, tok)
    count = tok.count
    return msg, (MESSAGE_TOKENS + count(parts[0]) + count(parts[1])
                 + (count(parts[2]) if parts[2] else 0))


def is_empty_assistant(message: dict[str, Any]) -> bool:
    """True for an assistant message with neither text nor tool calls, which strict
    providers reject; assembly leaves such a block off the wire (0 tokens) and lists
    it in :attr:`Request.dropped`."""
    return (message.get("role") == "assistant" and not message.get("tool_calls")
            and not message.get("content"))


@dataclass(frozen=True)
class Floor:
    """What no context program can take out of a request under ``budget``, in
    tokens: ``overhead`` (system prompt, tool schemas, reply priming), ``pinned``
    (the pinned blocks' messages: never archived or deleted) and ``dashboard`` (a
    dashboard listing only the pinned blocks). The default system prompt and the
    dashboard's budget bar state the budget, so all of it depends on ``budget``."""

    budget: int | None
    overhead: int
    pinned: int
    dashboard: int

    @property
    def total(self) -> int:
        """overhead + pinned + dashboard, in tokens."""
        return self.overhead + self.pinned + self.dashboard


def block_row(b, corrupt: bool) -> Row:
    """Block ``b``'s ledger row (status "corrupt" when ``corrupt``)."""
    return Row(b.id, b.tokens, b.turn, _TYPE[b.type], b.level, b.parent or "-",
               "corrupt" if corrupt else _STATUS[b.status])


@dataclass
class Request:
    """An assembled request. ``messages`` (system/overhead first, dashboard last),
    ``tools`` (OpenAI function schemas), token totals ``overhead``, ``conversation``,
    ``dashboard`` and ``total`` (their sum plus reply priming, counted in overhead),
    ``budget`` (None: unlimited), the ``dashboard_text`` shown and the ids of the
    blocks ``dropped`` from the wire (empty assistant messages)."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    overhead: int
    conversation: int
    dashboard: int
    budget: int | None
    dashboard_text: str = ""
    item_tokens: dict[str, int] = field(default_factory=dict)
    #: visible blocks left off the wire: assistant messages with neither text nor
    #: tool calls (see :func:`is_empty_assistant`)
    dropped: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        """overhead + conversation + dashboard, in tokens."""
        return self.overhead + self.conversation + self.dashboard

    @property
    def over_budget(self) -> int:
        """Tokens over the budget (0 if it fits or there is none)."""
        return max(0, self.total - self.budget) if self.budget is not None else 0

    def to_openai(self, model: str = "ctxsim") -> dict[str, Any]:
        """The request body for ``POST /v1/chat/completions``."""
        body: dict[str, Any] = {"model": model, "messages": self.messages}
        if self.tools:
            body["tools"] = self.tools
        return body


class Assembler:
    """Renders a workspace into requests, caching per-item messages and counts."""

    def __init__(self, ws: "Workspace", dashboard: str):
        self.ws = ws
        self.dashboard = make_dashboard(dashboard)
        self._cache: dict[str, tuple[Any, list[dict], int]] = {}
        self._overhead: tuple[Any, int] | None = None
        self._tools: tuple[Any, int] | None = None

    def native_tokens(self, btype: BlockType, data: bytes, meta: dict[str, Any],
                      recovered_from: str | None, bid: str) -> int:
        """Tokens of a block's native message."""
        msg = self._new_native(btype, data, meta, recovered_from, bid)
        return 0 if is_empty_assistant(msg) else message_tokens(msg, self.ws.tokenizer)

    def _new_native(self, btype: BlockType, data: bytes, meta: dict[str, Any],
                    recovered_from: str | None, bid: str) -> dict[str, Any]:
        """The native message of a block about to be registered."""
        return native_message(btype, data.decode("utf-8", errors="replace"), meta,
                              recovered_from, bid)

    def overhead(self, fresh: bool = False) -> int:
        """System prompt + tool schemas + reply priming, in tokens."""
        ws = self.ws
        key = (ws.system_prompt, len(ws.tools), id(ws.tools))
        if fresh or self._overhead is None or self._overhead[0] != key:
            self._overhead = (key, self._overhead_of(ws.system_prompt, fresh))
        return self._overhead[1]

    def _overhead_of(self, prompt: str, fresh: bool = False) -> int:
        """The overhead with system prompt ``prompt`` (the schemas' count cached)."""
        ws = self.ws
        key = (len(ws.tools), id(ws.tools))
        if fresh or self._tools is None or self._tools[0] != key:
            n = ws.tokenizer.count(json.dumps(wire_safe(ws.tools), separators=(",", ":"))
                                   ) if ws.tools else 0
            self._tools = (key, n)
        return (message_tokens(wire_safe({"role": "system", "content": prompt}),
                               ws.tokenizer) + self._tools[1] + REPLY_PRIMING)

    def floor(self, budget: int | None) -> Floor:
        """The :class:`Floor` of this workspace under ``budget``: the smallest request
        any context program could send from now on (counted as :meth:`assemble`
        counts, at the current turn, with the system prompt the workspace would
        have under that budget). On an empty workspace it is the whole request."""
        ws = self.ws
        prompt = ws.system_prompt_at(budget)
        # the workspace's own prompt: the count every assembly reuses (cached)
        overhead = self.overhead() if prompt == ws.system_prompt else \
            self._overhead_of(prompt)
        rows, pinned = self._pinned()
        dash = self.dashboard.render(rows, BudgetFacts(budget, overhead, pinned, ws.turn),
                                     ws.tokenizer)
        return Floor(budget, overhead, pinned, dash.tokens)

    def _pinned(self) -> tuple[list[Row], int]:
        """The pinned blocks' ledger rows and their messages' tokens."""
        ws = self.ws
        rows, tokens = [], 0
        for ident in ws.top:
            b = ws.blocks.get(ident)
            if b is not None and b.status is BlockStatus.PINNED:
                rows.append(block_row(b, ident in ws.corrupt))
                tokens += b.tokens
        return rows, tokens

    def least_budget(self) -> int:
        """The smallest budget B whose :meth:`floor` fits it (``floor(B).total <= B``).
        Exact: every B is tried upward from a bound no floor goes under (the pinned
        blocks, schemas, priming and framing, and the system prompt when it does
        not state the budget), since the floor is not monotone in B: more digits
        cost tokens, while a smaller percentage or a bar no longer full may save
        some."""
        ws = self.ws
        states_budget = ws.system_prompt_at(1) != ws.system_prompt_at(2)
        # an empty prompt costs its framing only: no prompt costs less
        budget = self._overhead_of("" if states_budget else ws.system_prompt)
        budget += self._pinned()[1]
        while self.floor(budget).total > budget:
            budget += 1
        return budget

    # -- per-item rendering -------------------------------------------------------
    def _native(self, b) -> dict[str, Any]:
        """Block ``b``'s native message (:func:`native_message`)."""
        return native_message(b.type, b.content, b.message, b.recovered_from, b.id)

    def _path(self, handle) -> str:
        return self.ws.display_path(handle)

    def _placeholder_parts(self, b) -> tuple[str, str, str]:
        """A placeholder's text in the three parts :func:`_parts_message` counts
        apart: the block's facts, its payload path, its replacement."""
        return (f"[{b.status.value} {b.id}: {b.type.value}, ~{b.tokens:,} tokens;",
                f" payload {self._path(b.handle)}]",
                f" {b.replacement}" if b.replacement else "")

    def _as_tool_answer(self, call_id: str, rid: str | None) -> tuple[dict, int | None]:
        ws = self.ws
        if rid is None:
            return wire_safe({"role": "tool", "tool_call_id": call_id,
                              "content": "[no result registered]"}), None
        r = ws.blocks[rid]
        if r.in_stream:
            return self._native(r), r.tokens
        if r.status is BlockStatus.DELETED:
            text = f"[{rid} deleted: {r.reason}]" if r.reason else f"[{rid} deleted]"
        elif rid in ws.group_of:
            g = ws.groups[ws.top_group(rid)]
            text = f"[{rid} archived in {g.id}; payload {self._path(g.handle)}]"
        else:  # the result's placeholder, counted in parts
            return _parts_message(self._placeholder_parts(r), ws.tokenizer,
                                  {"role": "tool", "tool_call_id": call_id})
        return wire_safe({"role": "tool", "tool_call_id": call_id, "content": text}), None

    def _render_block(self, b, fresh: bool) -> tuple[list[dict], int]:
        ws = self.ws
        tok = ws.tokenizer
        if b.in_stream:
            call = ws.blocks.get(b.call_block) if b.call_block else None
            if call is not None and b.recovered_from is None and not call.in_stream:
                where = (f"{call.id} {call.status.value}" if call.id not in ws.group_of
                         else f"{call.id} archived in {ws.top_group(call.id)}")
                msg = wire_safe({"role": "user", "content": f"[tool result {b.id} for "
                                 f"call {b.message['tool_call_id']} of {where}]\n"
                                 f"{render_parts(b.content)}"})
                return [msg], message_tokens(msg, tok)
            msg = self._native(b)
            if is_empty_assistant(msg):
                return [], 0  # strict providers reject it; Request.dropped records it
            msgs, n = [msg], (message_tokens(msg, tok) if fresh else b.tokens)
            if b.type is BlockType.TOOL_CALL and b.recovered_from is None:
                answers = ws.results.get(b.id, {})
                for call in b.message["tool_calls"]:
                    m, k = self._as_tool_answer(call["id"], answers.get(call["id"]))
                    msgs.append(m)
                    n += message_tokens(m, tok) if (k is None or fresh) else k
            return msgs, n
        msg, n = _parts_message(self._placeholder_parts(b), tok)
        return [msg], n

    def _render_group(self, g) -> tuple[list[dict], int]:
        msg, n = _parts_message(
            (f"[archived group {g.id} ({format_ids(g.members)}), ~{g.tokens:,} tokens;",
             f" payload {self._path(g.handle)}]",
             f" {g.replacement}" if g.replacement else ""), self.ws.tokenizer)
        return [msg], n

    # -- assembly -----------------------------------------------------------------
    def assemble(self, incremental: bool = True) -> Request:
        """Render the current state (see module doc). Budget policy is the caller's."""
        ws = self.ws
        fresh = not incremental
        versions = ws.versions
        cache = {} if fresh else self._cache
        system, tools = self._frame()
        messages: list[dict] = [system]
        dropped: list[str] = []
        rows: list[Row] = []
        item_tokens: dict[str, int] = {}
        conversation = 0
        blocks = ws.blocks
        for gid in ws.top:  # top-level items in stream order (sim.workspace.toplevel)
            if gid[0] == "G":
                g = ws.groups[gid]
                key = versions[gid]
                hit = cache.get(gid)
                if hit is None or hit[0] != key:
                    hit = (key, *self._render_group(g))
                    cache[gid] = hit
                rows.append(Row(gid, g.tokens, g.turn, "group", g.level, "-",
                                "corrupt" if gid in ws.corrupt else "archived"))
            else:
                b = blocks[gid]
                bid = gid
                rows.append(block_row(b, bid in ws.corrupt))
                cb = b.call_block
                if cb is not None and b.recovered_from is None \
                        and blocks[cb].status in IN_STREAM:
                    continue  # answered right after its call
                key = (versions[bid], versions[cb] if cb else 0)
                hit = cache.get(bid)
                if hit is None or hit[0] != key:
                    hit = (key, *self._render_block(b, fresh))
                    cache[bid] = hit
            if not hit[1]:
                dropped.append(gid)  # an empty assistant message: never on the wire
            messages.extend(hit[1])
            conversation += hit[2]
            item_tokens[gid] = hit[2]
        overhead = self.overhead(fresh)
        facts = BudgetFacts(ws.budget, overhead, conversation, ws.turn)
        dash = self.dashboard.render(rows, facts, ws.tokenizer, fresh=fresh)
        if dash.text:
            messages.append({"role": "user", "content": dash.text})
        if not fresh and len(cache) > 2 * len(ws.blocks) + 64:
            for k in [k for k in cache if k not in ws.blocks and k not in ws.groups]:
                del cache[k]
        return Request(messages, tools, overhead, conversation,
                       dash.tokens, ws.budget, dash.text, item_tokens, tuple(dropped))

    def _frame(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The system message and the tool schemas of a request, wire-safe."""
        ws = self.ws
        return (wire_safe({"role": "system", "content": ws.system_prompt}),
                wire_safe(list(ws.tools)))

    def forget(self, ident: str) -> None:
        """Drop a cached rendering (an item that was only tried, never kept)."""
        self._cache.pop(ident, None)

    def measure(self) -> int:
        """Total tokens of the request that would be assembled now."""
        return self.assemble().total
