"""The time model of rows and columns and its leave-one-family-out error."""

from __future__ import annotations

import numpy as np

from metaeval.recommend._timing import fit_time_model, predict_times, time_model_errors


def test_a_planted_power_law_is_recovered_and_predicted_exactly():
    rng = np.random.default_rng(0)
    rows = rng.integers(50, 50_000, 20).astype(float)
    columns = rng.integers(2, 500, 20).astype(float)
    truth = np.array([[np.log(0.01), 1.0, 0.5], [np.log(3.0), 1.3, 1.0]])
    times = predict_times(truth, rows, columns)
    np.testing.assert_allclose(fit_time_model(rows, columns, times), truth, atol=1e-9)
    families = [f"f{i // 2}" for i in range(20)]
    errors = time_model_errors(rows, columns, times, families)
    assert errors["rows and columns"] < 1e-9
    # the linear-in-rows prediction ignores the columns and the exponent 1.3: it errs
    assert errors["rows, linear"] > 0.1


def test_failed_cells_are_scored_nowhere():
    rng = np.random.default_rng(1)
    rows = rng.integers(50, 50_000, 20).astype(float)
    columns = rng.integers(2, 500, 20).astype(float)
    times = predict_times(np.array([[0.0, 1.0, 0.2]]), rows, columns)
    times[3, 0] = np.nan  # a failed cell: not a truth, imputed when training
    errors = time_model_errors(rows, columns, times, [f"f{i}" for i in range(20)])
    assert np.isfinite(errors["rows and columns"])
    assert errors["rows and columns"] < 0.05  # the median: one imputed cell barely moves it
