"""Lineups, fair seating and seed derivation."""

from __future__ import annotations

import zlib
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.seeding import derive_seed
from arena.tournament.schedule import (
    games_per_lineup,
    lineups_for,
    make_schedule,
    seatings_for,
)


def seat_counts(tasks):
    """(lineup, entrant, seat index) -> games."""
    return Counter((task.lineup, name, seat) for task in tasks for seat, name in enumerate(task.seats))


@pytest.mark.parametrize(
    ("entrants", "seats", "games", "per_lineup"),
    [
        (2, 2, 10, 10),  # 2 seatings
        (4, 2, 7, 8),  # rounded up to a multiple of 2
        (4, 3, 10, 12),  # all 6 permutations of 3 seats
        (5, 4, 6, 8),  # 4 rotations of 4 seats
    ],
)
def test_every_entrant_plays_every_seat_equally_often(entrants, seats, games, per_lineup):
    names = [f"agent{i}" for i in range(entrants)]
    lineups, tasks = make_schedule(names, seats, games=games, seed=3)
    counts = seat_counts(tasks)
    for lineup in lineups:
        assert sum(1 for task in tasks if task.lineup == lineup.key) == per_lineup
        for name in lineup.names:
            assert {counts[lineup.key, name, seat] for seat in range(seats)} == {per_lineup // seats}


@settings(max_examples=40, deadline=None)
@given(
    entrants=st.integers(2, 6),
    seats=st.integers(2, 5),
    games=st.integers(1, 13),
    seed=st.integers(0, 2**31),
    mode=st.sampled_from(["round-robin", "gauntlet"]),
    seatings=st.sampled_from(["auto", "all", "rotations"]),
)
def test_seat_balance_and_unique_keys_for_any_schedule(entrants, seats, games, seed, mode, seatings):
    names = [f"e{i}" for i in range(entrants)]
    if entrants < seats:
        with pytest.raises(ValueError, match="needs"):
            make_schedule(names, seats, mode=mode, games=games, seed=seed, fill=False)
    lineups, tasks = make_schedule(names, seats, mode=mode, games=games, seed=seed, seatings=seatings)
    counts = seat_counts(tasks)
    for lineup in lineups:
        assert len(lineup.names) == min(seats, entrants)  # fewer entrants than seats: one lineup, filled
        assert all(len(seating) == seats and set(seating) == set(lineup.names) for seating in lineup.seatings)
        per_seat = {counts[lineup.key, name, seat] for name in lineup.names for seat in range(seats)}
        assert len(per_seat) == 1 and per_seat.pop() >= 1
    assert len({(task.lineup, task.index) for task in tasks}) == len(tasks)
    if mode == "gauntlet":
        assert all(names[0] in lineup.names for lineup in lineups)
    # the same arguments give the same schedule
    assert make_schedule(names, seats, mode=mode, games=games, seed=seed, seatings=seatings)[1] == tasks


def test_fewer_entrants_than_seats_take_turns_around_the_table():
    lineups, tasks = make_schedule(["x", "random"], 4, games=4, seed=0)
    assert [lineup.names for lineup in lineups] == [("x", "random")]
    assert [task.seats for task in tasks] == [("x", "random", "x", "random"), ("random", "x", "random", "x")] * 2
    assert tasks[0].seed == tasks[1].seed != tasks[2].seed  # a duplicate set: the two seatings of one seed
    lineups, tasks = make_schedule(["a", "b", "c"], 4, games=1, seed=0)  # the odd seat goes round too
    assert len(tasks) == 12 and Counter(name for task in tasks for name in task.seats) == {"a": 16, "b": 16, "c": 16}


def test_game_seeds_derive_from_tournament_seed_lineup_and_index():
    _, tasks = make_schedule(["a", "b", "c"], 2, games=4, seed=11, duplicate=False)
    for task in tasks:
        lineup_seed = derive_seed(11, zlib.crc32(task.lineup.encode()))
        assert task.seed == derive_seed(lineup_seed, task.index)
    assert len({task.seed for task in tasks}) == len(tasks)


@settings(max_examples=40, deadline=None)
@given(seats=st.integers(2, 4), extra=st.integers(0, 2), games=st.integers(1, 13), seed=st.integers(0, 2**31))
def test_duplicate_sets_share_a_seed_and_rotate_every_seat(seats, extra, games, seed):
    names = [f"e{i}" for i in range(seats + extra)]
    lineups, tasks = make_schedule(names, seats, games=games, seed=seed)
    for lineup in lineups:
        own = sorted((t for t in tasks if t.lineup == lineup.key), key=lambda t: t.index)
        k = len(lineup.seatings)
        assert len(own) % k == 0
        for start in range(0, len(own), k):
            chunk = own[start : start + k]
            assert len({t.seed for t in chunk}) == 1  # one chance seed per set
            assert sorted(t.seats for t in chunk) == sorted(lineup.seatings)  # every seating once
        assert len({t.seed for t in own}) == len(own) // k  # sets differ from each other
    # another tournament seed gives other game seeds
    _, other = make_schedule(["a", "b", "c"], 2, games=4, seed=12)
    assert not {task.seed for task in tasks} & {task.seed for task in other}


def test_adding_an_entrant_keeps_the_existing_games():
    _, before = make_schedule(["a", "b"], 2, games=6, seed=5)
    _, after = make_schedule(["a", "b", "c"], 2, games=6, seed=5)
    assert set(before) <= set(after)


def test_games_are_interleaved_by_index_so_a_partial_run_stays_balanced():
    _, tasks = make_schedule(["a", "b", "c"], 2, games=4, seed=0)
    assert [task.index for task in tasks[:3]] == [0, 0, 0]
    assert [task.lineup for task in tasks[:3]] == ["a|b", "a|c", "b|c"]


def test_modes():
    assert lineups_for(["a", "b", "c"], 2, "round-robin") == [("a", "b"), ("a", "c"), ("b", "c")]
    assert lineups_for(["a", "b", "c", "d"], 3, "gauntlet") == [("a", "b", "c"), ("a", "b", "d"), ("a", "c", "d")]
    assert lineups_for(["a", "b"], 2, "head-to-head") == [("a", "b")]
    assert seatings_for(["a", "b", "c"]) == seatings_for(["a", "b", "c"], "all")
    assert len(seatings_for(["a", "b", "c"], "rotations")) == 3


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: lineups_for(["a", "b", "c"], 2, "head-to-head"),
            "head-to-head in a 2-seat env needs exactly 2 entrants, got 3: ['a', 'b', 'c']",
        ),
        (
            lambda: lineups_for(["a"], 2, "round-robin"),
            "a round-robin in a 2-seat env needs at least 2 entrants, got 1: ['a']",
        ),
        (
            lambda: lineups_for(["a", "b"], 3, "gauntlet", fill=False),
            "a gauntlet in a 3-seat env needs the challenger and at least 2 opponents, got ['a', 'b']",
        ),
        (
            lambda: lineups_for(["a"], 4, "round-robin"),
            "a round-robin in a 4-seat env needs at least 2 entrants, got 1",
        ),
        (lambda: lineups_for(["a", "b"], 4, "head-to-head"), "head-to-head in a 4-seat env needs exactly 4 entrants"),
        (
            lambda: lineups_for(["a", "b"], 2, "swiss"),
            "mode must be one of round-robin, head-to-head, gauntlet, got 'swiss'",
        ),
        (lambda: seatings_for(["a", "b"], "random"), "seatings must be 'auto', 'all' or 'rotations', got 'random'"),
        (lambda: games_per_lineup(0, 2), "games must be a positive integer, got 0"),
        (lambda: make_schedule(["a", "b"], 2, seed=-1), "seed must be a non-negative integer, got -1"),
    ],
)
def test_bad_schedules_say_what_was_expected(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)


