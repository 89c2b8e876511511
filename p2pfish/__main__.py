"""`python -m p2pfish` runs the command line."""

from p2pfish.cli import main

raise SystemExit(main())
