"""`python -m p2pfish` runs the command line, and the process ends as soon as the command returns."""

from p2pfish.launcher import run

run()
