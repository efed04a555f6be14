"""The HTML report and ``plot`` on a small real study (a real DuckDB store).

The study: two built-in datasets, three of the 8 algorithms of Melo & Prudêncio (2014)
and one user algorithm that fails on every fit (its name holds HTML special characters),
with 3-fold cross-validation, run by :func:`metaeval.study.run_study`.
"""

from __future__ import annotations

import html
import re
import shutil
from html.parser import HTMLParser

import numpy as np
import pytest
from matplotlib.figure import Figure

from metaeval.report import PLOT_KINDS, StudyView, plot, write_report

BAD = "LR<bad>&"  # fails: LogisticRegression(C=-1) refuses to fit


class _Page(HTMLParser):
    """Collects tags, attributes, and the tables of each <details> section."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.sections: dict[str, list[list[list[str]]]] = {}
        self._summary = None
        self._in_summary = False
        self._current = None
        self._cell = None
        self._row = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "summary":
            self._in_summary, self._summary = True, ""
        elif tag == "table" and self._current is not None:
            self.sections[self._current].append([])
        elif tag == "tr" and self._current is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "summary":
            self._in_summary = False
            self._current = self._summary.split("\n")[0].strip()
            self.sections[self._current] = []
        elif tag == "details":
            self._current = None
        elif tag in ("td", "th") and self._cell is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.sections[self._current][-1].append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._in_summary and not self._summary:
            self._summary = data
        if self._cell is not None:
            self._cell += data


@pytest.fixture(scope="module")
def study_store(build_once):
    """The study's store, run once per test run (xdist spreads this module's tests over
    its workers); read only."""
    def build(where):
        from metaeval.algorithms import custom_algorithm
        from metaeval.study import LocalExecutor, Study, run_study

        bad = custom_algorithm(BAD, "sklearn.linear_model.LogisticRegression",
                               params={"C": -1.0})
        path = where / "study.duckdb"
        for stale in (path, where / "study.duckdb.wal"):
            stale.unlink(missing_ok=True)
        study = Study(datasets=["labor", "fertility"], algorithms=["NB", "LR", "DT", bad],
                      folds=3, executor=LocalExecutor(jobs=1), store=str(path))
        summary = run_study(study)
        assert (summary.n_done, summary.n_failed) == (6, 2)
        return path

    return build_once("report-study", build)


@pytest.fixture(scope="module")
def report(study_store, build_once):
    """The strict report of ``study_store``, drawn once per test run; read only."""
    def build(where):
        out = where / "report"
        if out.exists():
            shutil.rmtree(out)
        return write_report(study_store, out, strict=True, bootstrap_draws=200)

    path = build_once("report-page", build)
    text = path.read_text(encoding="utf-8")
    page = _Page()
    page.feed(text)
    return {"path": path, "text": text, "page": page, "out": path.parent}


def test_the_report_is_one_self_contained_file(report):
    assert report["path"].name == "index.html"
    assert [p.name for p in report["out"].iterdir()] == ["index.html"]
    tags = report["page"].tags
    names = {t for t, _ in tags}
    assert not names & {"script", "link", "iframe", "object", "embed", "base"}
    for tag, attrs in tags:
        if "src" in attrs:
            assert tag == "img" and attrs["src"].startswith("data:image/png;base64,"), tag
        if "href" in attrs and tag == "a":
            assert attrs["href"].startswith("#"), attrs["href"]
        for key in ("href", "xlink:href"):  # inside SVG: ids of the page, or inline images
            if key in attrs and tag != "a":
                assert attrs[key].startswith(("#", "data:image/png;base64,")), attrs[key][:40]
    style = re.search(r"<style>(.*?)</style>", report["text"], re.S).group(1)
    assert "url(" not in style and "@import" not in style
    # SVG ids stay unique on the page, so every clip path and glyph reference resolves
    ids = [attrs["id"] for _, attrs in tags if "id" in attrs]
    assert len(ids) == len(set(ids))


def test_the_first_screen_says_what_the_report_is_and_how_to_read_it(report):
    # two sentences under the title; the bar wraps between its labels, never inside one;
    # a table wider than the window shows a shadow at the edge that hides columns
    from metaeval.report import _template

    header = re.search(r"<header>(.*?)</header>", report["text"], re.S).group(1)
    lead = re.search(r'<p class="lead">([^<]+)</p>', header).group(1)
    assert lead == html.escape(_template.INTRO) and lead.count(". ") == 1
    assert lead.endswith(".")
    style = re.search(r"<style>(.*?)</style>", report["text"], re.S).group(1)
    nav_a = re.search(r"nav a \{([^}]*)\}", style).group(1)
    assert "white-space: nowrap" in nav_a
    scroll = re.search(r"\.scroll \{([^}]*)\}", style).group(1)
    assert "overflow-x: auto" in scroll and "background-attachment: local" in scroll
    assert '<div class="scroll"><table>' in report["text"]


def test_summary_counts_come_from_the_store(report, study_store):
    from metaeval.store import Store

    tasks = Store(study_store).tasks()
    cards = dict((label, int(value)) for value, label in re.findall(
        r'<div class="card[^"]*"><b>(\d+)</b><span>([^<]+)</span>', report["text"]))
    assert cards == {"datasets": 2, "algorithms": 4,
                     "tasks done": int((tasks["status"] == "done").sum()),
                     "tasks failed": int((tasks["status"] == "failed").sum())}


def test_failed_tasks_are_listed_with_names_escaped(report):
    text = report["text"]
    assert BAD not in text  # never raw
    assert "LR&lt;bad&gt;&amp;" in text
    assert text.count("InvalidParameterError") >= 2
    assert 'id="problems"' not in text  # strict: everything was drawn


def test_mean_hardness_tables_match_scikit_learn(report, study_store):
    from sklearn.metrics import accuracy_score, brier_score_loss, mean_absolute_error

    from metaeval.store import Store

    for dataset in ("labor", "fertility"):
        y, S, algorithms = Store(study_store).scores(dataset)
        # the layout of Table 1 of Melo & Prudêncio (2014): algorithms x methods
        table = report["page"].sections[dataset][0]
        header, rows = table[0], table[1:]
        assert header == ["algorithm", "IH SF", "IH SD", "IH RD", "IH SU", "IH RU"]
        assert [r[0] for r in rows] == algorithms == ["NB", "LR", "DT"]
        for j, row in enumerate(rows):
            values = dict(zip(header[1:], map(float, row[1:]), strict=True))
            # printed to three decimals
            assert values["IH SD"] == pytest.approx(brier_score_loss(y, S[:, j]), abs=5e-4)
            assert values["IH SU"] == pytest.approx(mean_absolute_error(y, S[:, j]), abs=5e-4)
            assert values["IH SF"] == pytest.approx(1 - accuracy_score(y, S[:, j] > 0.5),
                                                    abs=5e-4)


def test_every_section_and_figure_is_there(report):
    text = report["text"]
    for anchor in ("summary", "findings", "hardness", "similarity", "families", "rankings",
                   "benchmark", "datasets"):
        assert f'<section id="{anchor}">' in text
    n_figures = text.count("<figure>")
    # 12 study-wide figures (+ 3: footprints, selection, IRT; the rank table is the
    # Rankings table's, not a figure); per dataset: class and instance cost curves,
    # projection, hardness maps, two loss maps, dendrograms, and the two instance-space
    # figures; the family section's two dendrograms
    assert n_figures == 12 + 3 + 2 * 9 + 2
    assert text.count("<svg") + text.count("<img") == n_figures
    assert text.count("<details") == 2
    assert "closest pair" in text and "Best algorithm by ranking" in text


@pytest.fixture(scope="module")
def view(study_store):
    return StudyView(study_store)


@pytest.mark.parametrize("kind", sorted(PLOT_KINDS))
def test_plot_draws_every_kind(kind, view):
    options = {"dataset": "labor"} if PLOT_KINDS[kind].per_dataset else {}
    if kind == "bootstrap-stability":
        options["draws"] = 100
    fig = plot(kind, view, **options)
    assert isinstance(fig, Figure) and fig.axes


def test_plot_saves_png_svg_and_pdf(tmp_path, view):
    fig = plot("dendrograms", view, dataset="fertility", cut_height=0.05)
    for ext, magic in (("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")):
        path = tmp_path / f"figure.{ext}"
        fig.savefig(path)
        assert path.read_bytes().startswith(magic)


def test_plot_validates_its_input(view):
    with pytest.raises(ValueError, match="kind must be one of"):
        plot("pie-chart", view)
    with pytest.raises(ValueError, match="needs dataset=<name>"):
        plot("hardness-maps", view)
    with pytest.raises(ValueError, match="'iris' is not in the store"):
        plot("class-cost-curves", view, dataset="iris")
    with pytest.raises(ValueError, match="needs a store"):
        plot("value-captured")
    with pytest.raises(ValueError, match="has no option .colour.; it takes accd"):
        plot("arr", colour="red")
    with pytest.raises(ValueError, match=r"algorithms \['SVM_RBF'\] have no scores"):
        plot("instance-cost-curves", view, dataset="labor", algorithms=["SVM_RBF"])


def test_plot_options_reach_the_figure(view):
    fig = plot("instance-cost-curves", view, dataset="labor", rows=[0, 1],
               methods=["rate-driven"], algorithms=["NB"])
    assert len(fig.axes) == 2
    assert [t.get_text() for t in fig.texts][:2] == ["row 0 (class 0)", "row 1 (class 0)"]
    fig = plot("cost-hardness-maps", view, dataset="labor", target_class=0,
               cost_proportions=[0.3], methods=["score-driven"])
    assert fig.axes[0].get_title() == "class 0 · SD · c = 0.3"


def test_write_report_rejects_bad_input(tmp_path, study_store):
    with pytest.raises(ValueError, match="No metaeval store"):
        write_report(tmp_path / "missing.duckdb", tmp_path / "out")
    with pytest.raises(ValueError, match=r"datasets \['iris'\] are not in the store"):
        write_report(study_store, tmp_path / "out", datasets=["iris"])
    with pytest.raises(ValueError, match="cost_proportions"):
        write_report(study_store, tmp_path / "out", cost_proportions=[1.5])
    with pytest.raises(ValueError, match="measure must be one of"):
        write_report(study_store, tmp_path / "out", measure="happiness")
    assert not (tmp_path / "out").exists()


def test_a_figure_that_cannot_be_drawn_is_reported_not_fatal(tmp_path, study_store,
                                                             monkeypatch):
    from metaeval.report import _plots

    def broken(view, **options):
        raise ValueError("no portfolio <today>")

    monkeypatch.setitem(_plots.PLOT_KINDS, "portfolio",
                        _plots.PLOT_KINDS["portfolio"].__class__(broken, True, False, "x"))
    with pytest.raises(ValueError, match="no portfolio"):
        write_report(study_store, tmp_path / "strict", strict=True, datasets=[],
                     bootstrap_draws=50)
    path = write_report(study_store, tmp_path / "lenient", datasets=[], bootstrap_draws=50)
    text = path.read_text(encoding="utf-8")
    assert '<section id="problems">' in text
    assert "portfolio: ValueError: no portfolio &lt;today&gt;" in text
    assert text.count("<details") == 0


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_a_drawn_figure_is_freed_at_once_and_the_collector_restored(view, fmt):
    import gc
    import weakref

    from metaeval.report.html import _Page

    made = []

    def build(view, **options):
        fig = PLOT_KINDS["class-cost-curves"].build(view, **options)
        made.append(weakref.ref(fig))
        return fig

    page = _Page(view, dpi=40, strict=True)
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            got = page._draw(build, "class-cost-curves", "cap", fmt, None,
                             {"dataset": "labor"})
            assert got["problem"] is None and "<figcaption>cap</figcaption>" in got["html"]
            assert gc.isenabled() is enabled
            if enabled:  # its reference cycles collected on the way out, not some time later
                assert made[-1]() is None
    finally:
        gc.enable()


def test_report_size_stays_small(report):
    size = report["path"].stat().st_size
    per_dataset = np.diff([report["text"].index('<section id="datasets">'), len(report["text"])])
    assert size < 3_000_000
    # PNG figures at 2x, sharp when zoomed: 50 such datasets stay under 30 MB
    assert per_dataset[0] / 2 < 600_000


def test_parse_plot_options_types_command_line_values():
    from metaeval.report import parse_plot_options

    got = parse_plot_options(["dataset=credit-g", "rows=3,7", "cut-height=0.3",
                              "cost_aware=true", "methods=rate-driven"])
    assert got == {"dataset": "credit-g", "rows": [3, 7], "cut_height": 0.3,
                   "cost_aware": True, "methods": "rate-driven"}
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_plot_options(["dataset"])
    with pytest.raises(ValueError, match="not a valid name"):
        parse_plot_options(["2x=1"])


def test_maps_of_large_datasets_draw_a_seeded_sample(view):
    fig = plot("hardness-maps", view, dataset="labor", max_points=20)
    grey, coloured = fig.axes[0].collections
    assert len(grey.get_offsets()) + len(coloured.get_offsets()) == 20
    assert [t.get_text() for t in fig.texts] == ["20 of 57 instances drawn (random sample)"]
    again = plot("hardness-maps", view, dataset="labor", max_points=20)
    np.testing.assert_array_equal(again.axes[0].collections[1].get_offsets(),
                                  coloured.get_offsets())
    assert not plot("hardness-maps", view, dataset="labor").texts  # 57 <= 3000: all drawn
