"""The README's Python examples run as written (in a temp dir)."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run(tmp_path, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 2
    monkeypatch.chdir(tmp_path)
    for i, block in enumerate(blocks):
        exec(compile(block, f"README block {i}", "exec"), {})
    assert (tmp_path / "ws-dir").is_dir()  # the workspace example persisted its store
    assert capsys.readouterr().out.strip()  # the games example printed its numbers
