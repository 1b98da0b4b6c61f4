"""MAgent2 armies on the real magent2 package: the env contract, sides, seeds, outcome, checkers, scripted agent."""

from __future__ import annotations

import copy
import sys

import numpy as np
import pytest

pytest.importorskip("magent2", reason="the MAgent2 envs need magent2 (pip install 'arena-marl[magent]')")

from gymnasium import spaces

import envs
from arena import RandomAgent, play
from arena.errors import InvalidActionError, MissingDependencyError, SpaceMismatchError, WrongAgentsError
from arena.testing import check_agent, check_env
from envs.magent import MAgentBattle, MAgentCombinedArms
from envs.magent.agents import MAgentAttackNearestAgent
from envs.magent.layout import unit_layout

SMALL = {"magent_battle": {"map_size": 12, "max_steps": 40}, "magent_combined_arms": {"map_size": 16, "max_steps": 40}}


@pytest.mark.parametrize(
    "name,options", [*SMALL.items(), ("magent_battle", {"map_size": 12, "max_steps": 20, "minimap_mode": True})]
)
def test_keeps_the_env_contract(name, options):
    check_env(envs.make(name, **options), episodes=2)


def test_pettingzoo_parallel_api_test_passes_on_the_export():
    from pettingzoo.test import parallel_api_test

    from arena.adapters.pettingzoo import to_parallel

    for name, options in SMALL.items():
        parallel_api_test(to_parallel(envs.make(name, **options)), num_cycles=30)


def test_default_battle_is_81_against_81_in_two_sides():
    env = envs.make("magent_battle")
    assert {side: len(ids) for side, ids in env.teams.items()} == {"red": 81, "blue": 81}
    assert env.possible_agents[:2] == ["red_0", "red_1"] and env.observation_space("blue_3").shape == (13, 13, 5)
    arms = envs.make("magent_combined_arms")
    units = {unit: sum(unit in a for a in arms.teams["red"]) for unit in ("melee", "ranged")}
    assert units == {"melee": 45, "ranged": 36} and len(arms.teams["blue"]) == 81


def _battle(env, red, blue, seed):
    agents = {a: red for a in env.teams["red"]} | {a: blue for a in env.teams["blue"]}
    record: list = []
    episode = play(env, agents, seed=seed, record=record)
    return episode, record


def test_soldiers_leave_when_they_die_and_a_side_wiped_out_ends_the_battle():
    # A death penalty larger than a kill (5) and a hit together, so a soldier that hits or kills in the step
    # it dies still ends that step below -10: its penalty is visible whatever else it earned.
    env = envs.make("magent_battle", map_size=16, max_steps=300, dead_penalty=-20.0)
    observations, _ = env.reset(seed=0)
    scripted = MAgentAttackNearestAgent()
    scripted.setup(env.observation_space("red_0"), env.action_space("red_0"))
    rng = np.random.default_rng(0)
    dead: set[str] = set()
    while observations:
        actions = {
            a: scripted.act(o) if a.startswith("red") else int(rng.integers(21)) for a, o in observations.items()
        }
        observations, rewards, terminations, truncations, _ = env.step(actions)
        for agent, ended in terminations.items():
            if ended and observations:  # died mid-battle: gone from agents and observations, its penalty paid
                assert agent not in env.agents and agent not in observations and rewards[agent] < -10
                dead.add(agent)
        assert not dead & set(observations)
    assert env.team_scores()["blue"] == 0 < env.team_scores()["red"] and env.steps < 300
    assert not any(truncations.values()) and env.agents == []


def test_the_side_with_more_alive_wins_whatever_the_returns():
    env = envs.make("magent_battle", map_size=16, max_steps=12)
    episode, _ = _battle(env, MAgentAttackNearestAgent(), RandomAgent(), seed=1)
    scores = env.team_scores()
    assert episode.team_scores == scores and scores["red"] > scores["blue"] > 0  # cut at 12 steps
    assert episode.outcome == "red wins" and episode.team_ranks == {"red": 1, "blue": 2}
    even = envs.make("magent_battle", map_size=16, max_steps=1)
    assert _battle(even, RandomAgent(), RandomAgent(), seed=1)[0].outcome == "draw"  # no one died in one step


