"""Rules of Kuhn and Leduc poker: deals, betting caps, fold and showdown payoffs, hidden cards."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import envs
from arena import IllegalActionError, RandomAgent, play
from arena.testing import check_env
from envs.kuhn_poker import KuhnPoker
from envs.leduc_poker import LeducPoker
from envs.poker import CALL, FOLD, RAISE

C, R, F = CALL, RAISE, FOLD


def play_actions(env, cards, actions):
    """Deal ``cards`` and play ``actions`` in turn; return the last step's result."""
    observations, infos = env.reset(options={"cards": cards})
    result = (observations, {}, {}, {}, infos)
    for action in actions:
        assert len(result[0]) == 1, "the hand ended before the actions ran out"
        agent = next(iter(result[0]))
        result = env.step({agent: action})
    return result


# ------------------------------------------------------------------- Kuhn
@pytest.mark.parametrize(
    "actions, reward_0",
    [
        ([C, C], 1.0),  # check, check: the king wins the antes
        ([C, R, F], -1.0),  # check, bet, fold: player_1 takes player_0's ante
        ([C, R, C], 2.0),  # check, bet, call: showdown for 2
        ([R, F], 1.0),  # bet, fold
        ([R, C], 2.0),  # bet, call
    ],
)
def test_kuhn_payoffs_with_the_king_against_the_jack(actions, reward_0):
    observations, rewards, terms, truncs, infos = play_actions(KuhnPoker(), ["K", "J"], actions)
    assert rewards == {"player_0": reward_0, "player_1": -reward_0}
    assert observations == {} and all(terms.values()) and not any(truncs.values())


def test_kuhn_lower_card_loses_the_showdown_and_masks_follow_the_rules():
    env = KuhnPoker()
    observations, infos = env.reset(options={"cards": ["J", "Q"]})
    assert infos["player_0"]["action_mask"].tolist() == [0, 1, 1]  # no fold before a bet
    observations, rewards, terms, truncs, infos = env.step({"player_0": R})
    assert infos["player_1"]["action_mask"].tolist() == [1, 1, 0]  # one bet is the cap
    with pytest.raises(
        IllegalActionError, match=r"<KuhnPoker>: action 2 for 'player_1' is illegal now; legal actions: \[0, 1\]"
    ):
        env.step({"player_1": R})
    observations, rewards, *_ = env.step({"player_1": C})
    assert rewards == {"player_0": -2.0, "player_1": 2.0}


def test_kuhn_observation_layout():
    env = KuhnPoker()
    observations, _ = env.reset(options={"cards": ["Q", "K"]})
    assert observations["player_0"].tolist() == [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1]
    observations, *_ = env.step({"player_0": C})
    assert observations["player_1"].tolist() == [0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1]
    observations, *_ = env.step({"player_1": R})
    assert observations["player_0"].tolist() == [1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 2]
    assert env.observation_space("player_0").contains(observations["player_0"])


def test_fold_is_illegal_without_a_bet_and_the_rejected_move_changes_nothing():
    env = KuhnPoker()
    env.reset(options={"cards": ["Q", "K"]})
    with pytest.raises(IllegalActionError, match=r"action 0 for 'player_0' is illegal now; legal actions: \[1, 2\]"):
        env.step({"player_0": F})
    observations, *_ = env.step({"player_0": C})
    assert list(observations) == ["player_1"]


# ------------------------------------------------------------------ Leduc
@pytest.mark.parametrize(
    "cards, reward_0",
    [
        (["Q", "K", "Q"], 1.0),  # a pair with the public card beats a higher card
        (["J", "K", "J"], 1.0),  # even the lowest pair
        (["K", "Q", "J"], 1.0),  # no pair: the higher card wins
        (["J", "Q", "K"], -1.0),
        (["K", "K", "Q"], 0.0),  # equal ranks split the pot
    ],
)
def test_leduc_showdowns_after_checks(cards, reward_0):
    observations, rewards, terms, *_ = play_actions(LeducPoker(), cards, [C, C, C, C])
    assert rewards == {"player_0": reward_0, "player_1": -reward_0} and all(terms.values())


