"""No import circle inside ``metaeval.store`` or ``metaeval.study`` (import-linter).

Each package's modules import one another in one direction only, so that each can be
read (and changed) knowing only the modules below it.
"""

from __future__ import annotations

import pytest

CONTRACTS = """\
[importlinter]
root_package = metaeval

[importlinter:contract:store-study-acyclic]
name = the modules of store and study import one another without circles
type = acyclic_siblings
ancestors =
    metaeval.store
    metaeval.study
"""


def test_store_and_study_have_no_import_circle(tmp_path, capsys):
    cli = pytest.importorskip("importlinter.cli")
    config = tmp_path / "importlinter.ini"
    config.write_text(CONTRACTS)
    code = cli.lint_imports(config_filename=str(config), no_cache=True, no_logo=True)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "1 kept, 0 broken" in out