@pytest.mark.parametrize("name", sorted(SMALL))
def test_scripted_beats_random_in_every_game_on_both_sides(name):
    env = envs.make(name, **{**SMALL[name], "max_steps": 200})
    for seed in range(4):
        scripted, other = MAgentAttackNearestAgent(), RandomAgent()
        red, blue, side = (scripted, other, "red") if seed % 2 == 0 else (other, scripted, "blue")
        episode, _ = _battle(env, red, blue, seed)
        assert episode.outcome == f"{side} wins", (seed, episode.team_scores)


def test_seeds_reproduce_battles():
    env = envs.make("magent_battle", map_size=16, max_steps=60)
    first = _battle(env, MAgentAttackNearestAgent(), RandomAgent(), seed=7)
    again = _battle(env, MAgentAttackNearestAgent(), RandomAgent(), seed=7)
    assert first[0].returns == again[0].returns and first[1] == again[1]


def test_a_copy_continues_the_battle_exactly():
    env = envs.make("magent_combined_arms", map_size=16, max_steps=50)
    observations, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(10):
        observations, *_ = env.step({a: int(rng.integers(env.action_space(a).n)) for a in observations})
    twin = copy.deepcopy(env)
    actions = {a: int(rng.integers(env.action_space(a).n)) for a in observations}
    mine, theirs = env.step(actions), twin.step(actions)
    assert mine[1] == theirs[1] and all(np.array_equal(mine[0][a], theirs[0][a]) for a in mine[0])


def test_bad_options_and_actions_are_refused_with_what_came():
    with pytest.raises(ValueError, match="map_size must be an integer from 12 to 200, got 5"):
        MAgentBattle(map_size=5)
    with pytest.raises(ValueError, match="map_size must be an integer from 16 to 200, got 12"):
        MAgentCombinedArms(map_size=12)
    with pytest.raises(ValueError, match="render_mode must be None or 'rgb_array', got 'human'"):
        MAgentBattle(map_size=12, render_mode="human")
    env = MAgentBattle(map_size=12, max_steps=5)
    observations, _ = env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="red_0"):
        env.step({**dict.fromkeys(observations, 0), "red_0": 21})
    with pytest.raises(InvalidActionError, match="red_0"):
        env.step({**dict.fromkeys(observations, 0), "red_0": True})
    with pytest.raises(WrongAgentsError):
        env.step({"red_0": 0})
    env.step({a: np.int64(6) for a in observations})  # the refused calls changed nothing


def test_without_magent2_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "magent2", None)
    with pytest.raises(MissingDependencyError, match=r"arena-marl\[magent\]"):
        MAgentBattle(map_size=12)