def test_leduc_betting_caps_and_the_largest_pot():
    env = LeducPoker()
    observations, infos = env.reset(options={"cards": ["K", "Q", "J"]})
    observations, _, _, _, infos = env.step({"player_0": R})  # bet 2: stakes 3 / 1
    observations, _, _, _, infos = env.step({"player_1": R})  # raise 2: stakes 3 / 5
    assert infos["player_0"]["action_mask"].tolist() == [1, 1, 0]  # two raises cap round 1
    assert observations["player_0"][24:26].tolist() == [3, 5]
    observations, _, _, _, infos = env.step({"player_0": C})  # call: round 2, public card dealt
    assert list(observations) == ["player_0"] and infos["player_0"]["action_mask"].tolist() == [0, 1, 1]
    assert observations["player_0"][5:8].tolist() == [1, 0, 0]  # the public jack
    observations, _, _, _, infos = env.step({"player_0": R})  # bet 4: stakes 9 / 5
    observations, _, _, _, infos = env.step({"player_1": R})  # raise 4: stakes 9 / 13
    assert infos["player_0"]["action_mask"].tolist() == [1, 1, 0]
    with pytest.raises(IllegalActionError, match=r"<LeducPoker>: action 2 for 'player_0' is illegal now"):
        env.step({"player_0": R})
    observations, rewards, terms, *_ = env.step({"player_0": C})
    assert rewards == {"player_0": 13.0, "player_1": -13.0} and env.max_stake == 13


@pytest.mark.parametrize(
    "actions, reward_0",
    [
        ([R, F], 1.0),  # player_1 folds to the first bet: loses its ante
        ([C, R, F], -1.0),  # player_0 folds to a bet
        ([R, R, F], -3.0),  # player_0 folds to a re-raise: loses its 3 chips
        ([R, C, R, F], 3.0),  # round 2: player_0 bets, player_1 folds its 3 chips
        ([C, C, R, R, F], -5.0),  # round 2: player_0 folds its 1 + 4 chips to a raise
    ],
)
def test_leduc_fold_payoffs_do_not_depend_on_the_cards(actions, reward_0):
    for cards in (["J", "K", "Q"], ["K", "J", "Q"]):
        _, rewards, terms, *_ = play_actions(LeducPoker(), cards, actions)
        assert rewards == {"player_0": reward_0, "player_1": -reward_0} and all(terms.values())


def test_render_hides_private_cards_until_showdown():
    env = LeducPoker(render_mode="ansi")
    env.reset(options={"cards": ["K", "Q", "J"]})
    env.step({"player_0": R})
    assert env.render() == ("round 1/2\npublic card: ?\nstakes: player_0 3, player_1 1\nbets: r\nto act: player_1\n")
    for agent, action in (("player_1", C), ("player_0", C), ("player_1", C)):
        env.step({agent: action})
    assert env.render().endswith("bets: rc / cc\nplayer_0 shows K, player_1 shows Q: player_0 wins 3\n")
    assert "public card: J" in env.render()
    assert env.action_names("player_0") == ["fold", "check/call", "bet/raise"]


