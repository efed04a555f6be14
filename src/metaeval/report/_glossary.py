"""The report's glossary: every abbreviation it prints, and human names for code names.

One table, :data:`TERMS`, maps an abbreviation to its long name and a one-line
explanation; :func:`human_name` turns the code names of metrics and measures
(``balanced_accuracy``, ``true_class_probability_loss``, ``hardness:rate-driven``)
into words; :func:`glossary_html` renders the glossary section, with the study's
own algorithms (name, estimator, hyperparameters) added.
"""

from __future__ import annotations

import html

__all__ = ["TERMS", "glossary_html", "human_name"]

#: Abbreviation -> (long name, explanation). Grouped as the report meets them.
TERMS: dict[str, tuple[str, str]] = {
    # threshold choice methods (Prudêncio 2019)
    "SF": ("score-fixed", "threshold choice method: a fixed threshold t on the score "
           "(Prudêncio 2019)."),
    "SD": ("score-driven", "threshold choice method: the threshold equals the cost "
           "proportion c (Prudêncio 2019)."),
    "RD": ("rate-driven", "threshold choice method: the threshold that predicts class 1 "
           "for a share c of the instances (Prudêncio 2019)."),
    "SU": ("score-uniform", "threshold choice method: a threshold drawn uniformly from "
           "[0, 1] (Prudêncio 2019)."),
    "RU": ("rate-uniform", "threshold choice method: a predicted-positive rate drawn "
           "uniformly from [0, 1] (Prudêncio 2019)."),
    # hardness (Prudêncio 2019)
    "IH": ("instance hardness", "the area under an instance's cost curve: its expected "
           "loss over the cost proportions, 0 = always right, 1 = always wrong on "
           "average (Prudêncio 2019)."),
    "CH": ("class hardness", "the mean instance hardness of the instances of a class "
           "(Prudêncio 2019)."),
    "QI": ("instance loss", "the loss of one instance at cost proportion c under a "
           "threshold choice method, between 0 and 2 (Prudêncio 2019)."),
    # rankings (Abdulrahman & Brazdil 2014)
    "AR": ("average rank", "mean rank of an algorithm over the datasets (1 = best)."),
    "SRR": ("success rate ratio", "an algorithm's success over another's, averaged over "
            "datasets and rivals (Brazdil, Soares & da Costa 2003)."),
    "SW": ("significant wins", "how often an algorithm beats another significantly (a paired "
           "t-test over the folds) (Brazdil, Soares & da Costa 2003)."),
    "ARR": ("adjusted ratio of ratios", "success rate ratio divided by "
            "1 + AccD·log10(time ratio) (Brazdil, Soares & da Costa 2003; Abdulrahman & "
            "Brazdil 2014, eq. 1)."),
    "A3R": ("adjusted ratio of ratios of accuracy and run time", "success rate ratio "
            "divided by the n-th root of the time ratio (Abdulrahman & Brazdil 2014, eq. 2)."),
    "AccD": ("accuracy for a 10× speed-up", "the share of accuracy one is willing to trade "
             "for a ten times faster algorithm, the weight of time in ARR."),
    "CD": ("critical difference", "the least difference in average rank the Nemenyi test "
           "calls significant (Demšar 2006)."),
    # classic instance hardness measures (Smith, Martinez & Giraud-Carrier 2014;
    # Lorena et al. 2019; Paiva et al. 2022)
    "kDN": ("k-disagreeing neighbours", "share of the k nearest neighbours from another "
            "class."),
    "DS": ("disjunct size", "1 minus the normalised size of the instance's leaf in an "
           "unpruned decision tree."),
    "DCP": ("disjunct class percentage", "share of the instance's pruned-tree leaf from "
            "another class."),
    "TD_P": ("tree depth, pruned", "normalised depth of the instance's leaf in a pruned "
             "decision tree."),
    "TD_U": ("tree depth, unpruned", "normalised depth of the instance's leaf in a full "
             "decision tree."),
    "CL": ("class likelihood", "1 minus the naive-Bayes posterior of the true class."),
    "CLD": ("class likelihood difference", "own-class minus best other-class likelihood, "
            "complemented."),
    "MV": ("minority value", "how much smaller the instance's class is than the largest "
           "class."),
    "CB": ("class balance", "the skew of the instance's class, complemented."),
    "N1": ("borderline points (instance N1)", "share of the instance's minimum-spanning-tree "
           "neighbours from another class."),
    "N2": ("intra/extra-class distance (instance N2)", "nearest same-class distance against "
           "nearest-enemy distance."),
    "LSC": ("local set cardinality", "1 minus the relative size of the local set (the "
            "instances closer than the nearest enemy)."),
    "LSR": ("local set radius", "1 minus the normalised radius of the local set."),
    "F1": ("feature overlap (instance F1)", "share of features on which the instance lies in "
           "the classes' overlap region. Not the F1 score, which the report writes out."),
    "F2": ("overlap closeness, min (instance F2)", "closeness to the overlap region, least "
           "over the features."),
    "F3": ("overlap closeness, mean (instance F3)", "closeness to the overlap region, mean "
           "over the features."),
    "F4": ("overlap closeness, max (instance F4)", "closeness to the overlap region, largest "
           "over the features."),
    # everything else the report abbreviates
    "PCA": ("principal component analysis", "the 2-D maps place the instances on the first "
            "two principal components of the standardised, one-hot encoded features."),
    "PC1": ("first principal component", "horizontal axis of the maps, with its share of "
            "the variance."),
    "PC2": ("second principal component", "vertical axis of the maps, with its share of "
            "the variance."),
    "AUC": ("area under the ROC curve", "a metric of the scores; higher is better."),
    "MCC": ("Matthews correlation coefficient", "a metric of the predicted labels, from "
            "−1 to 1; higher is better."),
    "CV": ("cross-validation", "each dataset's instances are split in folds; every fold is "
           "predicted by a model fitted on the others."),
    "Q1": ("first quartile", "of the algorithms' values on one dataset and metric: where "
           "value captured is 0 %."),
    "MetaSel": ("MetaSel workshop", "Meta-learning and Algorithm Selection workshop at ECAI "
                "2014, where the longer version of Melo & Prudêncio (2014) appeared (the "
                "shorter one is in BRACIS 2014); the report cites its equations and figures."),
    "ECAI": ("European Conference on Artificial Intelligence", "2014 edition: the MetaSel "
             "workshop."),
    "BRACIS": ("Brazilian Conference on Intelligent Systems", "2014 edition: the shorter "
               "version of Melo & Prudêncio (2014)."),
    "MIL": ("mean interval loss", "the loss of a recommended order of algorithms, averaged "
            "over a logarithmic interval of time (Abdulrahman et al. 2018), here from 1 % to "
            "100 % of the CPU time the whole pool takes on the held-out dataset; lower is "
            "better."),
    "loss@k": ("loss after k tests", "the success of the best algorithm on the held-out "
               "dataset minus that of the best of the first k recommended; before the first "
               "test, the best minus the worst."),
    "closed gap": ("closed gap of the first pick", "(first pick's mean success - single "
                   "best's) / (best first's - single best's): 0 = as good as the single best "
                   "of the past datasets, 1 = always the best algorithm first."),
    "P": ("time weight of A3R", "the exponent of time in A3R, success / time^P "
          "(Abdulrahman & Brazdil 2014): 0 ignores time, 1/64 lets time count a little."),
    "vs random": ("against the random order", "a strategy's loss against that of trying the "
                  "algorithms in a uniformly random order (exact after k tests; from 10,000 "
                  "orders over time), paired over held-out datasets."),
    "IRT": ("item response theory", "models each instance's difficulty and discrimination "
            "from the algorithms' answers."),
    "CPU": ("central processing unit", "the processor; CPU time is the time it spent on a "
            "fit or a prediction, which other programs on the machine do not inflate."),
    "NumPy": ("NumPy", "the array library the measures are computed with."),
    "SciPy": ("SciPy", "the scientific library behind the Beta functions, statistical tests "
              "and clustering."),
    "DuckDB": ("DuckDB", "the database engine of the results store (one file)."),
    "PyArrow": ("PyArrow", "the library that reads and writes the Parquet exports."),
}

