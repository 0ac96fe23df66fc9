"""Power-loss simulation (issue 34): record what a scenario made durable under
``root`` and rebuild, at cut points, what a power loss could leave on disk.

The model (POSIX: only fsync makes anything durable):

* file data: an inode's durable bytes are what it held at its last ``fsync``
  (read back from the file at that moment, so writes through any API count); a
  file never fsynced is empty after the cut. ``torn=True`` lets a random prefix of
  the unsynced bytes beyond the durable ones survive too (a torn append);
* directory entries (a created file, ``mkdir``, ``rename``, ``unlink``): a log in
  call order. An entry change is durable once the directory holding it is fsynced
  (a rename is atomic: either directory's fsync makes all of it durable). At the
  cut, the durable changes survive and, with a random ``keep`` point, so does every
  change before it (the unsynced metadata a journaling filesystem may have
  committed in order); ``keep=0`` is the pessimistic cut (only what was fsynced).

Use::

    with PowerLoss(root) as pl:      # root's contents at entry count as durable
        ...scenario...; pl.cut(dest) # dest: a directory that gets the cut state

:meth:`PowerLoss.cut` may be called from the scenario at any point (e.g. before
each acknowledgement is returned, or from :attr:`on_op` before every recorded
operation). It patches ``os`` functions only while active.
"""

from __future__ import annotations

import os
import random
import stat
from pathlib import Path


