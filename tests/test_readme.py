"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 2
    monkeypatch.chdir(tmp_path)  # the study example writes its store here
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    assert namespace["summary"].n_failed == 0
    assert namespace["D"].shape == (3, 3)
    assert (tmp_path / "notebook-study.duckdb").exists()


def test_readme_study_file_is_a_valid_study(tmp_path):
    from metaeval.study import Study

    toml = re.search(r"```toml\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    path = tmp_path / "study.toml"
    path.write_text(toml.group(1), encoding="utf-8")
    study = Study.from_toml(path)
    assert study.algorithm_names == ["RF", "MLP"]
    assert study.folds == 10
