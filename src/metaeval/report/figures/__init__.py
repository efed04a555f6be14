"""Figures of the cited papers, drawn from precomputed arrays and frames.

Every public function here only draws: it takes arrays or tidy frames that a
computing function (:mod:`metaeval.report.data`, :mod:`metaeval.hardness`,
:mod:`metaeval.ranking`, :mod:`metaeval.benchmark`) produced and returns a new
:class:`matplotlib.figure.Figure`. No function touches pyplot's global state
and none saves anything: ``fig.savefig(path)`` is the caller's.

The figures follow Prudêncio (2019) [1]_ (cost curves, hardness maps), Melo & Prudêncio
(2014) [2]_ [3]_ (dendrograms), Abdulrahman & Brazdil (2014) [4]_ (ARR and A3R) and
the algorithm-benchmark web page on value captured, metric disagreement and bootstrap
stability (no printed reference; it follows Caruana & Niculescu-Mizil 2006).

References
----------
.. [1] R. B. C. Prudêncio, "Cost sensitive evaluation of instance hardness in machine
   learning", ECML PKDD 2019.
.. [2] C. E. C. de Melo and R. B. C. Prudêncio, "Cost-sensitive measures of algorithm
   similarity for meta-learning", BRACIS 2014.
.. [3] C. E. C. de Melo and R. B. C. Prudêncio, "Similarity measures of algorithm
   performance for cost-sensitive scenarios", MetaSel workshop at ECAI 2014 (CEUR-WS
   Vol-1201, paper 4).
.. [4] S. M. Abdulrahman and P. Brazdil, "Measures for combining accuracy and time for
   meta-learning", MetaSel workshop at ECAI 2014.

The functions live in one module per paper or theme: :mod:`.cost_curves` and
:mod:`.maps` (instance hardness), :mod:`.similarity`, :mod:`.rankings`,
:mod:`.benchmark` and :mod:`.instance_space`; :mod:`._style` holds what they share.
"""

from __future__ import annotations

# the public names of this package, as they were when it was one module
from metaeval.report.figures._style import (  # noqa: F401 (FONT .. drawing_style: as before)
    FONT,
    MAX_WIDTH,
    METHOD_ABBREVIATIONS,
    TITLE,
    drawing_style,
    smallest_font_pt,
)
from metaeval.report.figures.benchmark import heatmap, portfolio_curve, ranked_bars, stability_grid
from metaeval.report.figures.cost_curves import class_cost_curves, instance_cost_curves
from metaeval.report.figures.instance_space import correlation_heatmap, instance_space_map
from metaeval.report.figures.maps import cost_hardness_maps, hardness_maps, projection_map
from metaeval.report.figures.rankings import (
    a3r_curves,
    arr_curves,
    critical_difference_diagram,
    iso_a3r_curves,
    rank_table,
)
from metaeval.report.figures.similarity import dendrograms

__all__ = [
    "METHOD_ABBREVIATIONS",
    "a3r_curves",
    "arr_curves",
    "class_cost_curves",
    "correlation_heatmap",
    "cost_hardness_maps",
    "critical_difference_diagram",
    "dendrograms",
    "hardness_maps",
    "heatmap",
    "instance_cost_curves",
    "instance_space_map",
    "iso_a3r_curves",
    "portfolio_curve",
    "projection_map",
    "rank_table",
    "ranked_bars",
    "smallest_font_pt",
    "stability_grid",
]
