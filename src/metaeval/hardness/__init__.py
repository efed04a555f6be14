"""Cost-sensitive instance hardness under five threshold choice methods.

Instance cost curves give the loss of one instance at each cost proportion ``c`` when
the decision threshold is chosen by a threshold choice method; instance hardness is the
area under that curve, i.e. an expected loss (lower is easier). Class hardness and pool
hardness average it over a class and over a pool of models (R. B. C. Prudêncio, "Cost
sensitive evaluation of instance hardness in machine learning", ECML PKDD 2019).

Conventions: two classes; the score ``s`` estimates P(y = class 1) (``pos_label``
names class 1); class 0 is the papers' "positive" class and an instance is predicted
class 0 iff ``s <= t``; ``c0 = 2c`` is the cost of a class-0 instance predicted class 1
and ``c1 = 2(1 - c)`` the converse. Methods, by canonical name:

- ``"score-fixed"``: ``T(c) = t`` (default 0.5);
- ``"score-driven"``: ``T(c) = c``;
- ``"rate-driven"``: ``T(c) = R^{-1}(c)``, a threshold giving the positive rate ``c``;
- ``"score-uniform"``: ``T ~ U[0, 1]``;
- ``"rate-uniform"``: a positive rate drawn from ``U[0, 1]``.

``R(s)`` is the fraction of the ``n`` instances given (per model column) with a score
``<= s``. The cost proportion is uniform by default, or Beta(a, b) with
``cost_distribution=(a, b)``: closed forms through incomplete Beta functions, accurate
to 1e-10 or better (typically 1e-15) at any concentration. Pure numpy/scipy, no I/O.
"""

from metaeval.hardness._instance import (
    class_cost_curve,
    class_hardness,
    instance_cost_curve,
    instance_hardness,
    instance_hardness_at,
    instance_hardness_by_method,
    pool_cost_curve,
    pool_hardness,
)
from metaeval.hardness._threshold import METHODS, TIES

__all__ = [
    "METHODS",
    "TIES",
    "instance_hardness",
    "instance_hardness_by_method",
    "instance_hardness_at",
    "instance_cost_curve",
    "pool_hardness",
    "pool_cost_curve",
    "class_hardness",
    "class_cost_curve",
]
