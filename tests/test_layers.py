"""The package keeps the layers of docs/architecture.md and has no import circle.

The contracts live in ``.importlinter`` at the repository root and are checked by
import-linter (``lint-imports`` runs them by hand). Every import counts, those inside
functions included.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / ".importlinter"
PACKAGE = ROOT / "src" / "metaeval"

#: The run of the linter on a copy of the package, in a fresh interpreter whose first
#: entry on ``sys.path`` is the copy's folder (``lint-imports`` puts the working directory
#: there), so that the copy, not the installed package, is the one read.
LINT_IN_CWD = (
    "import sys; from importlinter.cli import lint_imports; "
    "sys.exit(lint_imports(no_cache=True, no_logo=True))"
)


def test_the_package_keeps_its_import_contracts(capsys):
    status = lint_imports(config_filename=str(CONFIG), no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert status == 0, report
    assert "0 broken" in report and "No import circle" in report


def _copy_with(tmp_path, changes):
    """A copy of the package and its contracts with ``changes`` {relative path: appended code}."""
    copy = tmp_path / "metaeval"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(CONFIG, tmp_path / ".importlinter")
    for relative, code in changes.items():
        path = copy / relative
        path.write_text(path.read_text(encoding="utf-8") + textwrap.dedent(code), "utf-8")
    return tmp_path


def _lint(folder):
    done = subprocess.run(
        [sys.executable, "-c", LINT_IN_CWD],
        cwd=folder,
        env={**os.environ, "COLUMNS": "200"},  # one line a message
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode, done.stdout + done.stderr


def test_the_contracts_catch_circles_layer_breaches_and_sql_outside_the_store(tmp_path):
    folder = _copy_with(
        tmp_path,
        {
            # the circle that was broken: the metrics and the tensors of benchmark
            "benchmark/_metrics.py": """
                def _tensor(frame):
                    from metaeval.benchmark._frames import oriented_tensor

                    return oriented_tensor(frame)
                """,
            # a measure that reads the store
            "similarity.py": """
                def _stored(path):
                    from metaeval.store import Store

                    return Store(path)
                """,
            # the recommendation running a study
            "recommend/evaluation/_summary.py": "\nfrom metaeval.study import run_study  # noqa\n",
            # SQL outside the store
            "ranking/_stats.py": "\nimport duckdb  # noqa\n",
            # the knowledge base reaching up to the strategies (recommend's own layers)
            "recommend/knowledge/_budget.py": "\nfrom metaeval.recommend.learners import _auto\n",
            # one family of classic hardness measures reaching into another
            "hardness/classic/_trees.py": "\nfrom metaeval.hardness.classic import _overlap\n",
            # a piece of the page reaching back to the page (a circle of the report's)
            "report/_markup.py": """
                def _page():
                    from metaeval.report import html

                    return html
                """,
        },
    )
    status, report = _lint(folder)
    assert status == 1, report
    for broken in (
        "No cycles are allowed in metaeval.benchmark",
        "metaeval.similarity is not allowed to import metaeval.store",
        "metaeval.recommend is not allowed to import metaeval.study",
        "metaeval.ranking is not allowed to import duckdb",
        "metaeval.hardness.classic._trees -> metaeval.hardness.classic._overlap",
        "No cycles are allowed in metaeval.report",
        "metaeval.recommend.knowledge._budget -> metaeval.recommend.learners._auto",
    ):
        assert broken in report, report
    # the report reaches the study through the recommendation: broken too, indirectly
    assert "metaeval.report is not allowed to import metaeval.study" in report, report
    assert "Contracts: 5 kept, 9 broken." in report, report


def test_a_lower_layer_importing_a_higher_one_breaks_the_layers(tmp_path):
    folder = _copy_with(
        tmp_path, {"store/_schema.py": "\nfrom metaeval.report import html  # noqa\n"}
    )
    status, report = _lint(folder)
    assert status == 1, report
    assert "metaeval.store is not allowed to import metaeval.report" in report, report


#: Files allowed over the limit: none.
SPLIT_ELSEWHERE = {
}


def test_no_python_file_in_src_or_docs_is_over_800_lines():
    long = {
        path.relative_to(ROOT).as_posix(): n
        for folder in (ROOT / "src", ROOT / "docs")
        for path in sorted(folder.rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 800
    }
    assert {p: n for p, n in long.items() if p not in SPLIT_ELSEWHERE} == {}
