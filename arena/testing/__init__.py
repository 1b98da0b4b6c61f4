"""Public checkers for env, interface and agent authors (run them in your own tests).

Example:
    >>> import envs
    >>> from arena.testing import check_env
    >>> check_env(envs.make("rock_paper_scissors"))
"""

from arena.testing.agent_checker import check_agent
from arena.testing.batch_checker import check_batch
from arena.testing.env_checker import check_env, values_equal
from arena.testing.interface_checker import check_interface

__all__ = ["check_batch", "check_env", "check_interface", "check_agent", "values_equal"]
