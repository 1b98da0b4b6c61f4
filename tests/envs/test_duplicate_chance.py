"""Duplicate games: the games of a set share their chance events (deals, dice, spawns, boards) seat by seat.

A set is the games of one lineup that share a seed with the seats rotated
(:func:`arena.tournament.schedule.make_schedule`). Entrants differ here (random against
"highest legal action") so the games of a set take different turns; chance must not follow them.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import Agent, RandomAgent, play
from arena.tournament.schedule import make_schedule
from envs.kuhn_poker import KuhnPoker
from envs.leduc_poker import LeducPoker
from envs.liars_dice import LiarsDice
from envs.pommerman import Pommerman
from envs.snake import Snake


class Highest(Agent):
    """Always the highest legal action: plays unlike a random agent."""

    def act(self, observation, action_mask=None, reward=0.0):
        return int(np.flatnonzero(action_mask)[-1]) if action_mask is not None else self.action_space.sample()


def _set_of(seed: int, seats: int = 2):
    """The tasks of the first duplicate set of a two-entrant lineup."""
    names = ["rnd", "top"] + [f"x{i}" for i in range(seats - 2)]
    _, tasks = make_schedule(names, seats, games=1, seed=seed)
    assert len({task.seed for task in tasks}) == 1
    return tasks


def _play_set(make_env, seed, seats=2):
    """Play every game of a set; each env records its chance in ``env.chance`` (seat -> events)."""
    records = []
    for task in _set_of(seed, seats):
        env = make_env()
        agents = {
            seat: (RandomAgent() if name == "rnd" else Highest()) for seat, name in zip(env.possible_agents, task.seats)
        }
        play(env, agents, seed=task.seed)
        records.append(env.chance)
    return records


class RecordingKuhn(KuhnPoker):
    def reset(self, *, seed=None, options=None):
        result = super().reset(seed=seed, options=options)
        self.chance = {"cards": list(self._cards)}  # player_0's, player_1's (and the public card)
        return result


class RecordingLeduc(LeducPoker):
    def reset(self, *, seed=None, options=None):
        result = super().reset(seed=seed, options=options)
        self.chance = {"cards": list(self._cards)}
        return result


class RecordingDice(LiarsDice):
    def reset(self, *, seed=None, options=None):
        self.chance = {}
        return super().reset(seed=seed, options=options)

    def _new_round(self, starter, rolls=None):
        super()._new_round(starter, rolls)
        self.chance[self._round] = [list(row) for row in self._rolls]


class RecordingSnake(Snake):
    def reset(self, *, seed=None, options=None):
        result = super().reset(seed=seed, options=options)
        self.chance = {
            "bodies": [self.snake_cells(agent) for agent in self.possible_agents],
            "fruits": sorted(self.fruit_cells()),
            "key": int(self._key[0]),
        }
        return result


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_poker_sets_deal_the_same_cards_to_each_seat(seed):
    for make in (RecordingKuhn, RecordingLeduc):
        first, second = _play_set(make, seed)
        assert first == second


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), players=st.integers(2, 3))
def test_liars_dice_sets_roll_the_same_dice_for_each_seat_every_round(seed, players):
    records = _play_set(lambda: RecordingDice(players=players, dice=2), seed, seats=players)
    rounds = set.intersection(*(set(record) for record in records))
    assert 0 in rounds
    for r in rounds:  # a seat that lost dice holds a prefix of the same row
        for seat in range(players):
            rows = [record[r][seat] for record in records]
            shortest = min(len(row) for row in rows)
            assert all(row[:shortest] == rows[0][:shortest] for row in rows)
    assert all(records[0][0] == record[0] for record in records)  # the first round: all dice equal


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_snake_sets_spawn_the_same_snakes_and_fruits(seed):
    first, second = _play_set(lambda: RecordingSnake(num_snakes=2, height=8, width=8, max_steps=30), seed)
    assert first == second


class RecordingPommerman(Pommerman):
    def reset(self, *, seed=None, options=None):
        result = super().reset(seed=seed, options=options)
        self.chance = {"board": self._state.board.tobytes(), "items": self._state.items.tobytes()}
        return result


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_pommerman_sets_generate_the_same_board_and_items(seed):
    # Pommerman's only chance is the board (walls, wood, the items under it), drawn at reset.
    records = _play_set(lambda: RecordingPommerman(max_steps=20), seed, seats=4)
    assert len(records) == 4 and all(record == records[0] for record in records)