@settings(max_examples=60, deadline=None)
@given(counts=st.lists(st.integers(0, 9), min_size=1, max_size=5), seed=st.integers(0, 2**32), duplicate=st.booleans())
def test_the_schedule_made_on_demand_is_the_interleaved_list(counts, seed, duplicate):
    """Schedule computes each game when asked (memory flat in --games); it must be exactly the
    list the tournament used to build: game index major, lineups in order, each lineup's own
    tasks, and indexing must agree with iteration."""
    from arena.tournament.schedule import Lineup, Schedule, lineup_tasks

    lineups = [Lineup((f"a{i}", f"b{i}"), ((f"a{i}", f"b{i}"), (f"b{i}", f"a{i}"))) for i in range(len(counts))]
    schedule = Schedule(lineups, counts, seed, duplicate)
    own = [lineup_tasks(lineup, seed, 0, count, duplicate) for lineup, count in zip(lineups, counts)]
    expected = [own[j][index] for index in range(max(counts)) for j in range(len(lineups)) if index < counts[j]]
    assert list(schedule) == expected and len(schedule) == len(expected)
    assert [schedule[i] for i in range(len(schedule))] == expected
    assert schedule[-1:] == expected[-1:] and schedule == expected
    with pytest.raises(IndexError, match=r"out of range \(the schedule has"):
        schedule[len(expected)]
