"""Generate ``docs/reproduction.md``: the five source documents, reproduced from one study.

Usage::

    python -m docs.reproduce --store metaeval-results/full.duckdb --out docs/

Reads a store written by ``metaeval run --suite full`` through metaeval's public API
(:class:`metaeval.store.Store`, :mod:`metaeval.hardness`, :mod:`metaeval.similarity`,
:mod:`metaeval.ranking`, :mod:`metaeval.benchmark`, :mod:`metaeval.report`) and writes
``OUT/reproduction.md`` with its figures under ``OUT/figures/``. The documents:

- Melo & Prudêncio (2014), "Cost-sensitive measures of algorithm similarity for
  meta-learning" (BRACIS) and its ECAI 2014 MetaSel workshop version "Similarity
  measures of algorithm performance for cost-sensitive scenarios";
- Prudêncio (2019), "Cost sensitive evaluation of instance hardness in machine learning";
- Abdulrahman & Brazdil (2014), "Measures for combining accuracy and time for
  meta-learning";
- the algorithm-benchmark web page on value captured, metric disagreement and bootstrap
  stability.

Every claim is checked by code: a statistic computed on our data, a bootstrap interval
(datasets, or instances for single-dataset claims), the share of resamples that keep the
verdict and the rate at which a null model earns the same verdict; the verdict follows
from those numbers by :func:`.evidence.verdict`. ``--draws`` sets the number of resamples and
null draws (small values make a quick test run).

One module per document (``melo_prudencio``, ``prudencio``, ``abdulrahman``, ``web``),
each turning its claims into evidence with the shared helpers: ``evidence`` (claims,
intervals, Holm's correction, verdicts and their markdown), ``resampling`` (bootstrap
batches and null models) and ``study`` (what is read from the store);
``document`` puts the sections together and holds the command line.
"""
