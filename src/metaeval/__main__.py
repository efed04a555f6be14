"""``python -m metaeval``: the command line (see :mod:`metaeval.cli`)."""

from metaeval.cli import main

if __name__ == "__main__":
    main()
