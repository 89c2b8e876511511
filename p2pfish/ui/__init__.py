"""Human front ends: the terminal renderings of a seat's view."""
