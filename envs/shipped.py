"""Trained agents arena ships: folders of package data, registered as agents like the scripted ones.

Each shipped agent is a folder that ``arena train --out`` wrote (the policy's weights as a
safetensors file, ``agent.json`` with its policy, interface stack, hyperparameters and the weights'
SHA-256, ``recipe.json``, ``evaluations.csv`` and the learning curve; no pickle), kept beside the game it plays (``envs/<game>_trained/<name>/``), with the
command and seed that trained it in the manifest (``"command"``, ``"seed"``). The
``arena.agents`` entry points name the factories below, so ``--agents pong_ppo`` works
wherever a registered agent does; loading goes through
:func:`arena.training.trained.load_trained_agent` (manifest checked, SHA-256 verified, names
resolved through the registry only). Loading needs the ``train`` extra (Stable-Baselines3, torch,
safetensors).

Example::

    from envs.shipped import SHIPPED, shipped_folder
    print(sorted(SHIPPED), shipped_folder("pong_ppo"))
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.agents.base import Agent
from arena.errors import UnknownNameError

__all__ = [
    "SHIPPED",
    "pong_ppo",
    "magent_army_ppo",
    "pommerman_team_ppo",
    "pommerman_radio_ppo",
    "pommerman_ffa_ppo",
    "soccer_ppo",
    "vizdoom_ppo",
    "shipped_folder",
    "load_shipped",
]

_HERE = Path(__file__).resolve().parent
#: Shipped agent name -> its folder, relative to the ``envs`` package.
SHIPPED: dict[str, str] = {
    "pong_ppo": "pong_trained/pong_ppo",
    "magent_army_ppo": "magent_trained/magent_army_ppo",
    "pommerman_team_ppo": "pommerman_trained/pommerman_team_ppo",
    "pommerman_radio_ppo": "pommerman_trained/pommerman_radio_ppo",
    "pommerman_ffa_ppo": "pommerman_trained/pommerman_ffa_ppo",
    "soccer_ppo": "soccer_trained/soccer_ppo",
    "vizdoom_ppo": "vizdoom_trained/vizdoom_ppo",
}


def shipped_folder(name: str) -> Path:
    """The package-data folder of the shipped agent ``name``.

    Raises:
        UnknownNameError: ``name`` is not a shipped agent (the text lists them).
    """
    if name not in SHIPPED:
        raise UnknownNameError(f"no shipped agent {name!r}; arena ships {', '.join(sorted(SHIPPED))}")
    return _HERE / SHIPPED[name]


def load_shipped(name: str, **options: Any) -> Agent:
    """The shipped agent ``name`` (options as :func:`~arena.training.trained.load_trained_agent` takes them:
    ``deterministic``, ``device``, ``seed``, and ``env``, the env it will play in: a tournament passes it,
    and the agent warns when that env's options differ from the ones it was trained with)."""
    from arena.training.trained import load_trained_agent

    return load_trained_agent(shipped_folder(name), name=options.pop("name", name), **options)


def pong_ppo(env: Any = None, **options: Any) -> Agent:
    """``pong_2p`` from the pixels: PPO self-play against a ladder of ``pong_ai`` players, 48 minutes
    (5,017,600 steps) on one core.

    It is trained and judged at the default physics, where the steepest return climbs 1.5 times as
    fast as ``pong_ai``'s paddle moves (``ball_spin=6``; Arena's Pong-2p: 1.6); at ``ball_spin=3`` a
    tracker returns every ball, and it warns. docs/performance.md, "Pong-2p from frames", gives its
    score against ``pong_ai`` over 40 seat-swapped games (``arena tournament pong_2p --agents
    pong_ppo,pong_ai --games 40``), the training command and the seed.
    """
    return load_shipped("pong_ppo", env=env, **options)


def magent_army_ppo(env: Any = None, **options: Any) -> Agent:
    """A ``magent_battle`` soldier trained with parameter sharing over its whole side (``control="shared"``):
    one spec plays an army, every seat of its side.

    docs/performance.md, "A trained army", gives its command, seed, steps, training time and its
    score against ``magent_attack_nearest``. It acts for a whole side at once (``act_batch``).
    """
    return load_shipped("magent_army_ppo", env=env, **options)


def pommerman_team_ppo(env: Any = None, **options: Any) -> Agent:
    """A Pommerman team-mode player on the team recipe's network and stack (the ego planes behind the action
    filter), one network for both seats of a side (``ppo=pommerman_team_ppo+pommerman_team_ppo``).

    Its weights are ``pommerman_ffa_ppo``'s, taught on by DAgger (``tools/imitate.py``) in team mode from
    ``pommerman_shadow{"approach": 2}``, which never bombs and follows the nearest enemy to two steps away
    (173.1 minutes of training in all, the free-for-all player's included). docs/performance.md, "Pommerman team mode: the
    shipped team", gives its commands, seeds, training time and its score against two
    ``pommerman_simple``, beside the teams shipped before it.
    """
    return load_shipped("pommerman_team_ppo", env=env, **options)


def pommerman_radio_ppo(env: Any = None, **options: Any) -> Agent:
    """A Pommerman radio-mode player: the team recipe's network with two more input planes (the words its
    teammate sent) and two word heads, started from the weights of ``pommerman_team_ppo``
    (``tools/warm_start.py``) and trained on in radio games against two ``pommerman_simple``; enter it in
    both seats of a side (``r=pommerman_radio_ppo+pommerman_radio_ppo``).

    docs/performance.md, "Pommerman radio mode", gives its commands, seeds, steps, training time (the team
    agent's and the radio run's) and its score against two ``pommerman_simple``.
    """
    return load_shipped("pommerman_radio_ppo", env=env, **options)


def pommerman_ffa_ppo(env: Any = None, **options: Any) -> Agent:
    """A Pommerman free-for-all player on the FFA recipe's network and stack (the ego planes behind the action
    filter), one entrant a seat (``arena tournament pommerman --mode head-to-head --agents
    'me=pommerman_ffa_ppo,s1=pommerman_simple,s2=pommerman_simple,s3=pommerman_simple'``).

    Its weights were learned by DAgger (``tools/imitate.py``): 18 rounds from ``pommerman_evader``, which never
    bombs and keeps to open ground near enemies, then 9 from ``pommerman_shadow``, which also follows the
    nearest enemy to four steps away. The recipe's PPO, run on from the evader's imitation, lowered its first
    places, so it ships as imitation left it. docs/performance.md, "Pommerman free-for-all", gives its
    commands, seeds, samples, training time and its first places against three ``pommerman_simple`` beside
    its teachers'.
    """
    return load_shipped("pommerman_ffa_ppo", env=env, **options)


def soccer_ppo(env: Any = None, **options: Any) -> Agent:
    """A soccer walker (BoxHead) whose policy first learned ``soccer_chaser``'s actions by DAgger
    (``tools/imitate.py``), trained on with PPO against two ``random``, then learned by DAgger from
    ``soccer_chaser{"support": 8, "kick_range": 3.5}`` (one walker chases, its teammate waits behind the
    ball); one entrant fills its side (``arena tournament soccer --agents soccer_ppo,random``).

    docs/performance.md, "Soccer: a side that learned from the chaser and its supporter", gives its commands, seeds, steps,
    training time and its score against two ``random`` beside the chaser's.
    """
    return load_shipped("soccer_ppo", env=env, **options)


def vizdoom_ppo(env: Any = None, **options: Any) -> Agent:
    """A ViZDoom deathmatch player whose MLP learned ``vizdoom_aim{"weave": 8, "keep": 0.12}``'s moves by DAgger
    (``tools/imitate.py``), in the 2-player match on ``cig`` with the radar and without it; one entrant a seat
    (``arena tournament vizdoom_deathmatch --agents vizdoom_ppo,vizdoom_aim --env-options '{"screen_format": "grey",
    "enemies": true, "frame_skip": 4, "time_limit": 60.0, "game_variables": ["HEALTH", "ARMOR", "FRAGCOUNT",
    "SELECTED_WEAPON_AMMO", "HITCOUNT"]}'``: the labels and those five game variables are its inputs).

    What it observes (``episode_clock(doom_target(..., radar=True), period=48)``): the nearest enemy in view from
    the engine's labels (ground truth, as Arena's ``SegmentationAsObs``), its five game variables, the nearest
    other player on the radar (zeros alone against built-in bots, who are not on it) and the step of the match
    modulo 48 (its teacher strafes and sweeps on cycles of its own steps). It picks one of 26 moves (walking,
    turning and strafing at once, ``doom_actions(actions="all_moves")``); the trigger is ``vizdoom_aim``'s rule
    (``doom_auto_fire``). It keeps the issue's name though no PPO step is in its weights, as ``pommerman_ffa_ppo``.

    docs/performance.md, "ViZDoom: a pupil that beats vizdoom_aim", gives its commands, seeds, samples, training
    time, its score against ``vizdoom_aim`` and its frags against 3 built-in bots it never met in training.
    """
    return load_shipped("vizdoom_ppo", env=env, **options)
