"""How tests/data/checkpoints/v2/ was made: run once at commit 06a507b (checkpoint
format 2) from the repository root; kept as the record of the session it holds.
Running it today writes the current format instead."""
import json, shutil, sys
from pathlib import Path
sys.path.insert(0, ".")
from sim.workspace import Workspace
from tests.workspace.test_journal_compat import write_session, picture
out = Path("tests/data/checkpoints")
d = out / "v2"
if d.exists(): shutil.rmtree(d)
ws = Workspace(d, budget=None, sync=False, guard_threshold=40)
write_session(ws)
# beyond the journal fixture: a block over the inline limit (bytes from its file,
# not the checkpoint), one packed-size result answering a second call, an archive
# left in place, so the checkpoint holds every kind of row
ws.register({"role": "assistant", "content": "", "tool_calls": [
    {"id": "c2", "type": "function", "function": {"name": "cat", "arguments": '{"f":"x"}'}}]})
ws.register({"role": "tool", "tool_call_id": "c2", "content": "big " * 5000})
ws.register({"role": "user", "content": "after the big one"})
ws.archive("B11,B12", "cat output")
ws.register({"role": "assistant", "content": "done"})
snap = picture(ws)
ws.close()
(d / "lock").unlink(missing_ok=True)
(out / "v2.expected.json").write_text(json.dumps(snap, indent=1, sort_keys=True) + "\n")
print(sorted(p.name for p in d.iterdir()), (d/"checkpoint.bin").read_bytes()[:40])
