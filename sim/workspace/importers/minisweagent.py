"""mini-swe-agent reader: a plain message list (role, content; observations come back
as user messages), or the newer ``{"messages": [...], "info": ...,
"trajectory_format": "mini-swe-agent-1"}`` file. (Observations recorded as user
messages pass the wire-payload guard: see :func:`import_trajectory`.)"""

from __future__ import annotations

from typing import Any

from . import openai


def read(data: list | dict) -> list[dict[str, Any]]:
    """OpenAI messages of a mini-swe-agent run."""
    return openai.read(data)
