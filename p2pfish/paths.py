"""Where p2pfish keeps a user's game stores on this machine."""

import os
from pathlib import Path


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME", "")
    return (Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state") / "p2pfish"
