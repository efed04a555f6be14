"""Where and when each algorithm wins: footprints, per-instance selection, IRT.

- Footprints (:func:`footprint`, :func:`algorithm_footprints`,
  :func:`condition_footprints`, :func:`footprint_table`): the regions of a 2-D
  instance space where an algorithm's instance hardness at an operating
  condition is small (Muñoz & Smith-Miles 2017; Muñoz et al. 2018, TRACE).
- Per-instance selection (:func:`select_per_instance`,
  :func:`nested_cv_selection`, :func:`evaluate_selection`): the model with the
  lowest mean instance cost curve at ``c`` among an instance's nearest
  neighbours (Prudêncio 2019, Sect. 5), evaluated by nested cross-validation
  against the single best model and the per-instance oracle.
- IRT (:func:`fit_beta3_irt`, :func:`irt_responses`,
  :func:`difficulty_correlations`): β³-IRT for continuous responses (Chen,
  Silva Filho, Prudêncio et al. 2019): an ability per model, a difficulty and
  a discrimination per instance, from the stored scores of one dataset.

Pure functions on arrays (the stored scores of a study, the instance space of
:mod:`metaeval.instance_space`); no I/O and no plotting.
"""

from metaeval.selection._footprints import Footprint, default_max_edge, footprint
from metaeval.selection._irt import (
    Beta3IRT,
    difficulty_correlations,
    fit_beta3_irt,
    irt_responses,
)
from metaeval.selection._per_instance import (
    K_GRID,
    evaluate_selection,
    nested_cv_selection,
    select_per_instance,
)
from metaeval.selection._pool_footprints import (
    algorithm_footprints,
    condition_footprints,
    footprint_table,
    good_instances,
)

__all__ = [
    "Footprint",
    "footprint",
    "default_max_edge",
    "good_instances",
    "algorithm_footprints",
    "footprint_table",
    "condition_footprints",
    "K_GRID",
    "select_per_instance",
    "nested_cv_selection",
    "evaluate_selection",
    "Beta3IRT",
    "fit_beta3_irt",
    "irt_responses",
    "difficulty_correlations",
]
