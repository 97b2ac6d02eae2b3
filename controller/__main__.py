"""``python -m controller`` runs the ``tablectl`` command line."""

import sys

from controller.cli.main import main

sys.exit(main())
