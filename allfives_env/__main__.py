"""``python -m allfives_env COMMAND ...``: the ``allfives`` command (:mod:`allfives_env.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
