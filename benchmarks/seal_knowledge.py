"""Add the checksum of its arrays to a knowledge base file written before files had one.

Every other member is written back unchanged (the same arrays, the same ``.npy`` bytes,
in the same deterministic zip layout as ``metaeval knowledge build``); only the
``checksum`` member (the SHA-256 over the arrays) is added. Running it again gives the
same bytes. It refuses a file whose arrays do not validate. Files of either format
(``metaeval-knowledge/1``, one repetition; ``/2``, a repetition axis) are sealed as they
are: the format is not changed.

Usage: python benchmarks/seal_knowledge.py SOURCE.npz [TARGET.npz]   (default: in place)
"""

from __future__ import annotations

import sys

import numpy as np

from metaeval.benchmark import SKLEARN_METRICS
from metaeval.hardness import METHODS
from metaeval.recommend.knowledge._archive import GRID, LINEAR_METHODS, load_knowledge
from metaeval.recommend.knowledge._archive_file import (
    CHECKSUM,
    FORMATS,
    array_checksum,
    check_members,
    read_members,
    write_members,
)


def seal(source, target=None) -> str:
    data = read_members(source, str(source))
    data.pop(CHECKSUM, None)
    data[CHECKSUM] = np.array(array_checksum(data))
    # everything but the checksum must already validate
    check_members(data, str(source), fmt=FORMATS, methods=METHODS, grid_size=GRID.size,
                  linear_methods=LINEAR_METHODS, metric_names_known=SKLEARN_METRICS)
    write_members(target or source, data, "TARGET")
    load_knowledge(target or source)
    return str(data[CHECKSUM])


if __name__ == "__main__":
    print(seal(*sys.argv[1:3]))