#: Code names of metrics and measures -> the words the report prints.
_HUMAN = {
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced accuracy",
    "f1": "F1 score",
    "mcc": "Matthews correlation",
    "precision": "precision",
    "recall": "recall",
    "auc": "AUC",
    "average_precision": "average precision",
    "brier": "Brier score",
    "log_loss": "log loss",
    "misclassification_rate": "misclassification rate",
    "true_class_probability_loss": "true-class probability loss",
    "Harmfulness": "harmfulness",
    "Usefulness": "usefulness",
}


def human_name(code: str) -> str:
    """The words for a metric's or measure's code name.

    ``hardness:<method>`` becomes "mean instance hardness (<method>)", an
    underscore becomes a space; abbreviations of :data:`TERMS` stay as they are.

    Examples
    --------
    >>> human_name("balanced_accuracy"), human_name("hardness:rate-driven")
    ('balanced accuracy', 'mean instance hardness (RD)')
    >>> human_name("kDN"), human_name("true_class_probability_loss")
    ('kDN', 'true-class probability loss')
    """
    code = str(code)
    if code in _HUMAN:
        return _HUMAN[code]
    if code in TERMS:
        return code
    if code.startswith("hardness:"):
        method = code.split(":", 1)[1]
        abbrev = {v[0]: k for k, v in TERMS.items()}.get(method, method)
        return f"mean instance hardness ({abbrev})"
    return code.replace("_", " ")


