"""ViZDoom's fast mode: one engine, the learner alone against built-in bots, no network lockstep."""

from __future__ import annotations

import json
import shlex
import warnings

import numpy as np
import pytest

vizdoom = pytest.importorskip("vizdoom")

from arena.cli import main
from arena.errors import ContractViolation
from arena.testing import check_env
from envs.vizdoom import VizdoomDeathmatch
from envs.vizdoom.recipe import FAST_OPTIONS, training_recipe

LONE = {"players": 1, "bots": 2, "screen_format": "grey", "time_limit": 2.0}
IDLE = {"player_0": np.zeros(7, np.int8)}


def _episode(env: VizdoomDeathmatch, seed: int | None, actions: int = 0) -> list[bytes]:
    """The screens and frags of one episode played with seeded random buttons (``actions``: their seed)."""
    observations, _ = env.reset(seed=seed)
    rng = np.random.default_rng(actions)
    trace = [observations["player_0"]["screen"].tobytes()]
    while observations:
        observations, rewards, _, _, infos = env.step({"player_0": rng.integers(0, 2, 7).astype(np.int8)})
        trace += [o["screen"].tobytes() for o in observations.values()] + [repr((rewards, infos)).encode()]
    return trace


def test_one_engine_hosts_the_learner_and_the_bots_and_a_step_is_frame_skip_tics(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    env = VizdoomDeathmatch(**LONE, frame_skip=3)
    assert env.possible_agents == ["player_0"] and not env.radar and env.metadata["reproducible"] is False
    observations, infos = env.reset(seed=0)
    assert len(env.engine_pids) == 1
    observation = observations["player_0"]
    assert set(observation) == {"screen", "variables", "enemies"}  # no radar: bots are not on it
    assert observation["screen"].shape == (120, 160, 1) and observation["enemies"].shape == (2, 5)
    assert env.observation_space("player_0").contains(observation)
    game = env._engines.games[0]
    assert game.get_game_variable(vizdoom.GameVariable.PLAYER_COUNT) == 3  # the learner and 2 bots
    began = game.get_episode_time()
    observations, rewards, terminations, truncations, infos = env.step(IDLE)
    assert game.get_episode_time() - began == 3  # the action held for frame_skip tics, in one make_action
    game.send_game_command("kill")  # a suicide costs a frag: the step's reward sums its tics' frags
    observations, rewards, terminations, truncations, infos = env.step(IDLE)
    assert rewards == {"player_0": -1.0} and infos["player_0"]["dead"] and infos["player_0"]["deaths"] == 1
    steps = 2
    while observations:
        observations, rewards, terminations, truncations, infos = env.step(IDLE)
        steps += 1
    # 70 tics in 2 s, less the few that added the bots at reset
    assert (
        (70 - 8) // 3 <= steps <= -(-70 // 3)
        and terminations == {"player_0": True}
        and truncations == {"player_0": False}
    )
    pids = env.engine_pids
    observations, infos = env.reset(seed=1)  # by default a seeded reset restarts the map on the running engine
    assert env.engine_pids == pids
    # A match's count, not the engine's; the bots' frags start over too (they rejoin at each restart).
    assert infos["player_0"] == {"frags": 0, "deaths": 0, "dead": False, "bot_frags": [0, 0]}
    env.close()
    assert env.engine_pids == []


def test_reproducible_seeds_give_the_same_episode_and_other_seeds_another() -> None:
    env = VizdoomDeathmatch(**LONE, enemies=False, reproducible=True)
    assert env.metadata["reproducible"] is True and VizdoomDeathmatch.metadata["reproducible"] is False
    try:
        first = _episode(env, seed=7)
        assert _episode(env, seed=7) == first  # a new engine: the running one's random state is gone
        assert _episode(env, seed=8) != first
        later = [_episode(env, seed=None, actions=1) for _ in range(2)]  # unseeded: the map restarts
        assert later[0] != later[1]
    finally:
        env.close()


def test_the_checkers_pass_on_the_fast_mode() -> None:
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import parallel_api_test, parallel_seed_test

    from arena.adapters.pettingzoo import to_parallel

    def make() -> VizdoomDeathmatch:
        return VizdoomDeathmatch(**LONE, enemies=False, reproducible=True)

    check_env(make(), episodes=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        parallel = to_parallel(make())
        parallel_api_test(parallel, num_cycles=20)
        parallel.close()
        parallel_seed_test(lambda: to_parallel(make()), num_cycles=20)


def test_without_reproducible_the_checker_does_not_replay_its_episodes(monkeypatch) -> None:
    env = VizdoomDeathmatch(**LONE, enemies=False)
    monkeypatch.setattr(env, "metadata", {**env.metadata, "reproducible": True})  # a false claim is caught
    with pytest.raises(ContractViolation, match="two episodes with seed 0 and the same actions differ"):
        check_env(env, episodes=1)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 0, "bots": 1}, "players must be an integer in 1..4, got 0"),
        ({"players": 1}, "players=1 plays alone against built-in bots: bots must be 1-8, got 0"),
        (
            {"players": 1, "bots": 2, "radar": True},
            "radar=True needs other players to show (bots are not on it), got players=1; leave radar at None or False",
        ),
        ({"players": 1, "bots": 2, "radar": "yes"}, "radar must be True, False or None, got 'yes'"),
        (
            {"players": 2, "reproducible": True},
            "reproducible=True needs players=1 (networked engines apply inputs at tics that depend on timing), "
            "got players=2",
        ),
        ({"players": 1, "bots": 2, "reproducible": 1}, "reproducible must be True or False, got 1"),
        (
            {"players": 1, "bots": 2, "scenario": "duel"},
            "the 'duel' map has 2 deathmatch starts, too few for 1 players and 2 bots",
        ),
    ],
)
def test_bad_fast_mode_options_are_named(options, message) -> None:
    with pytest.raises((ValueError, TypeError)) as caught:
        VizdoomDeathmatch(**options)
    assert str(caught.value) == f"VizdoomDeathmatch: {message}"


