"""The seeded short games the shipped agents' actions are pinned on (tests/envs/data/shipped_actions.json).

``python tests/envs/shipped_games.py OUT.json`` records them; the file in the repository was recorded
from the agents' Stable-Baselines3 zips (loaded by SB3 itself) before they were converted to
safetensors, so the test shows that the conversion changed no action.
"""

from __future__ import annotations

import json
import sys
from typing import Any

#: A shipped agent -> (env, env options, opponent, seed, steps recorded).
GAMES: dict[str, tuple[str, dict[str, Any], str, int, int]] = {
    "pong_ppo": ("pong_2p", {"rounds": 1, "max_round_steps": 200}, "pong_ai", 3, 120),
    "magent_army_ppo": ("magent_battle", {"map_size": 16, "max_steps": 30}, "magent_attack_nearest", 3, 30),
    "pommerman_team_ppo": ("pommerman", {"mode": "team", "max_steps": 40}, "pommerman_simple", 3, 40),
}


def seeded_actions(name: str) -> list[list[int]]:
    """The actions the shipped agent ``name`` takes in its seeded game, step by step, for the seats of
    its side (the first side, or seat ``player_0``), each seat its own agent."""
    import envs
    from arena import play
    from arena.registry import make_agent

    env_name, options, opponent, seed, steps = GAMES[name]
    env = envs.make(env_name, **options)
    ours = env.teams[next(iter(env.teams))] if env.teams else (env.possible_agents[0],)
    agents = {seat: make_agent(name if seat in ours else opponent) for seat in env.possible_agents}
    record: list[dict[str, Any]] = []
    play(env, agents, seed=seed, record=record, max_steps=steps)
    env.close()
    return [[int(actions[seat]) for seat in ours if seat in actions] for actions in record]


if __name__ == "__main__":
    found = {name: seeded_actions(name) for name in GAMES}
    with open(sys.argv[1], "w") as handle:
        json.dump(found, handle, indent=None)
        handle.write("\n")
    print({name: len(actions) for name, actions in found.items()})
