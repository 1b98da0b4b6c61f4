"""Compile Pommerman's numba code into the disk cache: the suite starts this beside itself (conftest.py).

Run as a script. Each constructor compiles what it needs where the cache is cold, under the lock
file that ``envs.pommerman._jit.compile_once`` takes, so a test that needs a part while this process
compiles it waits and then loads it; where the cache is warm, each loads in about a second.
"""

from __future__ import annotations

from envs.pommerman.agents import PommermanSimpleAgent, PommermanSimpleBatch
from envs.pommerman.batch import PommermanBatch
from envs.pommerman.env import Pommerman
from interfaces.pommerman_safety import safe_moves

# in the order the suite's first tests need them (one lock serialises the compiles): the rules, the
# scripted agent, the batch and its scripted agents, the action filter, the threaded batch
env = Pommerman(max_steps=10)
observations, _ = env.reset(seed=0)
agent = PommermanSimpleAgent(seed=0)
agent.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
batch = PommermanBatch(2, max_steps=10)
PommermanSimpleBatch(batch, seed=0)
safe_moves(observations["agent_0"])
PommermanBatch(2, max_steps=10, threads=2).reset(seed=0)
env.close()
