"""Systematic I/O error injection (issue 34): fail the N-th call of one kind with
an OS error, for every N a scenario reaches.

Kinds: ``fsync`` (of a file), ``dirfsync`` (of a directory), ``write`` (``os.write``
and ``os.pwrite``), ``replace``, ``ftruncate``, ``unlink``, ``mkdir``, ``open``.
Use::

    with FailNth("fsync", 3) as f:   # the 3rd fsync raises EIO
        ...scenario...
    f.fired                            # whether it was reached
"""

from __future__ import annotations

import errno
import os
import stat

KINDS = ("fsync", "dirfsync", "write", "replace", "ftruncate", "unlink", "mkdir",
         "open")
_FUNCS = {"fsync": ("fsync",), "dirfsync": ("fsync",), "write": ("write", "pwrite"),
          "replace": ("replace", "rename"), "ftruncate": ("ftruncate",),
          "unlink": ("unlink",), "mkdir": ("mkdir",), "open": ("open",)}


class FailNth:
    """Patch ``os`` so the ``n``-th call of ``kind`` raises ``OSError(code)``."""

    def __init__(self, kind: str, n: int, code: int = errno.EIO):
        if kind not in KINDS:
            raise ValueError(f"kind {kind!r} is not one of {KINDS}")
        self.kind, self.n, self.code = kind, n, code
        self.seen = 0
        self.fired = False
        self._saved: dict[str, object] = {}

    def _wrap(self, name: str, real):
        def failing(*args, **kwargs):
            if self.kind in ("fsync", "dirfsync"):
                try:
                    is_dir = stat.S_ISDIR(os.fstat(args[0]).st_mode)
                except OSError:
                    is_dir = False
                if is_dir != (self.kind == "dirfsync"):
                    return real(*args, **kwargs)
            self.seen += 1
            if self.seen == self.n:
                self.fired = True
                raise OSError(self.code, os.strerror(self.code))
            return real(*args, **kwargs)
        return failing

    def __enter__(self) -> "FailNth":
        for name in _FUNCS[self.kind]:
            real = getattr(os, name)
            self._saved[name] = real
            setattr(os, name, self._wrap(name, real))
        return self

    def __exit__(self, *exc) -> None:
        for name, fn in self._saved.items():
            setattr(os, name, fn)


def count_calls(kind: str, scenario) -> int:
    """How many calls of ``kind`` ``scenario()`` makes (nothing fails)."""
    with FailNth(kind, 0) as f:
        scenario()
    return f.seen


def fail_os(monkeypatch, name: str, code: int = errno.EIO, when=lambda *args: True
            ) -> list:
    """Patch ``os.<name>`` (with pytest's ``monkeypatch``) so a call whose arguments
    satisfy ``when(*args)`` raises ``OSError(code)``; the others run. Returns the list
    of first arguments of the calls it failed, in order."""
    real = getattr(os, name)
    failed: list = []

    def failing(*args, **kwargs):
        if when(*args):
            failed.append(args[0] if args else None)
            raise OSError(code, os.strerror(code))
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, failing)
    return failed
