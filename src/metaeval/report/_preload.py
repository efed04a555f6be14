"""What the report's worker processes draw with, imported once by the fork server.

The fork server (:func:`metaeval.report._render.start_fork_server`) imports this module
before it forks the first worker: every worker then starts with these modules (the
scientific stack, matplotlib's font list) already in memory, instead of each importing
them again, and the fork server imports them while the report's own process still reads
the store.
"""

import matplotlib.backends.backend_agg  # noqa: F401
import matplotlib.backends.backend_svg  # noqa: F401
import PIL.PngImagePlugin  # noqa: F401
import sklearn.naive_bayes  # noqa: F401
import sklearn.neighbors  # noqa: F401
import threadpoolctl  # noqa: F401

import metaeval.hardness.classic  # noqa: F401
import metaeval.instance_space  # noqa: F401
import metaeval.recommend  # noqa: F401
import metaeval.report._builders  # noqa: F401
import metaeval.report._instance_selection  # noqa: F401
import metaeval.report._intermediates  # noqa: F401
import metaeval.report._recommend  # noqa: F401
import metaeval.report.html  # noqa: F401
import metaeval.selection  # noqa: F401
import metaeval.similarity  # noqa: F401
import metaeval.store._cache  # noqa: F401