class PowerLoss:
    """See module doc. ``on_op(pl, kind)`` (optional) is called before every
    recorded operation: a scenario's hook to cut there."""

    def __init__(self, root: str | Path, seed: int = 0, torn: bool = False,
                 on_op=None):
        self.root = os.path.abspath(root)
        self.rng = random.Random(seed)
        self.torn = torn
        self.on_op = on_op
        self.ino = 0
        self.entries: dict[str, dict[str, object]] = {}  # durable at entry
        self.durable: dict[int, bytes] = {}              # ino -> bytes at last fsync
        self.where: dict[int, str] = {}                  # ino -> current path
        self.cur: dict[str, object] = {}                 # path -> ino or "dir"
        self.log: list[tuple] = []                       # metadata changes
        self.forced: set[int] = set()                    # log indices made durable
        self.fds: dict[int, str] = {}
        self.counts: dict[str, int] = {}
        self.cuts = 0
        self._saved: dict[str, object] = {}
        self._busy = False

    # ---------------------------------------------------------------- tree
    def _new_ino(self, path: str) -> int:
        self.ino += 1
        self.where[self.ino] = path
        self.durable[self.ino] = b""
        return self.ino

    def _snapshot(self) -> None:
        for top, dirs, files in os.walk(self.root):
            self.cur[top] = "dir"
            self.entries[top] = {}
            for d in dirs:
                self.entries[top][d] = "dir"
            for f in files:
                p = os.path.join(top, f)
                if os.path.islink(p) or not os.path.isfile(p):
                    continue
                ino = self._new_ino(p)
                self.durable[ino] = Path(p).read_bytes()
                self.cur[p] = ino
                self.entries[top][f] = ino

    def _inside(self, path) -> str | None:
        try:
            p = os.path.abspath(os.fspath(path))
        except TypeError:
            return None
        return p if p == self.root or p.startswith(self.root + os.sep) else None

    def _record(self, *op) -> None:
        self.log.append(op)

    def _hook(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if self.on_op is not None and not self._busy:
            self._busy = True
            try:
                self.on_op(self, kind)
            finally:
                self._busy = False

    # ---------------------------------------------------------------- patches
    def __enter__(self) -> "PowerLoss":
        self._snapshot()
        real = {n: getattr(os, n) for n in ("open", "fsync", "replace", "rename",
                                            "mkdir", "unlink", "rmdir")}
        self._saved = real

        def p_open(path, flags, mode=0o777, *a, **k):
            p = self._inside(path)
            if p is not None and not self._busy:
                self._hook("open")
            existed = p is not None and os.path.lexists(p)
            fd = real["open"](path, flags, mode, *a, **k)
            if p is not None:
                self.fds[fd] = p
                if not existed and flags & os.O_CREAT:
                    ino = self._new_ino(p)
                    self.cur[p] = ino
                    self._record("add", os.path.dirname(p), os.path.basename(p), ino)
                elif flags & os.O_TRUNC and isinstance(self.cur.get(p), int):
                    pass  # content is read at fsync: a truncation is seen then
            return fd

        def p_fsync(fd):
            p = self.fds.get(fd)
            if p is not None:
                self._hook("fsync")
            real["fsync"](fd)
            if p is None:
                return
            try:  # where the file is now (a rename since the open moved it)
                p = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                return
            node = self.cur.get(p)
            if node == "dir" or (node is None and os.path.isdir(p)):
                n = len(self.log)
                for i, op in enumerate(self.log[:n]):
                    if p in _dirs_of(op):
                        self.forced.add(i)
            elif isinstance(node, int):
                with open(f"/proc/self/fd/{fd}", "rb") as fh:
                    self.durable[node] = fh.read()

        def p_replace(src, dst, *a, **k):
            s, d = self._inside(src), self._inside(dst)
            if s is not None or d is not None:
                self._hook("replace")
            real["replace"](src, dst, *a, **k)
            if s is not None and d is not None:
                ino = self.cur.pop(s, None)
                if ino is None and os.path.isfile(d):  # made by a call not recorded
                    ino = self._new_ino(s)          # (builtin open): never fsynced
                    self._record("add", os.path.dirname(s), os.path.basename(s), ino)
                if ino is not None:
                    self.cur[d] = ino
                    if isinstance(ino, int):
                        self.where[ino] = d
                    self._record("rename", os.path.dirname(s), os.path.basename(s),
                                 os.path.dirname(d), os.path.basename(d), ino)

        def p_mkdir(path, mode=0o777, *a, **k):
            p = self._inside(path)
            if p is not None:
                self._hook("mkdir")
            real["mkdir"](path, mode, *a, **k)
            if p is not None:
                self.cur[p] = "dir"
                self._record("mkdir", os.path.dirname(p), os.path.basename(p))

        def p_unlink(path, *a, **k):
            p = self._inside(path)
            if p is not None:
                self._hook("unlink")
            real["unlink"](path, *a, **k)
            if p is not None:
                self.cur.pop(p, None)
                self._record("del", os.path.dirname(p), os.path.basename(p))

        def p_rmdir(path, *a, **k):
            p = self._inside(path)
            real["rmdir"](path, *a, **k)
            if p is not None:
                self.cur.pop(p, None)
                self._record("del", os.path.dirname(p), os.path.basename(p))

        os.open, os.fsync, os.replace, os.rename = p_open, p_fsync, p_replace, p_replace
        os.mkdir, os.unlink, os.rmdir = p_mkdir, p_unlink, p_rmdir
        return self

    def __exit__(self, *exc) -> None:
        for name, fn in self._saved.items():
            setattr(os, name, fn)

    # ---------------------------------------------------------------- the cut
    def cut(self, dest: str | Path, keep: int | None = None) -> Path:
        """Write into ``dest`` (created) the state a power loss now could leave:
        durable metadata changes plus those before ``keep`` (default: random; 0
        pessimistic), durable bytes (plus a random torn tail with ``torn``).
        ``dest`` mirrors ``root``."""
        self.cuts += 1
        if keep is None:
            keep = self.rng.randint(0, len(self.log))
        tree = {d: dict(e) for d, e in self.entries.items()}
        for i, op in enumerate(self.log):
            if i >= keep and i not in self.forced:
                continue
            kind = op[0]
            if kind == "add" and op[1] in tree:
                tree[op[1]][op[2]] = op[3]
            elif kind == "mkdir" and op[1] in tree:
                tree[op[1]][op[2]] = "dir"
                tree.setdefault(os.path.join(op[1], op[2]), {})
            elif kind == "del" and op[1] in tree:
                tree[op[1]].pop(op[2], None)
            elif kind == "rename" and op[3] in tree:
                # atomic: the inode leaves its old name and takes the new one (an
                # fsync of the new name's directory makes it durable there even if
                # the old entry never was)
                if op[1] in tree and tree[op[1]].get(op[2]) == op[5]:
                    del tree[op[1]][op[2]]
                tree[op[3]][op[4]] = op[5]
        dest = Path(dest)
        self._materialize(tree, self.root, dest)
        return dest

    def _materialize(self, tree, src: str, dest: Path) -> None:
        dest.mkdir(parents=True, exist_ok=True)
        for name, node in tree.get(src, {}).items():
            path = os.path.join(src, name)
            if node == "dir":
                if path in tree:
                    self._materialize(tree, path, dest / name)
                else:
                    (dest / name).mkdir(exist_ok=True)
                continue
            data = self.durable.get(node, b"")
            if self.torn:
                live = self.where.get(node)
                try:
                    now = Path(live).read_bytes() if live else b""
                except OSError:
                    now = b""
                if len(now) > len(data) and now.startswith(data):
                    data = now[:self.rng.randint(len(data), len(now))]
            (dest / name).write_bytes(data)


def _dirs_of(op: tuple) -> tuple[str, ...]:
    return (op[1], op[3]) if op[0] == "rename" else (op[1],)


def regular_files(root: str | Path) -> dict[str, bytes]:
    """relative path -> bytes of every regular file under ``root``."""
    out = {}
    for f in Path(root).rglob("*"):
        if stat.S_ISREG(f.lstat().st_mode):
            out[str(f.relative_to(root))] = f.read_bytes()
    return out
