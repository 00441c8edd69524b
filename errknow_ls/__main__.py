"""``python -m errknow_ls`` runs the command-line interface."""

import sys

from errknow_ls.cli import main

if __name__ == "__main__":
    sys.exit(main())