def test_fixed_deals_are_checked_against_the_deck():
    with pytest.raises(
        ValueError, match=r"<KuhnPoker>: options\['cards'\] \['K', 'K'\] deals 'K' more than the 1 time"
    ):
        KuhnPoker().reset(options={"cards": ["K", "K"]})
    with pytest.raises(ValueError, match=r"unknown card 'A' in options\['cards'\]; expected one of \['J', 'Q', 'K'\]"):
        LeducPoker().reset(options={"cards": ["A", "K", "Q"]})
    with pytest.raises(ValueError, match=r"deals 'K' more than the 2 time"):
        LeducPoker().reset(options={"cards": ["K", "K", "K"]})
    with pytest.raises(ValueError, match=r"must name 2 cards \(player_0, player_1\), got \['K'\]"):
        KuhnPoker().reset(options={"cards": ["K"]})
    env = LeducPoker()  # the public card may be left to chance, from what is left of the deck
    for seed in range(10):
        env.reset(seed=seed, options={"cards": ["K", "K"]})
        assert env._cards[2] in (0, 1)


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_seeded_deals_repeat_and_vary(name):
    env = envs.make(name, render_mode="ansi")
    check_env(env, episodes=6)
    first = [env.reset(seed=seed)[0]["player_0"].tolist() for seed in range(12)]
    again = [env.reset(seed=seed)[0]["player_0"].tolist() for seed in range(12)]
    assert first == again and len({tuple(obs) for obs in first}) == 3  # every card comes up for player_0
    episode = play(env, [RandomAgent(0), RandomAgent(1)], seed=5)
    assert episode.returns["player_0"] == -episode.returns["player_1"]


# ---------------------------------------------------- hidden information
@settings(max_examples=60, deadline=None)
@given(
    game=st.sampled_from([KuhnPoker, LeducPoker]),
    observer=st.integers(0, 1),
    own=st.integers(0, 2),
    other_a=st.integers(0, 2),
    other_b=st.integers(0, 2),
    public=st.integers(0, 2),
    choices=st.lists(st.integers(0, 2), min_size=8, max_size=8),
)
def test_a_players_observations_never_depend_on_the_other_players_card(
    game, observer, own, other_a, other_b, public, choices
):
    """Two deals that differ only in the other player's card give the observer the same observations."""
    names = ("J", "Q", "K")
    env_a, env_b = game(), game()
    suits = env_a.suits
    for other in (other_a, other_b):
        cards = [own, other] + ([public] if env_a.rounds > 1 else [])
        assume(all(cards.count(rank) <= suits for rank in cards))

    def deal(other):
        cards = [own, other] if observer == 0 else [other, own]
        return [names[c] for c in cards] + ([names[public]] if env_a.rounds > 1 else [])

    obs_a, infos_a = env_a.reset(options={"cards": deal(other_a)})
    obs_b, infos_b = env_b.reset(options={"cards": deal(other_b)})
    agent_name = f"player_{observer}"
    seen = 0
    for choice in choices:
        assert obs_a.keys() == obs_b.keys()
        if not obs_a:
            break
        acting = next(iter(obs_a))
        mask = infos_a[acting]["action_mask"]
        assert np.array_equal(mask, infos_b[acting]["action_mask"])
        if acting == agent_name:
            assert np.array_equal(obs_a[acting], obs_b[acting])
            seen += 1
        legal = np.flatnonzero(mask)
        action = int(legal[choice % len(legal)])
        obs_a, _, _, _, infos_a = env_a.step({acting: action})
        obs_b, _, _, _, infos_b = env_b.step({acting: action})
    assert seen >= 1 or observer == 1  # player_0 always acts first


def test_a_seed_also_fixes_the_deals_of_later_unseeded_resets():
    first, second = LeducPoker(), LeducPoker()
    deals = []
    for env in (first, second):
        env.reset(seed=7)
        deals.append([env.reset()[0]["player_0"].tolist() for _ in range(6)])
    assert deals[0] == deals[1] and len({tuple(deal) for deal in deals[0]}) > 1


def test_observation_text_reads_the_own_card_and_the_public_card_only():
    env = LeducPoker()
    observations, _ = env.reset(options={"cards": ["Q", "K", "J"]})
    assert env.observation_text("player_0", observations["player_0"]) == "your card: Q, public card: ?"
    observations, *_ = env.step({"player_0": C})
    assert env.observation_text("player_1", observations["player_1"]) == "your card: K, public card: ?"
    observations, *_ = env.step({"player_1": C})
    assert env.observation_text("player_0", observations["player_0"]) == "your card: Q, public card: J"
