"""Rules of multi-player liar's dice: bids, challenges, elimination, places and hidden dice."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena import IllegalActionError, RandomAgent, play
from arena.testing import check_env
from envs.liars_dice import CHALLENGE, LiarsDice

bid = LiarsDice.bid_action


def test_bid_numbers_grow_with_the_bid():
    assert bid(1, 1) == 1 and bid(1, 6) == 6 and bid(2, 1) == 7 and LiarsDice.bid_of(bid(3, 5)) == (3, 5)
    names = LiarsDice(players=3, dice=2).action_names("player_0")
    assert len(names) == 37 and names[0] == "liar" and names[bid(2, 5)] == "bid 2 x 5" and names[-1] == "bid 6 x 6"


def test_masks_allow_only_higher_bids_within_the_dice_in_play_and_challenge_after_a_bid():
    env = LiarsDice(players=3, dice=2)
    observations, infos = env.reset(seed=0)
    mask = infos["player_0"]["action_mask"]
    assert mask[CHALLENGE] == 0 and mask[1:].all()
    with pytest.raises(
        IllegalActionError, match=r"<LiarsDice>: action 0 for 'player_0' is illegal now; legal actions: \[1, 2, 3"
    ):
        env.step({"player_0": CHALLENGE})
    observations, rewards, terms, truncs, infos = env.step({"player_0": bid(2, 5)})
    mask = infos["player_1"]["action_mask"]
    assert list(observations) == ["player_1"]
    assert mask[CHALLENGE] == 1 and not mask[1 : bid(2, 5) + 1].any() and mask[bid(2, 5) + 1 :].all()
    with pytest.raises(IllegalActionError, match="action 11 for 'player_1' is illegal now"):
        env.step({"player_1": bid(2, 5)})  # the same bid is not a raise


def test_a_true_bid_costs_the_challenger_and_a_false_one_the_bidder():
    env = LiarsDice(players=3, dice=2, render_mode="ansi")
    env.reset(options={"dice": [[5, 1], [5, 2], [3, 3]]})
    env.step({"player_0": bid(2, 5)})
    observations, rewards, terms, *_ = env.step({"player_1": CHALLENGE})  # two fives: the bid stands
    assert rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0} and not any(terms.values())
    assert list(observations) == ["player_1"]  # the loser starts the next round
    assert observations["player_1"][6 + 3 : 6 + 6].tolist() == [2, 1, 2]
    assert "player_1 called liar on player_0's bid 2 x 5: 2 showed; player_1 loses a die" in env.render()

    env.reset(options={"dice": [[5, 1], [5, 2], [3, 3]]})
    env.step({"player_0": bid(1, 5)})
    env.step({"player_1": bid(3, 5)})
    observations, *_ = env.step({"player_2": CHALLENGE})  # only two fives: the bidder loses
    assert list(observations) == ["player_1"] and observations["player_1"][9:12].tolist() == [2, 1, 2]


def test_elimination_places_rewards_and_the_end():
    env = LiarsDice(players=3, dice=1)
    env.reset(seed=3, options={"dice": [[5], [5], [2]]})
    env.step({"player_0": bid(2, 5)})
    observations, rewards, terms, truncs, infos = env.step({"player_1": CHALLENGE})
    assert rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}  # first out: last place
    assert terms == {"player_0": False, "player_1": True, "player_2": False}
    assert env.agents == ["player_0", "player_2"] and list(observations) == ["player_2"]
    mask = infos["player_2"]["action_mask"]
    assert mask[1 : bid(2, 6) + 1].all() and not mask[bid(2, 6) + 1 :].any()  # two dice left in play
    own_face = int(np.flatnonzero(observations["player_2"][:6])[0]) + 1
    env.step({"player_2": bid(1, own_face)})  # a bid player_2 knows is true
    observations, rewards, terms, truncs, infos = env.step({"player_0": CHALLENGE})
    assert rewards == {"player_0": 0.0, "player_2": 1.0}  # second place pays 0, the winner +1
    assert terms == {"player_0": True, "player_2": True} and observations == {} and env.agents == []


def test_four_players_rank_by_the_order_they_drop_out():
    env = envs.make("liars_dice", players=4, dice=2)
    episode = play(env, [RandomAgent(seed) for seed in range(4)], seed=11)
    assert sorted(episode.ranks.values()) == [1, 2, 3, 4]
    assert sorted(episode.returns.values()) == pytest.approx([-1.0, -1 / 3, 1 / 3, 1.0])


@pytest.mark.parametrize("players, dice", [(3, 2), (4, 1), (6, 3)])
def test_contract_in_several_sizes(players, dice):
    check_env(LiarsDice(players=players, dice=dice, render_mode="ansi"), episodes=3)


def test_render_shows_the_public_state_only():
    env = LiarsDice(players=3, dice=1, render_mode="ansi")
    env.reset(options={"dice": [[4], [6], [1]]})
    env.step({"player_0": bid(1, 3)})
    assert env.render() == (
        "dice held: player_0 1, player_1 1, player_2 1\nstanding bid: player_0 bids 1 x 3\nto act: player_1\n"
    )


def test_bad_options_and_arguments_say_what_was_expected():
    with pytest.raises(ValueError, match="players must be an integer from 2 to 6, got 7"):
        LiarsDice(players=7)
    with pytest.raises(ValueError, match="dice must be an integer from 1 to 5, got 0"):
        LiarsDice(dice=0)
    with pytest.raises(ValueError, match="render_mode must be None or 'ansi', got 'rgb_array'"):
        LiarsDice(render_mode="rgb_array")
    with pytest.raises(ValueError, match=r"options\['dice'\] must hold 3 lists of 2 faces from 1 to 6, got \[\[1, 7\]"):
        LiarsDice().reset(options={"dice": [[1, 7], [1, 1], [2, 2]]})


def test_observation_layout():
    env = LiarsDice(players=3, dice=2)
    observations, _ = env.reset(options={"dice": [[6, 6], [1, 2], [3, 4]]})
    observations, *_ = env.step({"player_0": bid(3, 6)})
    expected = [
        1,
        1,
        0,
        0,
        0,
        0,  # own dice: a one and a two
        0,
        1,
        0,  # the observer is player_1
        2,
        2,
        2,  # dice held
        3,
        0,
        0,  # latest bid quantities
        6,
        0,
        0,  # latest bid faces
        1,
        0,
        0,
    ]  # the standing bid is player_0's
    assert observations["player_1"].tolist() == expected


@settings(max_examples=40, deadline=None)
@given(
    observer=st.integers(0, 2),
    own=st.lists(st.integers(1, 6), min_size=2, max_size=2),
    others_a=st.lists(st.integers(1, 6), min_size=4, max_size=4),
    others_b=st.lists(st.integers(1, 6), min_size=4, max_size=4),
    choices=st.lists(st.integers(0, 40), min_size=6, max_size=6),
)
def test_a_players_observations_never_depend_on_the_other_players_dice(observer, own, others_a, others_b, choices):
    """Two rolls that differ only in other players' dice look the same to the observer until a challenge."""

    def dice(others):
        rows = [others[:2], others[2:]]
        rows.insert(observer, own)
        return rows

    env_a, env_b = LiarsDice(players=3, dice=2), LiarsDice(players=3, dice=2)
    obs_a, infos_a = env_a.reset(seed=0, options={"dice": dice(others_a)})
    obs_b, infos_b = env_b.reset(seed=0, options={"dice": dice(others_b)})
    for choice in choices:
        acting = next(iter(obs_a))
        assert list(obs_b) == [acting]
        assert np.array_equal(infos_a[acting]["action_mask"], infos_b[acting]["action_mask"])
        if acting == f"player_{observer}":
            assert np.array_equal(obs_a[acting], obs_b[acting])
        legal = np.flatnonzero(infos_a[acting]["action_mask"])
        action = int(legal[choice % len(legal)])
        if action == CHALLENGE:
            break  # the challenge shows every die
        obs_a, _, _, _, infos_a = env_a.step({acting: action})
        obs_b, _, _, _, infos_b = env_b.step({acting: action})


def test_observation_text_lists_the_own_dice():
    env = LiarsDice(players=3, dice=2)
    observations, _ = env.reset(options={"dice": [[6, 1], [2, 2], [3, 4]]})
    assert env.observation_text("player_0", observations["player_0"]) == "your dice: 1 6"
    observations, *_ = env.step({"player_0": bid(1, 1)})
    assert env.observation_text("player_1", observations["player_1"]) == "your dice: 2 2"
