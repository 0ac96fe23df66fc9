"""Reusable hardening harnesses for the workspace (issue 34), each a layer a later
change can run its own scenario under:

* :mod:`.powerloss` -- records every file fsync and directory operation (create,
  mkdir, rename, unlink, directory fsync) under a root and, at cut points, builds
  the on-disk state a power loss could leave: only what was made durable, plus
  POSIX-allowed reorderings (unsynced metadata applied up to a random point, files
  torn at a random byte past their last fsync);
* :mod:`.faults` -- fails the N-th call of one kind (``fsync``, ``write``,
  ``replace``, ``ftruncate``, ``unlink``, ``mkdir``, ``open``, directory fsync) with
  ``EIO`` (or another errno) for every N over a scenario;
* :mod:`.fuzz` -- mutates journal lines and re-checksums them (valid crc32), so the
  checks behind the checksum are what is tested.
"""
