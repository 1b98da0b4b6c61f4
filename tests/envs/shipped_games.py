"""The seeded short games the shipped agents' actions are pinned on (tests/envs/data/shipped_actions.json).

``python tests/envs/shipped_games.py OUT.json`` records them. The agents shipped before the folders were
safetensors and not replaced since (``pong_ppo``, ``magent_army_ppo``) were recorded from their
Stable-Baselines3 zips (loaded by SB3 itself), so the test shows that the conversion changed no action;
the others from their folders, so it shows that nothing since has changed how they play.
"""

from __future__ import annotations

import json
import sys
from typing import Any

#: The labels and the five game variables vizdoom_ppo reads, in a short 2-player match.
VIZDOOM_OPTIONS = {
    "screen_format": "grey",
    "enemies": True,
    "frame_skip": 4,
    "time_limit": 2.0,
    "game_variables": ["HEALTH", "ARMOR", "FRAGCOUNT", "SELECTED_WEAPON_AMMO", "HITCOUNT"],
}
#: A shipped agent -> (env, env options, opponent, seed, steps recorded).
GAMES: dict[str, tuple[str, dict[str, Any], str, int, int]] = {
    "pong_ppo": ("pong_2p", {"rounds": 1, "max_round_steps": 200}, "pong_ai", 3, 120),
    "magent_army_ppo": ("magent_battle", {"map_size": 16, "max_steps": 30}, "magent_attack_nearest", 3, 30),
    # the team waits at first (40 steps: stops only); by 120 it has moved 11 times of 240 actions
    "pommerman_team_ppo": ("pommerman", {"mode": "team", "max_steps": 120}, "pommerman_simple", 3, 120),
    "pommerman_radio_ppo": ("pommerman", {"mode": "radio", "max_steps": 40}, "pommerman_simple", 3, 40),
    "pommerman_ffa_ppo": ("pommerman", {"max_steps": 120}, "pommerman_simple", 5, 120),  # 44 moves, 76 stops
    # MuJoCo's float results differ in the last bits between CPUs: a short game, compared to 1e-3
    "soccer_ppo": ("soccer", {"time_limit": 0.25}, "random", 3, 10),
    "vizdoom_ppo": ("vizdoom_deathmatch", VIZDOOM_OPTIONS, "vizdoom_aim", 3, 60),
}


#: Agents whose game does not repeat from its seed (ViZDoom's engines spawn players elsewhere at each start,
#: docs/architecture.md): their actions are pinned on ``steps`` observations drawn from the seat's space.
DRAWN = {"vizdoom_ppo"}


def seeded_actions(name: str) -> list[list[Any]]:
    """The actions the shipped agent ``name`` takes in its seeded game, step by step, for the seats of
    its side (the first side, or seat ``player_0``), each seat its own agent; for an agent in :data:`DRAWN`,
    on observations drawn from its seat's space with the seed, one episode."""
    import envs
    from arena import play
    from arena.registry import make_agent

    env_name, options, opponent, seed, steps = GAMES[name]
    env = envs.make(env_name, **options)
    if name in DRAWN:
        seat = env.possible_agents[0]
        space = env.observation_space(seat)
        space.seed(seed)
        agent = make_agent(name)
        agent.setup(space, env.action_space(seat))
        agent.reset(seed=seed)
        drawn = [[_plain(agent.act(space.sample()))] for _ in range(steps)]
        env.close()
        return drawn
    ours = env.teams[next(iter(env.teams))] if env.teams else (env.possible_agents[0],)
    agents = {seat: make_agent(name if seat in ours else opponent) for seat in env.possible_agents}
    record: list[dict[str, Any]] = []
    play(env, agents, seed=seed, record=record, max_steps=steps)
    env.close()
    return [[_plain(actions[seat]) for seat in ours if seat in actions] for actions in record]


def _plain(action: Any) -> Any:
    """An action as JSON has it: an int, a list of ints (radio's move and two words), or a list of floats
    rounded to 5 decimals (soccer's controls)."""
    import numpy as np

    values = np.asarray(action)
    if np.issubdtype(values.dtype, np.floating):
        return [round(float(part), 5) for part in values.reshape(-1)]
    return int(action) if np.ndim(action) == 0 else [int(part) for part in values.reshape(-1)]


if __name__ == "__main__":
    found = {name: seeded_actions(name) for name in GAMES}
    with open(sys.argv[1], "w") as handle:
        json.dump(found, handle, indent=None)
        handle.write("\n")
    print({name: len(actions) for name, actions in found.items()})
