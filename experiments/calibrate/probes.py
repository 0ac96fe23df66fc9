"""The calibration probes: the real model in the synthetic agent's seat, one decision
at a time (issues 21 and 37).

Every decision is a :class:`sim.agents.protocol.View` built from the LOCA-like task
generator (:func:`sim.tasks.loca.loca_task`: its statement, tool results, evidence
lines and use steps) and answered by :class:`Seat`, the real-model agent
(:class:`sim.agents.llm.LLMAgent`: the same messages, tools and strict parser the
LLM episodes use) restricted to the tools the decision is about. Each probe returns
one row per scored item; a parse failure is a row with ``outcome="parse_failure"``,
never dropped (:mod:`experiments.calibrate.estimates` says how each estimate counts
it). Each probe's rows are independent draws: one scored item per case (or per
dashboard snapshot, the snapshots cut from disjoint stretches of the trajectories).

Probes and the world parameters they measure (:mod:`sim.world`):

* ``index`` -> ``agent.p_index``: it archives a tool result holding evidence lines,
  told that the replacement text is all of the result that stays in view
  (``purpose``; also once with the paper's tool text alone, ``tool``); does the text
  let a later reader find the evidence key it read (the key's record named, or its
  value copied)? A replacement that is only a block id lets a reader find nothing.
* ``confabulate`` -> ``agent.p_confabulate``: a use step needs a value whose evidence
  is archived (handle shown, no index), trimmed (a masked marker) or never seen;
  does it answer a wrong value, abstain, or (archived) recover?
* ``dashboard`` -> ``agent.p_row_read``, ``agent.sigma``: one block's size asked on
  each of independent trajectory snapshots, without the ledger (the content channel:
  its log error gives a bias and a noise, fitted separately) and with it (the row
  read exactly or not); plus the presentation probe's archive choices
  (:mod:`experiments.vista.presentation`).
* ``context`` -> ``agent.ctx_drop_max``, ``agent.ctx_half_tokens``,
  ``agent.ctx_shape``: one evidence line (the needle) near the start of a stream of
  tool results, the stream grown to each length (the longer request extends the
  shorter, so the server reuses its prefix); is the value used correctly?
* ``recovery`` -> ``agent.p_find_target``: archived results with handles and
  indexes naming their keys; does its recovery call name the right handle (of the
  decisions that read at all)?
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from sim.agents.llm import LLMAgent, LLMResponseError, READ_PAYLOAD
from sim.agents.protocol import RECOVER, Entry, View

ARCHIVE_TOOL = "context_workspace_archive"
#: what an abstention looks like: a value with no letter-digit content of an answer
_ABSTAIN = re.compile(r"^\W*(unknown|n/?a|none|null|nil|not (found|available|known|"
                      r"provided|visible|in (the )?context)|no (value|data)|\?+|-*|tbd)"
                      r"\W*$", re.I)


@dataclass(frozen=True)
class Case:
    """One task instance a probe builds decisions from."""

    task: object
    seed: int


def cases(n: int, seed: int, level: int = 8_000) -> list[Case]:
    """``n`` LOCA-like tasks, cycling over the 15 families (seed ``k // 15``)."""
    from sim.tasks.loca import loca_task
    from sim.tasks.families import FAMILIES

    nf = len(FAMILIES)
    return [Case(loca_task(k % nf, k // nf, level, seed), k) for k in range(n)]


def tokens(text: str) -> int:
    """cl100k_base tokens of ``text`` (the workspace's count)."""
    from sim.workspace.tokenizer import get_tokenizer

    return get_tokenizer("cl100k_base").count(text)


def excerpt(text: str, keep, cap: int, rng: np.random.Generator) -> str:
    """The lines of ``text`` for which ``keep(line)`` holds, plus randomly chosen
    other lines while the excerpt stays under ``cap`` tokens, in their order."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    chosen = {i for i, ln in enumerate(lines) if keep(ln)}
    used = sum(tokens(lines[i]) + 1 for i in chosen)
    for i in rng.permutation(len(lines)):
        if i in chosen:
            continue
        t = tokens(lines[i]) + 1
        if used + t > cap:
            continue
        chosen.add(int(i))
        used += t
    return "\n".join(lines[i] for i in sorted(chosen))


def _has_key_line(task, line: str) -> bool:
    return any(line.startswith(k + ": ") for k in task.facts)


def _call(step) -> str:
    return f"{step.tool}({step.args})"


class Seat(LLMAgent):
    """The real-model agent offered only the tools of one decision.

    Args:
        client: the chat client (:class:`sim.agents.answer_cache.CachedClient` in
            runs; a stand-in in tests).
        offer: tool names kept from :meth:`LLMAgent.tools_for`; ``"step"`` keeps the
            task step.
    """

    def __init__(self, client, offer: tuple[str, ...]):
        super().__init__(client=client, max_context_actions=1_000)
        self.offer = offer

    def tools_for(self, view: View) -> list[dict]:
        step = self.task.steps[self.pos].tool
        return [t for t in super().tools_for(view)
                if t["function"]["name"] in self.offer
                or ("step" in self.offer and t["function"]["name"] == step)]


def decide(client, offer: tuple[str, ...], task, pos: int, view: View, seed: int):
    """One decision: ``(Action, "")``, or ``(None, reason)`` when the model's answer
    did not parse into a valid call (``LLMResponseError``: reason and answer start).
    Transport errors propagate."""
    seat = Seat(client, offer)
    seat.reset(task, seed)
    seat.pos = pos
    try:
        return seat.act(view), ""
    except LLMResponseError as exc:
        return None, f"{exc.reason}: {exc.raw[:120]}"


def classify(value: str | None, truth: str) -> str:
    """``"correct"`` (exact), ``"abstain"`` (empty or an unknown-like word) or
    ``"wrong"`` (any other value: a confabulation)."""
    v = (value or "").strip()
    if v == truth:
        return "correct"
    if _ABSTAIN.match(v):
        return "abstain"
    return "wrong"


def identifier(key: str) -> list[str]:
    """The parts of an evidence key that name its record (those with a digit, e.g.
    ``INV-5698`` of ``record INV-5698 total``); the whole key if none has one."""
    parts = [p for p in key.split() if any(c.isdigit() for c in p)]
    return parts or [key]


def names_key(text: str, key: str) -> tuple[bool, bool]:
    """``(strict, lenient)``: whether ``text`` names ``key`` as the synthetic agent's
    index matcher does (the whole key), and whether it names its record identifier
    (case-insensitive)."""
    from sim.agents.synthetic import _mentions

    low = text.lower()
    return _mentions(text, key), all(p.lower() in low for p in identifier(key))


# ------------------------------------------------------------------ view building
def _statement(task) -> Entry:
    return Entry("B1", "user_message", "pinned", task.statement, tokens(task.statement))


def _result_entries(task, steps, start_id: int, rng, cap: int, keep=None,
                    status=None, turn0: int = 1) -> tuple[list[Entry], dict]:
    """Call and result entries for observe ``steps`` (indices), results cut to
    ``cap`` tokens keeping ``keep`` lines; ``status(step_index)`` -> (status, text,
    handle, source_call) overrides a result's rendering. Returns entries and
    step index -> result id."""
    out, ids = [], {}
    bid = start_id
    for turn, i in enumerate(steps, turn0):
        s = task.steps[i]
        call = _call(s)
        out.append(Entry(f"B{bid}", "tool_call", "visible", call, tokens(call), turn=turn))
        text = excerpt(s.content, keep or (lambda ln: False), cap, rng)
        rid = f"B{bid + 1}"
        ids[i] = rid
        st = status(i, rid, call, text) if status else None
        if st is None:
            out.append(Entry(rid, "tool_result", "visible", text, tokens(text),
                             source_call=call, turn=turn))
        else:
            stat, shown, handle, src = st
            out.append(Entry(rid, "tool_result", stat, shown, tokens(shown) or 40,
                             handle=handle, source_call=src, turn=turn))
        bid += 2
    return out, ids


def _view(entries, tools, notice=None) -> View:
    used = sum(e.tokens for e in entries)
    return View(tuple(entries), budget=max(1_000, int(used * 1.1)), notice=notice,
                tools=frozenset(tools), turn=max(e.turn for e in entries))


def _evidence_steps(task, keys) -> list[int]:
    return sorted({i for i, s in enumerate(task.steps) if set(s.facts) & set(keys)})


def _noise_steps(task, before: int, n: int) -> list[int]:
    return [i for i, s in enumerate(task.steps[:before])
            if s.kind == "observe" and not s.facts][-n:]


def _use_step(task) -> int:
    return next(i for i, s in enumerate(task.steps) if s.needs)


# ------------------------------------------------------------------ probes
#: the index probe's notices: the paper's archive tool alone, and the same with the
#: replacement text's purpose stated (what stays in view of the result)
INDEX_NOTICES = {
    "tool": "the context is over budget. Archive {target} (the result of {call}) now. "
            "Its payload is kept; your replacement text stays in context as its index.",
    "purpose": "the context is over budget. Archive {target} (the result of {call}) "
               "now. Its payload is kept under a handle, and your replacement text "
               "stays in context in its place: it is all you will see of this result "
               "later, so write it as an index of what the result holds.",
}
#: a replacement that says nothing beyond a block id ("B3", "B3 (archived)")
_BARE = re.compile(r"\b(B\d+|archived?|by|agent|block|result|index|of|the)\b|[^A-Za-z0-9]+",
                   re.I)


def bare_id(text: str) -> bool:
    """Whether a replacement text holds nothing but block ids and filler words."""
    return not _BARE.sub("", text or "")


def recoverable(text: str, key: str, value: str) -> bool:
    """Whether a later reader of replacement ``text`` can find evidence ``key``
    (value ``value``) through it: the key's record identifier is named
    (case-insensitive; :func:`names_key`'s lenient match) or the value itself is
    copied. A bare block id names neither."""
    return names_key(text, key)[1] or (bool(value) and value in text)


def probe_index(client, cs: list[Case], seed: int, cap: int = 300,
                condition: str = "purpose") -> list[dict]:
    """Archive one tool result holding evidence, with ``condition``'s notice
    (:data:`INDEX_NOTICES`); one row per case, scoring the first evidence key the
    result shows: ``outcome`` recoverable / not_recoverable / bare_id (the text is
    only a block id) / off_target (it archived another block: the key stays visible)
    / parse_failure, with ``strict`` (the synthetic agent's whole-key matcher) and
    ``value_copied``.

    Raises:
        ValueError: for an unknown ``condition``.
    """
    if condition not in INDEX_NOTICES:
        raise ValueError(f"unknown index condition {condition!r}; expected one of "
                         f"{sorted(INDEX_NOTICES)}")
    rows = []
    for c in cs:
        t = c.task
        rng = np.random.default_rng([seed, 21, 1, c.seed])
        ev = next(i for i, s in enumerate(t.steps) if s.facts)
        steps = _noise_steps(t, ev, 2) + [ev]
        ents, ids = _result_entries(t, steps, 2, rng, cap,
                                    keep=lambda ln, t=t: _has_key_line(t, ln))
        target = ids[ev]
        text = next(e.text for e in ents if e.id == target)
        k = next(k for k, f in t.facts.items() if f.extract(text) is not None)
        notice = INDEX_NOTICES[condition].format(target=target, call=_call(t.steps[ev]))
        action, fail = decide(client, (ARCHIVE_TOOL,), t, ev + 1, _view(
            [_statement(t)] + ents, {"archive"}, notice), c.seed)
        truth = t.facts[k].extract(text)
        row = {"probe": "index", "case": t.task_id, "condition": condition,
               "key": k, "truth": truth, "answer": "", "strict": "",
               "value_copied": "", "request_tokens": "", "detail": fail}
        if action is None:
            row["outcome"] = "parse_failure"
        elif target not in action.block_ids.split(","):
            row.update(outcome="off_target", answer=action.block_ids)
        else:
            rep = action.replacement
            outcome = ("recoverable" if recoverable(rep, k, truth) else
                       "bare_id" if bare_id(rep) else "not_recoverable")
            row.update(outcome=outcome, answer=rep[:300],
                       strict=int(names_key(rep, k)[0]), value_copied=int(truth in rep))
        rows.append(row)
    return rows


def _keyless_status(task, keys, condition: str):
    """Rendering of evidence results for ``condition``: archived (handle, no index),
    trimmed (a masked marker), never (left out; handled by the caller)."""
    def status(i, rid, call, text):
        if not set(task.steps[i].facts) & set(keys):
            return None
        if condition == "archived":
            return ("archived", "archived by agent", f"payloads/{rid}.txt", call)
        return ("masked", "[result trimmed by the context program]", None, call)
    return status


def probe_confabulate(client, cs: list[Case], seed: int, cap: int = 200,
                      conditions=("archived", "trimmed", "never")) -> list[dict]:
    """A use step whose needed values are out of view; one row per needed value and
    condition: ``outcome`` correct / wrong / abstain / recover (a payload read,
    archived condition) / parse_failure."""
    rows = []
    for c in cs:
        t = c.task
        u = _use_step(t)
        keys = t.steps[u].needs
        ev = [i for i in _evidence_steps(t, keys) if i < u]
        noise = _noise_steps(t, u, 3)
        for cond in conditions:
            rng = np.random.default_rng([seed, 21, 2, c.seed])
            steps = sorted(noise + ([] if cond == "never" else ev))
            ents, _ = _result_entries(t, steps, 2, rng, cap,
                                      status=_keyless_status(t, keys, cond))
            tools = {"recover"} if cond == "archived" else set()
            offer = ("step", READ_PAYLOAD) if cond == "archived" else ("step",)
            action, fail = decide(client, offer, t, u, _view([_statement(t)] + ents,
                                                             tools), c.seed)
            for k in keys:
                row = {"probe": "confabulate", "case": t.task_id, "condition": cond,
                       "key": k, "truth": t.facts[k].value, "answer": "", "strict": "",
                       "value_copied": "", "request_tokens": "", "detail": fail}
                if action is None:
                    row["outcome"] = "parse_failure"
                elif action.kind == RECOVER:
                    row.update(outcome="recover", answer=action.handle)
                else:
                    v = action.values.get(k, "")
                    row.update(outcome=classify(v, t.facts[k].value), answer=v[:120])
                rows.append(row)
    return rows


def probe_recovery(client, cs: list[Case], seed: int, n_other: int = 3) -> list[dict]:
    """Every needed value's evidence and ``n_other`` other results archived with
    handles and indexes (the synthetic agent's index format, naming each key); one
    row per decision: ``outcome`` right_handle / wrong_handle / no_recovery (it
    answered instead) / parse_failure; ``answer`` the handle read or the values."""
    from sim.agents.synthetic import _short

    rows = []
    for c in cs:
        t = c.task
        u = _use_step(t)
        keys = t.steps[u].needs
        ev = [i for i in _evidence_steps(t, keys) if i < u]
        others = [i for i in _noise_steps(t, u, n_other)]
        named = {}

        def status(i, rid, call, text, t=t, keys=keys, named=named):
            has = [k for k in keys if k in t.steps[i].facts]
            idx = f"archived results: {rid} {_short(call)}" + (
                f" has {', '.join(has)}" if has else "")
            for k in has:  # in step order, so the last one is the newest record
                named.setdefault(k, []).append(f"payloads/{rid}.txt")
            return ("archived", idx, f"payloads/{rid}.txt", "")

        rng = np.random.default_rng([seed, 21, 5, c.seed])
        ents, _ = _result_entries(t, sorted(set(ev + others)), 2, rng, 40, status=status)
        action, fail = decide(client, ("step", READ_PAYLOAD), t, u,
                              _view([_statement(t)] + ents, {"recover"}), c.seed)
        row = {"probe": "recovery", "case": t.task_id, "condition": "indexed",
               "key": "|".join(keys),
               "truth": "|".join(sorted({h for hs in named.values() for h in hs})),
               "answer": "", "strict": "", "value_copied": "", "request_tokens": "",
               "detail": fail}
        if action is None:
            row["outcome"] = "parse_failure"
        elif action.kind == RECOVER:
            # right: a handle whose index names the key it asks for (any needed key
            # when its key names none); "stale" when a newer record's handle exists
            asked = [k for k in keys if k in action.key] or list(named)
            want = {h for k in asked for h in named.get(k, [])}
            newest = {named[k][-1] for k in asked if k in named}
            row.update(outcome="right_handle" if action.handle in want else "wrong_handle",
                       answer=f"{action.handle} key={action.key[:60]}",
                       detail="stale" if action.handle in want - newest else "")
        else:
            row.update(outcome="no_recovery",
                       answer="; ".join(f"{k}={v}" for k, v in action.values.items())[:200])
        rows.append(row)
    return rows


def haystack(cs: list[Case], seed: int) -> list[str]:
    """Lines of the tasks' tool results, distractor records included, without any
    task's evidence line (so a needle's key appears once), shuffled."""
    keys = tuple(k + ": " for c in cs for k in c.task.facts)
    lines = [ln for c in cs for s in c.task.steps if s.kind == "observe"
             for ln in s.content.split("\n") if ln.strip() and not ln.startswith(keys)]
    rng = np.random.default_rng([seed, 21, 4])
    return [lines[i] for i in rng.permutation(len(lines))]


def probe_context(client, cs: list[Case], seed: int, lengths=(500, 2000, 8000),
                  needle_at: int = 150, block: int = 250) -> list[dict]:
    """The needle probe: each case's first needed value as its one evidence line,
    ``needle_at`` tokens (cl100k) into a stream of tool results of about ``block``
    tokens each, the stream grown to each of ``lengths`` tokens; one row per (case,
    length): ``outcome`` correct / wrong / abstain / parse_failure,
    ``request_tokens`` the view's tokens, ``detail`` the needle's depth (its share
    of the stream before it).

    A case's requests are asked shortest first and each longer stream extends the
    shorter one line for line, so a server that reuses a prompt's prefix (llama.cpp)
    evaluates only the new pages: a case costs about its longest request. The
    needle's position is fixed in tokens, so its relative depth falls as the stream
    grows (recorded); :mod:`sim.agents.profiles`' curve has no depth term.
    """
    pool = haystack(cs, seed)
    rows = []
    for c in cs:
        t = c.task
        u = _use_step(t)
        key = t.steps[u].needs[0]
        fact = t.facts[key]
        needle = f"{key}: {fact.value}"
        start = (c.seed * 997) % max(1, len(pool) - 1)
        lines, cum, j = [], [0], start   # cum[i]: tokens of lines[:i]
        while cum[-1] < max(lengths):
            ln = pool[j % len(pool)]
            lines.append(ln)
            cum.append(cum[-1] + tokens(ln) + 1)
            j += 1
        at = next(i for i, used in enumerate(cum) if used >= min(needle_at, cum[-1]))
        for length in sorted(lengths):
            n = next(i for i, used in enumerate(cum) if used >= length)
            body = lines[:at] + [needle] + lines[at:max(n, at)]
            view = _view([_statement(t)] + _pages(body, block), set())
            action, fail = decide(client, ("step",), t, u, view, c.seed)
            row = {"probe": "context", "case": t.task_id, "condition": f"L{length}",
                   "key": key, "truth": fact.value, "answer": "", "strict": "",
                   "value_copied": "", "request_tokens": sum(e.tokens for e in
                                                             view.entries),
                   "detail": (f"depth {cum[at] / max(cum[max(n, at)], 1):.3f}"
                              + (f"; {fail}" if fail else ""))}
            if action is None:
                row["outcome"] = "parse_failure"
            else:
                v = action.values.get(key, "")
                row.update(outcome=classify(v, fact.value), answer=v[:120])
            rows.append(row)
    return rows


def _pages(body: list[str], block: int) -> list[Entry]:
    """``body``'s lines as ``read_page`` call and result entries of about ``block``
    tokens each, from B2 on (the same lines give the same pages)."""
    ents, bid, turn, chunk, size = [], 2, 1, [], 0
    for ln in body + [None]:
        if ln is not None:
            chunk.append(ln)
            size += tokens(ln) + 1
        if chunk and (ln is None or size >= block):
            text = "\n".join(chunk)
            call = f"read_page({{\"page\": {turn}}})"
            ents += [Entry(f"B{bid}", "tool_call", "visible", call, tokens(call),
                           turn=turn),
                     Entry(f"B{bid + 1}", "tool_result", "visible", text, tokens(text),
                           source_call=call, turn=turn)]
            bid, turn, chunk, size = bid + 2, turn + 1, [], 0
    return ents