def _params_text(params) -> str:
    """``n_neighbors = 3, weights = uniform`` from a JSON object (or a mapping); "" if none."""
    import json

    if params is None or params != params:  # None or NaN
        return ""
    if isinstance(params, str):
        try:
            params = json.loads(params)
        except ValueError:
            return params
    return ", ".join(f"{k} = {v}" for k, v in dict(params).items())


def glossary_html(algorithms=None) -> str:
    """The glossary section's markup: the study's algorithms, then :data:`TERMS`.

    Parameters
    ----------
    algorithms : pandas.DataFrame, optional
        The store's algorithms table (``name``, ``estimator`` and, where recorded,
        ``params``); each becomes a term of its own.

    Returns
    -------
    str
        A ``<dl class="glossary">`` whose terms carry ``id="g-<term>"``.
    """
    esc = lambda v: html.escape(str(v), quote=True)  # noqa: E731
    items = []
    if algorithms is not None and len(algorithms):
        for _, row in algorithms.iterrows():
            name = str(row.get("name", ""))
            what = str(row.get("estimator", "") or "")
            params = _params_text(row.get("params")) if "params" in row else ""
            extra = f" with {params}" if params else ""
            items.append(f'<dt id="g-{esc(name)}">{esc(name)}</dt>'
                         f"<dd>algorithm of this study: {esc(what)}{esc(extra)}</dd>")
    for term, (long, text) in TERMS.items():
        items.append(f'<dt id="g-{esc(term)}">{esc(term)}</dt>'
                     f"<dd><b>{esc(long)}</b>: {esc(text)}</dd>")
    return ('<p class="note">Abbreviations in headings, tables and figures. Metric names '
            "are written out (e.g. balanced accuracy); the classic measures follow Smith, "
            "Martinez &amp; Giraud-Carrier (2014), Lorena et al. (2019) and Paiva et al. "
            "(2022).</p>"
            f'<dl class="glossary">{"".join(items)}</dl>')