def test_arena_train_trains_the_recipe_alone_against_bots(tmp_path, capsys) -> None:
    pytest.importorskip("stable_baselines3")
    from arena.training.trained import trained_elsewhere

    assert training_recipe().env_options == FAST_OPTIONS and FAST_OPTIONS["players"] == 1
    out = tmp_path / "doom"
    argv = ["train", "vizdoom_deathmatch", "--timesteps", "128", "--eval-games", "2", "--n-envs", "1"]
    argv += ["--progress", "none", "--out", str(out)]
    argv += ["--algo-options", '{"n_steps": 64, "batch_size": 64, "n_epochs": 1}']
    assert main(argv) == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    # alone against bots, the learner's seat trains on a worker batch of single engines (the one trainer)
    assert "trained ppo on vizdoom_deathmatch for 128 timesteps" in printed and "(workers path, 1 games)" in printed
    manifest = json.loads((out / "agent.json").read_text())
    assert manifest["env_options"] == FAST_OPTIONS  # the recipe's fast mode, not the networked match
    # The printed tournament enters the agent in the 2-player match (a lone player has no seat to share),
    # on the screens it trained with, and it plays there without a warning that it learned another game.
    command = shlex.split(printed.split("the folder is an agent: ")[1].splitlines()[0])
    match = json.loads(command[command.index("--env-options") + 1])
    assert command[:3] == ["arena", "tournament", "vizdoom_deathmatch"]
    assert match == {name: value for name, value in FAST_OPTIONS.items() if name not in ("players", "bots")}
    assert command[command.index("--agents") + 1] == f"{out},random"
    assert trained_elsewhere(manifest, VizdoomDeathmatch(**match)) == []
    assert trained_elsewhere(manifest, VizdoomDeathmatch(**{**match, "frame_skip": 2})) == ["frame_skip=4 (here: 2)"]
    # The manifest's JSON keeps the env's tuple of game variables as a list: the same option, no warning.
    variables = {"env_options": {"game_variables": ["HEALTH", "HITCOUNT"]}}
    assert trained_elsewhere(variables, VizdoomDeathmatch(game_variables=("HEALTH", "HITCOUNT"))) == []
    # A match of another length is the same game (time_limit is a training option).
    assert trained_elsewhere(manifest, VizdoomDeathmatch(**{**match, "time_limit": 60.0})) == []
    assert trained_elsewhere(variables, VizdoomDeathmatch(game_variables=("HEALTH",))) == [
        "game_variables=['HEALTH', 'HITCOUNT'] (here: ('HEALTH',))"
    ]
    assert main([*command[1:], "--games", "2", "--max-steps", "40", "--progress", "none"]) == 0, capsys.readouterr()
    assert "2 of 2 games stored" in capsys.readouterr().out
