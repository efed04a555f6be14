"""Figures of the cited papers and the self-contained HTML report of a study.

The figures follow Melo & Prudêncio (2014), Abdulrahman & Brazdil (2014), Prudêncio
(2019) and the algorithm-benchmark web page on value captured, metric disagreement and
bootstrap stability (no printed reference; it follows Caruana & Niculescu-Mizil 2006);
see :mod:`metaeval.report.figures` for the full references.


- :mod:`metaeval.report.figures`: drawing functions, each returning a new
  :class:`matplotlib.figure.Figure` from precomputed arrays or frames.
- :mod:`metaeval.report.data`: the computations those figures show (cost
  curves, hardness maps, PCA projection, linkage, rank tables), no drawing.
- :func:`plot`: any figure of a study by name (``metaeval plot KIND``);
  :data:`PLOT_KINDS` lists the names and their options.
- :func:`write_report`: ``DIR/index.html``, one file with every figure inlined
  (``metaeval report``).

Inside, imports run one way, without a circle: the drawing
(:mod:`~metaeval.report.figures`, one module per paper or theme; ``_plots``,
``_builders``, ``_backdrop``, ``_encode``), then the page's pieces (``_page``,
``_markup``, ``_template``, ``_glossary`` and the sections beyond the papers'
figures), then the orchestration (``_render``, ``_cache``, ``_intermediates``), and
last :mod:`~metaeval.report.html`, whose :func:`write_report` lays the page out and
has the orchestration draw it.
"""

from metaeval.report._plots import PLOT_KINDS, StudyView, parse_plot_options, plot
from metaeval.report.html import figure_to_png_uri, figure_to_svg, write_report

__all__ = [
    "PLOT_KINDS",
    "StudyView",
    "figure_to_png_uri",
    "figure_to_svg",
    "parse_plot_options",
    "plot",
    "write_report",
]
