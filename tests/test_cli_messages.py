"""One-line messages of the command line for options a figure does not take."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from metaeval.cli import app
from metaeval.report import plot

runner = CliRunner()


def test_plot_with_an_option_the_figure_does_not_take_names_the_options(tmp_path):
    result = runner.invoke(app, ["plot", "arr", "-o", "bogus=1", "--out",
                                 str(tmp_path / "f.png")])
    assert result.exit_code == 2
    assert "plot kind 'arr' has no option 'bogus'; it takes accd, used." in result.output
    assert "unexpected keyword" not in result.output and "Traceback" not in result.output
    assert not (tmp_path / "f.png").exists()


def test_plot_function_names_the_options_of_a_store_figure(tmp_path):
    with pytest.raises(ValueError, match=r"'dendrograms' has no option 'bogus'; it takes "
                       r".*cut_height"):
        plot("dendrograms", tmp_path / "none.duckdb", bogus=1)


def test_steps_show_a_progress_bar_on_a_terminal_only(monkeypatch):
    import io

    from rich.console import Console

    from metaeval.cli import _app

    shown = io.StringIO()
    monkeypatch.setattr(_app, "err", Console(file=shown, force_terminal=True, width=80))
    with _app.steps("Instance hardness", 3) as bar:
        for name in ("a", "b", "c"):
            bar.advance(f"Instance hardness: {name}")
    assert "Instance hardness" in shown.getvalue() and "3/3" in shown.getvalue()
    piped = io.StringIO()
    monkeypatch.setattr(_app, "err", Console(file=piped, force_terminal=False))
    with _app.steps("Instance hardness", 3) as bar:
        bar.advance()
    assert piped.getvalue() == ""
