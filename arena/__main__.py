"""``python -m arena`` runs the command line."""

import sys

from arena.cli import main

sys.exit(main())
