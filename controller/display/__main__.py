"""``python -m controller.display --demo``: the dealer's display, as ``tablectl display``."""

import sys

from controller.commands.display import main

sys.exit(main())
