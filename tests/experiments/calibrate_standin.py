"""A stand-in chat client for the calibration probes: a rule-following "model" with
known behaviour probabilities, so the probes' estimates can be checked against the
truth that generated the answers (no LLM needed)."""

from __future__ import annotations

import json
import re
import zlib

from sim.agents.llm import LLMSettings, TokenLedger

_LINE = re.compile(r"^(record [A-Z]+-\d+ [a-z ]+?): (\S+)$", re.M)


def _u(*items) -> float:
    return zlib.crc32("|".join(map(str, items)).encode()) / 2**32


class StandIn:
    """Answers like a model with ``p_index`` (each key in an archived block's index),
    ``p_confabulate`` (a value it cannot find: wrong, else "unknown"), an exact
    ledger reader, a content reader off by a lognormal factor, ``recover`` (it reads
    the indexed handle) and ``garble`` (share of unparseable answers)."""

    def __init__(self, p_index=0.7, p_confabulate=0.3, garble=0.0, recover=True):
        self.settings = LLMSettings(model="stand-in", max_repairs=0)
        self.ledger = TokenLedger()
        self.p_index, self.p_confabulate = p_index, p_confabulate
        self.garble, self.recover = garble, recover
        self.calls = 0

    def create(self, messages, *, tools=None, schema=None, max_tokens=None):
        self.calls += 1
        text = "\n".join(m["content"] for m in messages)
        self.ledger.add({"prompt_tokens": len(text) // 4, "completion_tokens": 10}, 0.0)
        if _u("garble", text) < self.garble:
            return {"content": "{not json", "tool_calls": [], "finish_reason": "stop"}
        return {"content": json.dumps(self.answer(text, schema)), "tool_calls": [],
                "finish_reason": "stop"}

    # the tool names the union schema offers
    @staticmethod
    def _tools(schema) -> list[str]:
        alts = schema.get("anyOf", [schema])
        return [a["properties"]["tool"]["enum"][0] for a in alts
                if "tool" in a.get("properties", {})]

    def answer(self, text: str, schema: dict):
        props = schema.get("properties", {})
        if "tokens" in props or "larger" in props or (
                props and all(re.fullmatch(r"B\d+", k) for k in props)):
            return self._perceive(text, props)
        tools = self._tools(schema)
        if tools == ["context_workspace_archive"]:
            m = re.search(r"Archive (B\d+)", text)
            if m is None:  # the presentation probe: the largest row of the ledger
                rows = (re.findall(r"^(B\d+) \| ([\d,]+) \|.*visible", text, re.M)
                        or re.findall(r"^(B\d+) (\d+) \d+r \w+$", text, re.M))
                best = max(rows, key=lambda r: int(r[1].replace(",", "")))[0]
                return {"tool": tools[0], "arguments": {"block_id": best}}
            bid = m.group(1)
            block = text.split(f"[{bid} tool_result", 1)[1].split("\n\n[", 1)[0]
            keys = [k for k, _ in _LINE.findall(block)]
            listed = [k for k in keys if _u("index", k) < self.p_index]
            return {"tool": tools[0], "arguments": {
                "block_id": bid, "replacement": "results: " + ", ".join(listed)}}
        step = next(t for t in tools if t not in ("read_payload",))
        alt = next(a for a in schema.get("anyOf", [schema])
                   if a["properties"]["tool"]["enum"][0] == step)
        needs = list(alt["properties"]["arguments"].get("properties", {}))
        seen = dict(_LINE.findall(text))
        if "read_payload" in tools and self.recover:
            for k in needs:
                m = re.search(rf"has [^\]]*{re.escape(k)}[^\]]*\| payload: (\S+)\]", text)
                if k not in seen and m:
                    return {"tool": "read_payload", "arguments": {"path": m.group(1),
                                                                  "key": k}}
        vals = {}
        for k in needs:
            if k in seen:
                vals[k] = seen[k]
            elif _u("confab", k, text.count("\n")) < self.p_confabulate:
                vals[k] = "12345.67"
            else:
                vals[k] = "unknown"
        return {"tool": step, "arguments": vals}

    def _perceive(self, text: str, props: dict):
        ledger = "<context_workspace_status>" in text
        sizes = {i: int(t.replace(",", "")) for i, t in
                 re.findall(r"^(B\d+) \| ([\d,]+) \|", text, re.M)} if ledger else {}

        def guess(i):  # content channel: 4 characters a token, a lognormal error
            body = text.split(f"[{i} ", 1)[1].split("\n\n[", 1)[0] if f"[{i} " in text \
                else ""
            return max(1, int(len(body) / 4 * (1.5 if _u("g", i) < 0.5 else 0.6)))

        if "tokens" in props:
            m = re.search(r"conversation ~([\d,]+)", text)
            return {"tokens": int(m.group(1).replace(",", "")) if (ledger and m) else 500}
        if "larger" in props:
            a, b = props["larger"]["enum"]
            get = sizes.get if sizes else guess
            return {"larger": a if (get(a) or 0) >= (get(b) or 0) else b}
        return {i: sizes.get(i) or guess(i) for i in props}
