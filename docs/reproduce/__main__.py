"""``python -m docs.reproduce``: write docs/reproduction.md from a results store."""

import sys

from .document import main

sys.exit(main())
