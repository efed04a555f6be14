r"""β³-IRT: item response theory for continuous responses in [0, 1].

Instances are the items, models the respondents. Model :math:`i` has an
ability :math:`\theta_i \in (0, 1)`; instance :math:`j` a difficulty
:math:`\delta_j \in (0, 1)` and a discrimination :math:`a_j \in \mathbb{R}`.
The response :math:`p_{ij} \in (0, 1)` (e.g. the probability the model gives
to the instance's true class) is Beta distributed (Chen, Silva Filho,
Prudêncio, Diethe & Flach 2019, eqs. 1-3):

.. math::

    p_{ij} \sim \mathrm{Beta}(\alpha_{ij}, \beta_{ij}), \quad
    \alpha_{ij} = \left(\frac{\theta_i}{\delta_j}\right)^{a_j}, \quad
    \beta_{ij} = \left(\frac{1 - \theta_i}{1 - \delta_j}\right)^{a_j},

so that the expected response is
:math:`E[p_{ij}] = 1 / (1 + (\frac{\delta_j}{1 - \delta_j})^{a_j}
(\frac{1 - \theta_i}{\theta_i})^{a_j})`: above 1/2 exactly when the ability
exceeds the difficulty (for :math:`a_j > 0`).

The fit maximises the exact log-posterior with Chen et al.'s priors
(:math:`\theta, \delta \sim \mathrm{Beta}(1, 1)`,
:math:`a \sim N(1, \sigma_a^2)`) in the logit parametrisation
:math:`u = \operatorname{logit}\theta`, :math:`v = \operatorname{logit}\delta`,
with L-BFGS (scipy) and the analytic gradient, vectorised over the response
matrix. (Chen et al. fit by variational inference; this is its MAP
counterpart.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import digamma, expit, gammaln, log_expit
from threadpoolctl import threadpool_limits

__all__ = ["Beta3IRT", "fit_beta3_irt", "irt_responses", "difficulty_correlations"]

_LOG_CLIP = 60.0  # |log alpha|, |log beta| (exp(60) = 1e26)


@dataclass(frozen=True)
class Beta3IRT:
    """A fitted β³-IRT model.

    Attributes
    ----------
    ability : ndarray of shape (n_models,)
        :math:`\\theta_i \\in (0, 1)`, higher = better model.
    difficulty : ndarray of shape (n_instances,)
        :math:`\\delta_j \\in (0, 1)`, higher = harder instance.
    discrimination : ndarray of shape (n_instances,)
        :math:`a_j`; negative when the weaker models answer better.
    log_posterior : float
        The maximised log-posterior (up to a constant).
    converged : bool
    n_iter : int
    """

    ability: np.ndarray
    difficulty: np.ndarray
    discrimination: np.ndarray
    log_posterior: float
    converged: bool
    n_iter: int

    def expected_response(self):
        """E[p_ij], shape (n_instances, n_models)."""
        return _expected(self.ability, self.difficulty, self.discrimination)


def _expected(theta, delta, a):
    u = np.log(theta) - np.log1p(-theta)
    v = np.log(delta) - np.log1p(-delta)
    return expit(a[:, None] * (u[None, :] - v[:, None]))


def _objective(params, log_r, log_1r, n, m, prior_var):
    """Negative log-posterior and its gradient; params = (u (m), v (n), a (n))."""
    u, v, a = params[:m], params[m : m + n], params[m + n :]
    lt, l1t = log_expit(u), log_expit(-u)  # log theta, log(1 - theta)
    ld, l1d = log_expit(v), log_expit(-v)
    dA = lt[None, :] - ld[:, None]  # (n, m): log alpha / a
    dB = l1t[None, :] - l1d[:, None]
    logA = np.clip(a[:, None] * dA, -_LOG_CLIP, _LOG_CLIP)
    logB = np.clip(a[:, None] * dB, -_LOG_CLIP, _LOG_CLIP)
    alpha, beta = np.exp(logA), np.exp(logB)
    lbeta = gammaln(alpha) + gammaln(beta) - gammaln(alpha + beta)
    loglik = np.sum((alpha - 1.0) * log_r + (beta - 1.0) * log_1r - lbeta)
    # Jacobians of the Beta(1, 1) priors in logit space, and the N(1, var) prior on a
    logprior = np.sum(lt + l1t) + np.sum(ld + l1d) - np.sum((a - 1.0) ** 2) / (2 * prior_var)
    psi_ab = digamma(alpha + beta)
    gA = alpha * (log_r - digamma(alpha) + psi_ab)  # d loglik / d log alpha
    gB = beta * (log_1r - digamma(beta) + psi_ab)
    gA[np.abs(a[:, None] * dA) > _LOG_CLIP] = 0.0
    gB[np.abs(a[:, None] * dB) > _LOG_CLIP] = 0.0
    theta, delta = expit(u), expit(v)
    ga = gA * a[:, None]
    gb = gB * a[:, None]
    grad_u = (ga * (1 - theta)[None, :] - gb * theta[None, :]).sum(axis=0) + (1 - 2 * theta)
    grad_v = -(ga * (1 - delta)[:, None]).sum(axis=1) + (gb * delta[:, None]).sum(axis=1)
    grad_v += 1 - 2 * delta
    grad_a = (gA * dA + gB * dB).sum(axis=1) - (a - 1.0) / prior_var
    grad = np.concatenate([grad_u, grad_v, grad_a])
    return -(loglik + logprior), -grad


def _logit(p):
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p) - np.log1p(-p)


def fit_beta3_irt(responses, *, discrimination_sd=1.0, clip=1e-6, max_iter=2000, tol=1e-9):
    r"""Fit β³-IRT to a matrix of continuous responses in [0, 1].

    Maximises, over abilities :math:`\theta`, difficulties :math:`\delta` and
    discriminations :math:`a`,

    .. math::

        \sum_{i, j} \log \mathrm{Beta}(p_{ij}; \alpha_{ij}, \beta_{ij})
        + \sum_i \log \theta_i (1 - \theta_i) + \sum_j \log \delta_j (1 - \delta_j)
        - \sum_j \frac{(a_j - 1)^2}{2 \sigma_a^2}

    (the exact log-likelihood plus the log-priors of Chen et al. 2019 in logit
    coordinates) by L-BFGS with the analytic gradient. The logistic densities
    that the uniform priors put on the logits keep the difficulty of an instance
    every model answers perfectly (or none does) finite.

    Parameters
    ----------
    responses : array-like of shape (n_instances, n_models)
        Responses in [0, 1], e.g. :func:`irt_responses`; clipped to
        ``[clip, 1 - clip]`` (the Beta density needs the open interval). A larger
        ``clip`` caps the weight of extreme responses (scores of exactly 0 or 1), at
        the price of blurring the information they carry.
    discrimination_sd : float, default=1.0
        :math:`\sigma_a`, the prior standard deviation of the discriminations.
    clip : float in (0, 0.5), default=1e-6
    max_iter : int, default=2000
    tol : float, default=1e-9
        L-BFGS-B's ``ftol``.

    Returns
    -------
    model : Beta3IRT

    References
    ----------
    Chen, Y., Silva Filho, T., Prudêncio, R. B. C., Diethe, T. & Flach, P. (2019).
    β³-IRT: a new item response model and its applications. AISTATS 2019, PMLR 89,
    1013-1021.

    Examples
    --------
    Three models answering four instances; the first model is best, the last
    instance hardest:

    >>> R = [[0.95, 0.9, 0.8], [0.9, 0.7, 0.6], [0.7, 0.5, 0.3], [0.4, 0.3, 0.1]]
    >>> fit = fit_beta3_irt(R)
    >>> fit.ability.argsort().tolist(), fit.difficulty.argsort().tolist()
    ([2, 1, 0], [0, 1, 2, 3])
    """
    R = np.asarray(responses)
    if R.dtype.kind not in "biuf":
        raise ValueError(f"responses must be numeric, got dtype {R.dtype}.")
    R = R.astype(np.float64)
    if R.ndim != 2 or R.shape[0] < 1 or R.shape[1] < 2:
        raise ValueError(
            f"responses must have shape (n_instances, n_models) with at least 2 models, "
            f"got {R.shape}."
        )
    if not np.all(np.isfinite(R)) or R.min() < 0 or R.max() > 1:
        raise ValueError("responses must be finite and lie in [0, 1].")
    if not (np.isscalar(clip) and 0 < clip < 0.5):
        raise ValueError(f"clip must lie in (0, 0.5), got {clip!r}.")
    if not (np.isscalar(discrimination_sd) and discrimination_sd > 0):
        raise ValueError(f"discrimination_sd must be positive, got {discrimination_sd!r}.")
    n, m = R.shape
    R = np.clip(R, clip, 1 - clip)
    log_r, log_1r = np.log(R), np.log1p(-R)
    u0 = _logit(R.mean(axis=0))
    v0 = u0.mean() - _logit(R.mean(axis=1))
    x0 = np.concatenate([u0, v0, np.ones(n)])
    # No bounds: the priors keep the maximum finite, and L-BFGS-B's first projected
    # step onto box bounds overshoots this steep objective.
    # L-BFGS's vector updates are level-1 BLAS calls on a vector of n_models + 2 n
    # values: a threaded BLAS spends more on hand-offs than on the work (10x slower).
    with threadpool_limits(limits=1, user_api="blas"):
        res = minimize(
            _objective,
            x0,
            args=(log_r, log_1r, n, m, float(discrimination_sd) ** 2),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": int(max_iter), "ftol": tol, "gtol": 1e-6, "maxcor": 20},
        )
    u, v, a = res.x[:m], res.x[m : m + n], res.x[m + n :]
    return Beta3IRT(
        ability=expit(u),
        difficulty=expit(v),
        discrimination=a.copy(),
        log_posterior=float(-res.fun),
        converged=bool(res.success),
        n_iter=int(res.nit),
    )


def irt_responses(y, S, *, response="true-class-probability", pos_label=1, t=0.5):
    r"""Responses in [0, 1] of each model to each instance, from stored scores.

    - ``"true-class-probability"`` (Chen et al. 2019): the probability the
      model gives to the instance's class, :math:`s` for class 1 and
      :math:`1 - s` for class 0;
    - a threshold choice method (``"score-driven"``, ``"rate-driven"``, ...):
      :math:`1 - IH^T(x)`, one minus the cost-sensitive instance hardness
      (Prudêncio 2019), in [0, 1].

    Parameters
    ----------
    y : array-like of shape (n_instances,)
    S : array-like of shape (n_instances, n_models)
    response : str, default="true-class-probability"
    pos_label : scalar, default=1
    t : float, default=0.5
        Threshold of ``score-fixed``.

    Returns
    -------
    R : ndarray of shape (n_instances, n_models)

    Examples
    --------
    >>> irt_responses([1, 0], [[0.9, 0.4], [0.2, 0.6]])
    array([[0.9, 0.4],
           [0.8, 0.4]])
    """
    from metaeval._validation import check_binary_target, check_scores
    from metaeval.hardness import METHODS, instance_hardness

    if response == "true-class-probability":
        y01 = check_binary_target(y, pos_label=pos_label)
        S = check_scores(S, n_samples=y01.size, name="S")
        if S.ndim == 1:
            S = S[:, None]
        return np.where(y01[:, None] == 1, S, 1.0 - S)
    if response in METHODS:
        return 1.0 - instance_hardness(y, S, response, t=t, pos_label=pos_label)
    raise ValueError(
        f"response must be 'true-class-probability' or a threshold choice method "
        f"{METHODS}, got {response!r}."
    )


def difficulty_correlations(difficulty, frame, *, method="spearman"):
    """Rank correlation of the IRT difficulty with each hardness column of a frame.

    Parameters
    ----------
    difficulty : array-like of shape (n_instances,)
    frame : DataFrame of shape (n_instances, n_columns)
        E.g. :func:`metaeval.instance_space.hardness_frame`; numeric columns only.
    method : {"spearman", "kendall", "pearson"}, default="spearman"

    Returns
    -------
    corr : Series
        One value per numeric column (NaN for a constant column).

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"kDN": [0.0, 0.2, 0.6, 1.0], "MV": [0.0, 0.0, 0.0, 0.0]})
    >>> difficulty_correlations([0.1, 0.3, 0.2, 0.9], f).round(2).tolist()
    [0.8, nan]
    """
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    d = np.asarray(difficulty, dtype=np.float64)
    if d.shape != (len(frame),):
        raise ValueError(
            f"difficulty has shape {d.shape} but frame has {len(frame)} rows; "
            "give one difficulty per row."
        )
    if method not in ("spearman", "kendall", "pearson"):
        raise ValueError(f"method must be 'spearman', 'kendall' or 'pearson', got {method!r}.")
    numeric = frame.select_dtypes(include=[np.number, "bool"]).astype(np.float64)
    diff = pd.Series(d, index=frame.index)
    if diff.nunique() < 2:
        return pd.Series(np.nan, index=numeric.columns)
    return numeric.apply(
        lambda col: diff.corr(col, method=method) if col.nunique() > 1 else np.nan
    )
