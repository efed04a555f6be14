"""Tests for the β³-IRT fit: recovery on data simulated from the model, gradient, inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import approx_fprime
from scipy.special import expit
from scipy.stats import beta as beta_dist
from scipy.stats import pearsonr

from metaeval.hardness import instance_hardness
from metaeval.selection import difficulty_correlations, fit_beta3_irt, irt_responses
from metaeval.selection._irt import _objective


def _simulate(rng, n_items, n_resp):
    theta = rng.uniform(0.05, 0.95, n_resp)
    delta = rng.uniform(0.1, 0.9, n_items)
    a = rng.uniform(0.5, 4.0, n_items)
    alpha = (theta[None, :] / delta[:, None]) ** a[:, None]
    beta = ((1 - theta[None, :]) / (1 - delta[:, None])) ** a[:, None]
    return theta, delta, a, rng.beta(alpha, beta)


@pytest.mark.parametrize("seed", [0, 1])
def test_recovers_simulated_parameters(seed):
    # 100 instances x 100 models drawn from the model itself (about 0.5 s CPU)
    rng = np.random.default_rng(seed)
    theta, delta, a, R = _simulate(rng, 100, 100)
    fit = fit_beta3_irt(R, clip=1e-9)  # simulated responses: clip only against 0 and 1
    assert fit.converged
    assert pearsonr(fit.ability, theta)[0] > 0.95
    assert pearsonr(fit.difficulty, delta)[0] > 0.95
    assert pearsonr(fit.discrimination, a)[0] > 0.95
    # the maximum is at least as high as the posterior at the true parameters
    u, v = np.log(theta / (1 - theta)), np.log(delta / (1 - delta))
    Rc = np.clip(R, 1e-9, 1 - 1e-9)
    at_truth = -_objective(np.r_[u, v, a], np.log(Rc), np.log1p(-Rc), 100, 100, 1.0)[0]
    assert fit.log_posterior >= at_truth


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(3)
    n, m = 6, 4
    R = rng.uniform(0.02, 0.98, (n, m))
    x = np.r_[rng.normal(size=m), rng.normal(size=n), rng.normal(1, 1, n)]
    args = (np.log(R), np.log1p(-R), n, m, 0.7)
    numeric = approx_fprime(x, lambda p: _objective(p, *args)[0], 1e-7)
    assert_allclose(_objective(x, *args)[1], numeric, rtol=1e-4, atol=1e-5)


def test_log_density_is_the_beta_density():
    # the objective is minus the exact Beta log-likelihood plus the log-priors
    rng = np.random.default_rng(4)
    n, m = 3, 2
    R = rng.uniform(0.1, 0.9, (n, m))
    u, v, a = rng.normal(size=m), rng.normal(size=n), rng.normal(1, 0.5, n)
    theta, delta = expit(u), expit(v)
    alpha = (theta[None, :] / delta[:, None]) ** a[:, None]
    beta = ((1 - theta[None, :]) / (1 - delta[:, None])) ** a[:, None]
    loglik = beta_dist.logpdf(R, alpha, beta).sum()
    logprior = (
        np.log(theta * (1 - theta)).sum()
        + np.log(delta * (1 - delta)).sum()
        - ((a - 1) ** 2).sum() / (2 * 2.0)
    )
    value = -_objective(np.r_[u, v, a], np.log(R), np.log1p(-R), n, m, 2.0)[0]
    assert value == pytest.approx(loglik + logprior, rel=1e-10)


def test_expected_response_is_the_beta_mean():
    rng = np.random.default_rng(5)
    theta, delta, a, R = _simulate(rng, 30, 20)
    fit = fit_beta3_irt(R, clip=1e-9)
    alpha = (fit.ability[None, :] / fit.difficulty[:, None]) ** fit.discrimination[:, None]
    beta = ((1 - fit.ability[None, :]) / (1 - fit.difficulty[:, None])) ** fit.discrimination[
        :, None
    ]
    assert_allclose(fit.expected_response(), alpha / (alpha + beta), rtol=1e-10)


def test_responses_everyone_gets_right_stay_finite():
    # an instance every model answers perfectly, one nobody does: finite difficulties,
    # the extremes of the range
    R = np.array([[1.0, 1.0, 1.0], [0.9, 0.6, 0.4], [0.7, 0.5, 0.2], [0.0, 0.0, 0.0]])
    fit = fit_beta3_irt(R)
    assert np.all(np.isfinite(fit.difficulty)) and np.all(np.isfinite(fit.discrimination))
    assert fit.difficulty.argmin() == 0 and fit.difficulty.argmax() == 3


def test_irt_responses():
    y = [1, 0, 1]
    S = np.array([[0.9, 0.4], [0.2, 0.6], [0.5, 0.1]])
    assert_allclose(irt_responses(y, S), [[0.9, 0.4], [0.8, 0.4], [0.5, 0.1]])
    assert_allclose(irt_responses(["b", "a", "b"], S, pos_label="b"), irt_responses(y, S))
    assert_allclose(
        irt_responses(y, S, response="rate-driven"), 1 - instance_hardness(y, S, "rate-driven")
    )


def test_difficulty_correlations():
    frame = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [4.0, 3, 2, 1], "c": [1.0, 1, 1, 1]})
    corr = difficulty_correlations([0.1, 0.2, 0.3, 0.4], frame)
    assert corr["a"] == 1.0 and corr["b"] == -1.0 and np.isnan(corr["c"])
    kendall = difficulty_correlations([0.1, 0.3, 0.2, 0.4], frame, method="kendall")
    assert kendall["a"] == pytest.approx(4 / 6)  # 5 concordant pairs, 1 discordant


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: fit_beta3_irt([[0.5, 1.5]]), r"\[0, 1\]"),
        (lambda: fit_beta3_irt([[0.5]]), "at least 2 models"),
        (lambda: fit_beta3_irt([0.5, 0.4]), "shape"),
        (lambda: fit_beta3_irt([["a", "b"]]), "numeric"),
        (lambda: fit_beta3_irt([[0.5, np.nan]]), "finite"),
        (lambda: fit_beta3_irt([[0.5, 0.4]], clip=0.6), "clip"),
        (lambda: fit_beta3_irt([[0.5, 0.4]], discrimination_sd=0), "discrimination_sd"),
        (lambda: irt_responses([0, 1], [[0.2], [0.3]], response="auc"), "response"),
        (lambda: difficulty_correlations([0.1], pd.DataFrame({"a": [1, 2]})), "one difficulty"),
        (lambda: difficulty_correlations([0.1, 0.2], [[1], [2]]), "DataFrame"),
        (
            lambda: difficulty_correlations([0.1, 0.2], pd.DataFrame({"a": [1, 2]}), method="x"),
            "method",
        ),
    ],
)
def test_invalid_inputs_raise(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_tie_heavy_binary_responses():
    """0/1 responses with repeated patterns, two identical models, all-right/all-wrong rows."""
    from scipy.stats import spearmanr

    rng = np.random.default_rng(0)
    n, m = 300, 6
    ability = np.linspace(0.3, 0.9, m)
    difficulty = rng.uniform(0.05, 0.95, n)
    p = 1 / (1 + np.exp(-8 * (ability[None, :] - difficulty[:, None])))
    R = (rng.uniform(size=(n, m)) < p).astype(float)
    R[:30], R[30:45] = 1.0, 0.0
    R[:, 5] = R[:, 4]
    fit = fit_beta3_irt(R)
    assert fit.converged
    for v in (fit.ability, fit.difficulty, fit.discrimination):
        assert np.all(np.isfinite(v))
    assert fit.ability[4] == pytest.approx(fit.ability[5], abs=1e-6)
    patterns = {}
    for i, row in enumerate(R):
        patterns.setdefault(row.tobytes(), []).append(i)
    for rows in patterns.values():  # the same answers, the same item parameters
        assert np.ptp(fit.difficulty[rows]) < 1e-6 and np.ptp(fit.discrimination[rows]) < 1e-6
    assert fit.difficulty[:30].max() <= fit.difficulty[45:].min()  # all right: easiest
    assert fit.difficulty[30:45].min() >= fit.difficulty[45:].max()  # all wrong: hardest
    assert spearmanr(fit.difficulty, (1 - R).sum(axis=1))[0] > 0.9
    assert spearmanr(fit.ability[:5], ability[:5])[0] > 0.9
