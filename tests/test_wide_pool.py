"""The wide pool: names, families, score procedures, studies and the CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from metaeval.algorithms import (
    WIDE_FAMILIES,
    families,
    family_of,
    get_algorithm,
    list_algorithms,
    pool_names,
)
from metaeval.algorithms._wide import parse_name, split_names, wide_algorithm
from metaeval.cli import app
from metaeval.store import Store
from metaeval.study import LocalExecutor, Study, run_study


def test_the_wide_pool_has_150_configurations_of_12_families():
    names = list_algorithms("wide")
    assert len(names) >= 150 and len(set(names)) == len(names)
    fams = families(names)
    assert len(set(fams.values())) >= 12
    assert set(fams.values()) == set(WIDE_FAMILIES)
    # every name is canonical: building it gives back the same name
    for name in names:
        assert get_algorithm(name).name == name
        assert get_algorithm(name).family == fams[name] == name.split(":")[0]


def test_each_kind_keeps_the_papers_score_procedure():
    methods = {n: get_algorithm(n).score_method for n in list_algorithms("wide")}
    by_family: dict = {}
    for n, m in methods.items():
        by_family.setdefault(family_of(n), set()).add(m)
    assert by_family["rf"] == by_family["et"] == {"tree_votes"}
    assert by_family["svm_lin"] == by_family["svm_rbf"] == by_family["ridge"] == {
        "decision_minmax"}
    assert by_family["knn"] == {"knn_fraction", "predict_proba"}
    assert by_family["sgd"] == {"decision_minmax", "predict_proba"}
    for fam in ("lr", "dt", "hgb", "ada", "gnb", "bnb", "lda", "qda", "mlp"):
        assert by_family[fam] == {"predict_proba"}, fam
    assert methods["knn:k=5,weights=uniform,metric=euclidean"] == "knn_fraction"
    assert methods["knn:k=5,weights=distance,metric=euclidean"] == "predict_proba"
    assert methods["sgd:loss=hinge,alpha=0.0001"] == "decision_minmax"


def test_names_parse_into_estimator_parameters():
    alg = get_algorithm("mlp:hidden=32x32,alpha=0.01")
    assert dict(alg.params)["hidden_layer_sizes"] == (32, 32)
    assert dict(get_algorithm("dt:depth=None,criterion=entropy").params)["max_depth"] is None
    assert get_algorithm("lr:C=1.0,penalty=l1").name == "lr:C=1,penalty=l1"
    assert get_algorithm("LR:penalty=l1,C=1").name == "lr:C=1,penalty=l1"  # canonical order
    family, config = parse_name("svm_rbf:C=10,gamma=scale")
    assert family.name == "svm_rbf" and config == {"C": 10, "gamma": "scale"}


@pytest.mark.parametrize("name, words", [
    ("forest:trees=10", "unknown algorithm family 'forest'"),
    ("knn:neighbours=5", "unknown key 'neighbours'"),
    ("knn:k", "is not key=value"),
    ("knn:k=1,k=2", "given twice"),
    ("lr:C=-1", "cannot be built"),
    ("svm_rbf:C=1,gamma=wide", "cannot be built"),
])
def test_bad_names_are_value_errors_naming_the_problem(name, words):
    with pytest.raises(ValueError, match=words):
        get_algorithm(name)


def test_families_of_the_default_pool_and_of_other_names():
    assert families(["3NN", "5NN", "NB", "SVM_LIN", "RF"]) == {
        "3NN": "knn", "5NN": "knn", "NB": "gnb", "SVM_LIN": "svm_lin", "RF": "rf"}
    assert family_of("my_model") == "my_model"
    assert family_of("custom:thing") == "custom"
    with pytest.raises(ValueError, match="name"):
        family_of(3)


def test_pool_names_rejects_an_unknown_pool():
    assert pool_names("default") == tuple(list_algorithms())
    with pytest.raises(ValueError, match="pool must be one of default, wide, got 'huge'"):
        pool_names("huge")


def test_split_names_keeps_configurations_whole():
    assert split_names("NB, rf:trees=25,features=sqrt,leaf=1 ,DT") == [
        "NB", "rf:trees=25,features=sqrt,leaf=1", "DT"]
    assert split_names(None) is None


def _toy(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "c": rng.choice(["u", "v"], size=n)})
    y = (X["a"] + 0.5 * rng.normal(size=n) > 0).astype(int).to_numpy()
    return X, y


@pytest.mark.parametrize("family", sorted(WIDE_FAMILIES))
def test_one_configuration_per_family_fits_and_scores_in_0_1(family):
    name = next(n for n in list_algorithms("wide") if n.startswith(family + ":"))
    alg = wide_algorithm(name)
    X, y = _toy(n=400)
    model = alg.build(categorical=["c"], numeric=["a", "b"], random_state=0).fit(X, y)
    s = alg.score(model, X)
    assert s.shape == (len(y),) and np.all((s >= 0) & (s <= 1))
    # a better-than-chance model: mean score higher on class 1
    assert s[y == 1].mean() > s[y == 0].mean()


def test_a_study_takes_pool_wide_and_a_failing_configuration_is_a_failed_task(tmp_path):
    study = Study(datasets=["labor"], algorithms="wide", folds=2)
    assert len(study.algorithms) == len(list_algorithms("wide"))
    toml = tmp_path / "s.toml"
    toml.write_text('datasets = ["labor"]\npool = "wide"\nfolds = 2\n')
    assert Study.from_toml(toml).algorithm_names == list_algorithms("wide")
    toml.write_text('datasets = ["labor"]\npool = "wide"\nalgorithms = ["NB"]\n')
    with pytest.raises(ValueError, match="not given with algorithms"):
        Study.from_toml(toml)
    toml.write_text('datasets = ["labor"]\npool = "huge"\n')
    with pytest.raises(ValueError, match="pool: must be one of default, wide .* got 'huge'"):
        Study.from_toml(toml)
    with pytest.raises(ValueError, match="unknown algorithm family 'forest'"):
        Study(datasets=["labor"], algorithms=["forest:trees=3"])
    # QDA without regularisation on collinear one-hot columns fails on some folds;
    # whatever fails is recorded and the study goes on.
    study = Study(datasets=["labor"], algorithms=["gnb:smoothing=1e-09", "knn:k=35"],
                  folds=2, executor=LocalExecutor(jobs=1), store=tmp_path / "w.duckdb")
    summary = run_study(study)
    # labor has 57 rows: a 35-neighbour model cannot be fitted on 28 training rows
    assert (summary.n_done, summary.n_failed) == (1, 1)
    tasks = Store(study.store).tasks().set_index("algorithm")
    assert tasks.at["knn:k=35", "status"] == "failed"
    assert tasks.at["gnb:smoothing=1e-09", "status"] == "done"


def test_cli_lists_the_wide_pool_with_families_and_rejects_unknown_pools():
    runner = CliRunner()
    result = runner.invoke(app, ["algorithms", "--pool", "wide"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "Algorithms (wide pool, " in result.output and "svm_rbf" in result.output
    assert "knn:k=3,weights=distance,metric=manhattan" in result.output
    result = runner.invoke(app, ["algorithms", "--pool", "huge"])
    assert result.exit_code == 2 and "huge" in result.output


def test_cli_run_rejects_an_unknown_configuration_with_exit_2(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["run", "--datasets", "labor", "--algorithms",
                                 "knn:k=3,colour=red", "--store", str(tmp_path / "s.duckdb"),
                                 "-q"])
    assert result.exit_code == 2 and "unknown key 'colour'" in result.output
    result = runner.invoke(app, ["run", "--datasets", "labor", "--pool", "wide",
                                 "--algorithms", "NB", "--store", str(tmp_path / "s.duckdb")])
    assert result.exit_code == 2 and "either --pool or --algorithms" in result.output
