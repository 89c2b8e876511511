"""`python -m p2pfish` runs the command line."""

from p2pfish.launcher import main

raise SystemExit(main())