def test_renders_magent2_frames():
    env = envs.make("magent_battle", map_size=12, max_steps=5, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8 and frame.std() > 0
    env.close()
    env.close()


@pytest.mark.parametrize("game,index", [("battle_v4", 0), ("combined_arms_v6", 0), ("combined_arms_v6", 1)])
def test_layout_tables_match_the_engine(game, index):
    from envs.magent._engine import magent_game

    par = magent_game(game).parallel_env(map_size=30)
    par.reset(seed=0)
    engine, handle = par.env, par.handles[index]
    agent = par.possible_agents[engine.get_agent_id(handle)[0]]
    layout = unit_layout(par.observation_space(agent), par.action_space(agent))
    base, table = engine.get_view2attack(handle)
    r = layout.radius
    engine_attacks = sorted((int(table[row, col]), (col - r, row - r)) for row, col in np.argwhere(table >= 0))
    assert base == layout.attack_base and [cell for _, cell in engine_attacks] == list(layout.attacks)
    stays = {}
    for h in par.handles:
        member = par.possible_agents[engine.get_agent_id(h)[0]]
        stays[h.value] = unit_layout(par.observation_space(member), par.action_space(member)).stay
    for action, (dx, dy) in enumerate(layout.moves):  # the whole group tries the move; most are free to make it
        par.reset(seed=0)
        before = engine.get_pos(handle).copy()
        for h in par.handles:
            chosen = action if h.value == handle.value else stays[h.value]
            engine.set_action(h, np.full(engine.get_num(h), chosen, np.int32))
        engine.step()
        moved = {tuple(delta) for delta in (engine.get_pos(handle) - before).tolist()} - {(0, 0)}
        assert moved <= {(dx, dy)}, (action, moved)  # blocked soldiers stay put
        if (dx, dy) != (0, 0) and abs(dx) + abs(dy) == 1:
            assert moved == {(dx, dy)}, action  # soldiers stand 2 apart: a step of one cell is free


def test_scripted_agent_keeps_the_agent_contract_and_acts_for_a_side_at_once():
    env = envs.make("magent_battle", map_size=16, max_steps=10)
    check_agent(MAgentAttackNearestAgent(seed=0), env.observation_space("red_0"), env.action_space("red_0"))
    observations, _ = env.reset(seed=0)
    agent = MAgentAttackNearestAgent(seed=0)
    agent.setup(env.observation_space("red_0"), env.action_space("red_0"))
    red = [observations[a] for a in env.teams["red"]]
    batch = agent.act_batch(np.stack(red))
    assert batch.shape == (len(red),) and all(0 <= a < 21 for a in batch.tolist())
    with pytest.raises(SpaceMismatchError, match="MAgent2 soldier's spaces"):
        MAgentAttackNearestAgent().setup(env.observation_space("red_0"), spaces.Discrete(4))


def test_cli_tournament_army_against_army_then_verify_and_html(tmp_path, capsys):
    from arena.cli import main

    db = tmp_path / "battle.db"
    argv = [
        "tournament",
        "magent_battle",
        "--agents",
        'magent_attack_nearest,random{"interface": "flatten"}',
        "--games",
        "2",
        "--env-options",
        '{"map_size": 12, "max_steps": 30}',
        "--db",
        str(db),
    ]
    assert main(argv) == 0, capsys.readouterr().err
    from arena.replay import load_games, verify_game

    games = load_games(db)
    assert len(games) == 2 and all(verify_game(game) is None for game in games)
    for game in games:  # one entrant a side, each playing every seat of it; the scripted army wins
        sides = {game.result.seats[a] for a in ("red_0", "red_1")}, {game.result.seats[a] for a in ("blue_0", "blue_1")}
        assert all(len(side) == 1 for side in sides) and game.result.outcome == "magent_attack_nearest wins"
    assert main(["replay", str(db), "--verify"]) == 0
    assert "0 mismatches" in capsys.readouterr().out
    page = tmp_path / "battle.html"
    assert main(["replay", str(db), "--game", "1", "--html", str(page)]) == 0
    html = page.read_text()  # the agent's-eye view offers each soldier behind the flatten stack
    assert 'id="eye-seat"' in html and html.count("interface&quot;: &quot;flatten") >= 2


def test_bench_prints_the_ratio_to_magent2s_own_loop():
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, str(root / "bench" / "magent.py"), "--map-size", "12", "--steps", "5", "--rounds", "1"],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
    ).stdout
    assert "ratio arena / MAgent2:" in out and "4 soldiers on 12x12" in out


def test_wrappers_pass_the_side_scores_on():
    from arena import GroupTeams

    env = envs.make("magent_battle", map_size=12, max_steps=5)
    grouped = GroupTeams(env)
    grouped.reset(seed=0)
    assert grouped.team_scores() == env.team_scores() == {"red": 2, "blue": 2}
