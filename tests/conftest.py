"""Suite-wide settings."""

from envs.vizdoom import VizdoomDeathmatch

# The registry-wide tests build every bundled env with its defaults; ViZDoom matches run real
# engines in real time, so the suite plays short ones (2 s of game time, about 18 steps).
VizdoomDeathmatch.default_time_limit = 2.0
