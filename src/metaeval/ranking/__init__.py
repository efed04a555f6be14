"""Rankings of algorithms that combine success and time, and their statistical comparison.

Scores named ``score`` in the tidy output frames are higher-is-better except for
average ranks (``average_ranks``, lower is better); the ``rank`` column is always
1 for the best algorithm and every frame is ordered best first. Success values
are higher-is-better by default; pass ``higher_is_better=False`` for losses.

Methods follow Abdulrahman & Brazdil (2014), "Measures for combining accuracy and
time for meta-learning" (MetaSel workshop at ECAI 2014; ARR eq. 1 and A3R eq. 2), and
its reference [4] (Brazdil, Soares & da Costa 2003: AR, SRR, SW, ARR); the
statistical tests follow Demšar (2006), JMLR 7. Families of configurations are ranked
the same way, each represented per dataset by its best member or its members' mean
(:func:`rank_families`). All functions are pure: frames in, frames out.
"""

from metaeval.ranking._families import (
    FAMILY_HOW,
    family_members,
    family_success,
    family_times,
    rank_families,
)
from metaeval.ranking._frames import dataset_ranks, success_from_folds
from metaeval.ranking._methods import (
    RANKING_METHODS,
    ARRPoleWarning,
    a3r,
    adjusted_ratio_of_ratios,
    arr_ratios,
    average_ranks,
    rank_algorithms,
    significant_wins,
    success_rate_ratios,
)
from metaeval.ranking._spread import ranking_intervals
from metaeval.ranking._stats import (
    CriticalDifferenceData,
    FriedmanResult,
    critical_difference_data,
    friedman_test,
    holm_adjust,
    nemenyi_critical_difference,
    nemenyi_critical_value,
    wilcoxon_holm,
)
from metaeval.ranking._sweeps import (
    a3r_sweep,
    arr_pole,
    arr_sweep,
    iso_a3r_curves,
    monotonicity_breaks,
)

__all__ = [
    "FAMILY_HOW",
    "RANKING_METHODS",
    "ARRPoleWarning",
    "CriticalDifferenceData",
    "FriedmanResult",
    "a3r",
    "a3r_sweep",
    "adjusted_ratio_of_ratios",
    "arr_pole",
    "arr_ratios",
    "arr_sweep",
    "average_ranks",
    "critical_difference_data",
    "dataset_ranks",
    "family_members",
    "family_success",
    "family_times",
    "friedman_test",
    "holm_adjust",
    "iso_a3r_curves",
    "monotonicity_breaks",
    "nemenyi_critical_difference",
    "nemenyi_critical_value",
    "rank_algorithms",
    "rank_families",
    "ranking_intervals",
    "significant_wins",
    "success_from_folds",
    "success_rate_ratios",
    "wilcoxon_holm",
]
