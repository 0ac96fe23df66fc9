"""ATIF reader (Harbor's Agent Trajectory Interchange Format): ``steps`` with
``source`` (system, user, agent), ``message``, ``tool_calls`` [tool_call_id,
function_name, arguments] and ``observation.results`` [source_call_id, content]."""

from __future__ import annotations

from typing import Any

from . import fields

_ROLE = {"system": "system", "user": "user", "agent": "assistant",
         "assistant": "assistant"}


def _content(value: Any, where: str) -> Any:
    """Text, or OpenAI-style parts (kept for the workspace); a number or an object
    is kept as its JSON text."""
    if value is None:
        return ""
    if isinstance(value, (str, list)):
        return fields.content(value, where)
    return fields.arguments(value, where)


def read(data: dict[str, Any]) -> list[dict[str, Any]]:
    """OpenAI messages of a parsed ATIF trajectory."""
    out: list[dict[str, Any]] = []
    for i, step in enumerate(fields.items(data, "steps", "<file>")):
        where = f"steps[{i}]"
        source = fields.need(step, "source", where, str, optional=True, default="agent")
        if source not in _ROLE:
            raise fields.fail(f"{where}.source", f"unknown source {source[:40]!r}; "
                                                 f"expected one of {', '.join(_ROLE)}")
        role = _ROLE[source]
        msg: dict[str, Any] = {"role": role, "_where": where,
                               "content": _content(step.get("message"), f"{where}.message")}
        calls = fields.items(step, "tool_calls", where, optional=True)
        if calls and role != "assistant":
            raise fields.fail(f"{where}.tool_calls", f"only agent steps make tool "
                                                     f"calls, not {source}")
        if calls:
            msg["tool_calls"] = [
                fields.call(fields.need(c, "tool_call_id", f"{where}.tool_calls[{j}]",
                                        str),
                            fields.need(c, "function_name", f"{where}.tool_calls[{j}]",
                                        str),
                            c.get("arguments", {}), f"{where}.tool_calls[{j}]",
                            id_key="tool_call_id", name_key="function_name")
                for j, c in enumerate(calls)]
        out.append(msg)
        obs = fields.need(step, "observation", where, dict, optional=True, default={})
        for k, res in enumerate(fields.items(obs, "results", f"{where}.observation",
                                             optional=True)):
            rw = f"{where}.observation.results[{k}]"
            cid = fields.need(res, "source_call_id", rw, str, optional=True)
            text = _content(res.get("content"), f"{rw}.content")
            if cid:
                out.append({"role": "tool", "tool_call_id": cid, "content": text,
                            "_where": rw})
            else:
                out.append({"role": "user", "content": text, "_where": rw})
    return out
