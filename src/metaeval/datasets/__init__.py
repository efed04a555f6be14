"""Datasets for metaeval studies: the built-in suite, file readers and OpenML.

The built-in suites hold real binary tasks shipped as package data and verified
by SHA-256 on every load: ``full`` has the 51 tasks of the papers'
reproductions (15 of them in ``quick``), and ``kb``, the suite of the
knowledge base, adds 21 more (72 tasks in 63 families of base data).
:func:`read_dataset` reads the user's own CSV/TSV, Parquet, ARFF or KEEL file;
:func:`load_openml` fetches from OpenML when the optional ``openml`` package is
installed and the machine is online. Nothing is ever downloaded by default.

Every loader returns a :class:`Dataset`: categorical features as strings,
numeric features as ``float64``, missing values as ``NaN`` and ``y`` as 0/1
``int8``, where 1 marks class 1 (the class whose probability scores estimate).

Examples
--------
>>> from metaeval.datasets import list_datasets, load_dataset
>>> ds = load_dataset(list_datasets("quick")[0])
>>> ds.name, ds.n_instances, ds.n_features, round(ds.positive_fraction, 3)
('hepatitis', 155, 19, 0.206)
"""

from metaeval.datasets._base import Dataset
from metaeval.datasets._builtin import list_datasets, load_dataset, load_suite, manifest
from metaeval.datasets._frame import as_dataset
from metaeval.datasets.openml import load_openml, load_openml_suite
from metaeval.datasets.readers import read_dataset

__all__ = [
    "Dataset",
    "list_datasets",
    "load_dataset",
    "load_suite",
    "manifest",
    "read_dataset",
    "as_dataset",
    "load_openml",
    "load_openml_suite",
]
