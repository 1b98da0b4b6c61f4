"""Compile Pommerman's numba code into the disk cache: the suite starts this beside itself (conftest.py).

Run as a module from the checkout's root, ``python -m tests._warm_numba``: run as a script, Python would
put ``tests/`` first on ``sys.path``, where the env tests' package ``tests/envs`` hides the checkout's
``envs`` (the import then fails, or finds another installed copy). ``--where`` prints the file of the
``envs.pommerman`` it imports, and compiles nothing.

Each constructor compiles what it needs where the cache is cold, under the lock file that
``envs.pommerman._jit.compile_once`` takes, so a test that needs a part while this process compiles it
waits and then loads it; where the cache is warm, each loads in about a second.
"""

from __future__ import annotations

import sys
import time


def main() -> None:
    if sys.argv[1:] == ["--where"]:
        import envs.pommerman

        print(envs.pommerman.__file__)
        return
    from envs.pommerman.agents import PommermanSimpleAgent, PommermanSimpleBatch
    from envs.pommerman.batch import PommermanBatch
    from envs.pommerman.env import Pommerman
    from envs.pommerman.room import room_planes
    from interfaces.pommerman_safety import safe_moves

    # in the order the suite's first tests need them (one lock serialises the compiles): the rules, the
    # scripted agent, the batch and its scripted agents, the action filter and the room count, the threaded batch
    env = Pommerman(max_steps=10)
    observations, _ = env.reset(seed=0)
    _let_waiters_in()
    agent = PommermanSimpleAgent(seed=0)
    agent.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    _let_waiters_in()
    batch = PommermanBatch(2, max_steps=10)
    _let_waiters_in()
    PommermanSimpleBatch(batch, seed=0)
    safe_moves(observations["agent_0"])
    views, _ = batch.reset(seed=0)
    room_planes(views.reshape(-1, *views.shape[-3:]))  # the room count: the evaders' and pommerman_room_planes'
    _let_waiters_in()
    PommermanBatch(2, max_steps=10, threads=2).reset(seed=0)
    env.close()


def _let_waiters_in() -> None:
    """Pause between parts: the compile lock (``flock``) is not fair, and a test that waits for the part
    just compiled (the suite's collection builds a Pommerman env) could otherwise wait for every part."""
    time.sleep(0.2)


if __name__ == "__main__":
    main()
