"""pommerman_simple: plays like the reference SimpleAgent (actions and outcome rates)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from gymnasium import spaces

import envs
from arena import play
from arena.errors import SpaceMismatchError
from arena.testing import check_agent
from envs.pommerman.agents import PommermanSimpleAgent
from envs.pommerman.replay import simple_agent_agreement


@pytest.mark.parametrize("mode", ["ffa", "team", "radio"])
def test_simple_agent_keeps_the_agent_contract(mode):
    env = envs.make("pommerman", mode=mode)
    check_agent(PommermanSimpleAgent(0), env.observation_space("agent_0"), env.action_space("agent_0"), steps=20)


def test_simple_agent_refuses_other_spaces():
    with pytest.raises(
        SpaceMismatchError, match=r"PommermanSimpleAgent: needs the pommerman observation Dict .* got Discrete\(3\)"
    ):
        PommermanSimpleAgent().setup(spaces.Discrete(3), spaces.Discrete(6))


def test_simple_agent_chooses_the_reference_simple_agents_action(trajectories):
    _, episodes = trajectories
    print("\npommerman_simple vs reference SimpleAgent, same action on the recorded states:")
    rates = {}
    for mode in ("ffa", "team", "radio"):
        same, total = simple_agent_agreement([e for e in episodes if e["mode"] == mode], PommermanSimpleAgent)
        rates[mode] = same / total
        print(f"  {mode:6s} {same}/{total} = {same / total:.1%}")
    # The reference breaks path ties and wandering choices at random; a random mover agrees ~1/6 of the time.
    assert min(rates.values()) > 0.7


def test_four_simple_agents_finish_ffa_games_like_the_reference(trajectories):
    meta, _ = trajectories
    reference = next(r for r in meta["outcome_rates"] if r["mode"] == "ffa" and set(r["agents"]) == {"SimpleAgent"})
    env = envs.make("pommerman")
    outcomes, lengths = Counter(), []
    games = 24
    for seed in range(games):
        episode = play(env, {a: PommermanSimpleAgent(i) for i, a in enumerate(env.possible_agents)}, seed=seed)
        lengths.append(episode.length)
        winners = [a for a, r in episode.returns.items() if r > 0]
        outcomes["win" if winners else "tie_step_limit" if episode.length >= 800 else "tie_all_dead"] += 1
    rates = {k: v / games for k, v in outcomes.items()}
    print(
        f"\n4 pommerman_simple FFA: {rates}, mean length {np.mean(lengths):.0f}; reference {reference['results']}, "
        f"{reference['length_mean']}"
    )
    # within 3.5 binomial standard deviations of the reference's 300-game rates
    for result, p in reference["results"].items():
        assert abs(rates.get(result, 0.0) - p) <= 3.5 * np.sqrt(p * (1 - p) / games) + 1e-9, (result, rates, p)
    assert abs(np.mean(lengths) - reference["length_mean"]) < 150


def test_the_compiled_coin_flips_are_arena_s_splitmix64():
    # the boards and the scripted agent draw through numba's compilation of arena.seeding's stream
    from arena.seeding import SplitMix64
    from envs.pommerman.board import seed_stream, uniform

    for seed in (0, 7, 2**63 - 1):
        rng = np.zeros(1, np.uint64)
        seed_stream(rng, seed)
        reference = SplitMix64(seed)
        assert [uniform(rng) for _ in range(5)] == [reference.random() for _ in range(5)]


def test_a_seeded_game_of_simple_agents_plays_as_it_always_did():
    # users replay games by seed: the final board of a seeded game of four simple agents, taken before
    # arena's four SplitMix64s became one (28 Nov 2026); every coin flip and board draw goes into it
    import hashlib

    env = envs.make("pommerman", max_steps=120)
    episode = play(env, {a: PommermanSimpleAgent(i) for i, a in enumerate(env.possible_agents)}, seed=5)
    assert episode.length == 120 and episode.returns == dict.fromkeys(env.possible_agents, -1.0)
    board = hashlib.sha256(env.state.board.tobytes()).hexdigest()
    assert board == "b0909011517d69ef083546cba2e0eaa657e578e374484b929f0f11d9e771eb7d"


def test_a_seed_given_at_reset_decides_the_agents_moves_on_a_batch_too():
    from envs.pommerman.batch import PommermanBatch

    def moves(agent: PommermanSimpleAgent) -> np.ndarray:
        batch = PommermanBatch(4, "team", max_steps=60)
        batch.reset(seed=2)
        agent.reset(seed=7)  # an unseeded agent, seeded as the trainer seeds its opponents
        games, players = np.repeat(np.arange(4), 4), np.tile(np.arange(4), 4)
        played = []
        for _ in range(60):
            actions = agent.act_on_batch(batch, games, players)
            played.append(actions)
            batch.step(actions.reshape(4, 4))
        return np.array(played)

    env = envs.make("pommerman", mode="team")
    first, second = PommermanSimpleAgent(), PommermanSimpleAgent()
    for agent in (first, second):
        agent.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    np.testing.assert_array_equal(moves(first), moves(second))
