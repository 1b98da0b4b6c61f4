"""PommermanBatch's ``view_agents`` and ``copy``: the views written are the full batch's; the others stay zero."""

from __future__ import annotations

import numpy as np
import pytest

from envs.pommerman.batch import PommermanBatch


def _actions(rng: np.random.Generator, mode: str, games: int) -> np.ndarray:
    if mode == "radio":
        return rng.integers(0, [6, 8, 8], (games, 4, 3))
    return rng.integers(0, 6, (games, 4))


@pytest.mark.parametrize("mode, ego", [("ffa", False), ("team", True), ("radio", False)])
def test_views_of_the_chosen_agents_are_the_full_batchs_and_the_others_stay_zero(mode, ego):
    # agent_0 left out: without fog or turning the batch copies the first agent's view into the others'
    chosen, others = [1, 2], [0, 3]
    full = PommermanBatch(5, mode, ego=ego, max_steps=40, copy=False)
    some = PommermanBatch(5, mode, ego=ego, max_steps=40, view_agents=("agent_2", "agent_1"))
    assert some.view_agents == ("agent_1", "agent_2") and full.view_agents == full.possible_agents
    obs_full, _ = full.reset(seed=3)
    obs_some, _ = some.reset(seed=3)
    assert np.array_equal(obs_some[:, chosen], obs_full[:, chosen]) and not obs_some[:, others].any()
    rng = np.random.default_rng(0)
    ended, earlier = 0, None
    for _ in range(70):
        actions = _actions(rng, mode, 5)
        obs_full, rewards_full, terms_full, _, infos_full = full.step(actions)
        obs_some, rewards_some, terms_some, _, infos_some = some.step(actions)
        assert np.array_equal(obs_some[:, chosen], obs_full[:, chosen]) and not obs_some[:, others].any()
        assert np.array_equal(rewards_some, rewards_full) and np.array_equal(terms_some, terms_full)
        assert np.array_equal(infos_some["live"], infos_full["live"])
        if infos_full["episode_over"].any():
            ended += 1
            final_full, final_some = infos_full["final_observation"], infos_some["final_observation"]
            assert np.array_equal(final_some[:, chosen], final_full[:, chosen]) and not final_some[:, others].any()
        if earlier is not None:  # copy=True: a step's fresh arrays are never written again
            assert np.array_equal(earlier[0], earlier[1])
        earlier = (obs_some, obs_some.copy())
    assert ended > 0


def test_views_of_every_agent_are_written_into_fresh_arrays_by_default():
    fresh, shared = PommermanBatch(4, "ffa", max_steps=30), PommermanBatch(4, "ffa", max_steps=30, copy=False)
    fresh.reset(seed=5), shared.reset(seed=5)
    rng = np.random.default_rng(1)
    kept = []
    for _ in range(40):
        actions = _actions(rng, "ffa", 4)
        obs_fresh, obs_shared = fresh.step(actions)[0], shared.step(actions)[0]
        assert np.array_equal(obs_fresh, obs_shared) and obs_fresh is not obs_shared
        assert (obs_fresh[~shared.live] == 0).all()
        kept.append((obs_fresh, obs_fresh.copy()))
    assert all(np.array_equal(obs, snapshot) for obs, snapshot in kept)
    assert obs_shared is shared.step(actions)[0]  # copy=False hands out the batch's own buffer


@pytest.mark.parametrize("layout", ["planes", "codes"])
def test_fresh_arrays_get_every_row_written_whatever_memory_they_reuse(layout):
    # copy=True writes the views into unzeroed memory: the rows of agents not viewed or not alive
    # must come back zero even when the allocator hands back the last step's array, scribbled over
    kwargs = dict(mode="team", layout=layout, max_steps=25, view_agents=("agent_1", "agent_2"))
    fresh, shared = PommermanBatch(6, copy=True, **kwargs), PommermanBatch(6, copy=False, **kwargs)
    fresh.reset(seed=2), shared.reset(seed=2)
    rng = np.random.default_rng(4)
    dead = 0
    for _ in range(60):
        actions = _actions(rng, "team", 6)
        obs_fresh, obs_shared = fresh.step(actions)[0], shared.step(actions)[0]
        assert np.array_equal(obs_fresh, obs_shared)
        assert not obs_fresh[:, [0, 3]].any() and not obs_fresh[~shared.live].any()
        dead += int((~shared.live).sum())
        # scribbled so that each row's first cell of each plane reads empty, the rest not: what the
        # next step's np.empty likely gets back, and a row the step must still zero
        obs_fresh.fill(0xFF)
        obs_fresh.reshape(6, 4, -1)[:, :, ::121] = 0
        del obs_fresh
    assert dead > 0


@pytest.mark.parametrize("view_agents", [("agent_4",), ("agent_0", "agent_0"), (0, 1), 3])
def test_bad_view_agents_name_what_was_expected(view_agents):
    with pytest.raises(ValueError, match="view_agents must be distinct agents of"):
        PommermanBatch(2, view_agents=view_agents)


def test_views_asked_per_game_are_the_full_batchs_and_observe_writes_them_at_once():
    full = PommermanBatch(4, "team", ego=True, max_steps=30, copy=False)
    some = PommermanBatch(4, "team", ego=True, max_steps=30)
    full.reset(seed=2), some.reset(seed=2)
    rng = np.random.default_rng(3)
    for _ in range(45):
        seats = rng.random((4, 4)) < 0.5
        some.set_view_seats(seats)
        actions = _actions(rng, "team", 4)
        obs_full, _, _, _, infos = full.step(actions)
        obs_some, _, _, _, infos_some = some.step(actions)
        # a game that ended restarted with the seats asked: its first views too
        assert np.array_equal(obs_some[seats], obs_full[seats]) and not obs_some[~seats].any()
        if infos["episode_over"].any():
            final_seats = seats[infos["episode_over"]]
            final_some, final_full = infos_some["final_observation"], infos["final_observation"]
            assert np.array_equal(final_some[final_seats], final_full[final_seats])
            assert not final_some[~final_seats].any()
    some.set_view_seats(np.ones((4, 4), bool))
    assert np.array_equal(some.observe([1, 3]), obs_full[[1, 3]])


@pytest.mark.parametrize(
    "seats, message",
    [(np.ones((3, 4), bool), "seats must be a bool array of shape \\(2, 4\\)"), (np.ones((2, 4)), "got float64")],
)
def test_bad_view_seats_name_what_was_expected(seats, message):
    batch = PommermanBatch(2)
    with pytest.raises(ValueError, match=message):
        batch.set_view_seats(seats)
    batch.reset(seed=0)
    with pytest.raises(ValueError, match="games must be indices in 0..1, got \\[2\\]"):
        batch.observe([2])


@pytest.mark.parametrize("team", [True, False])
def test_a_trainer_asks_only_the_views_read_and_its_rollout_is_unchanged(team):
    from arena import make_agent
    from arena.training import OpponentPool
    from arena.training.batched import BatchVecEnv

    def rollout(on_demand: bool) -> tuple[list, np.ndarray]:
        # random opponents read their views, pommerman_simple reads the batch's state (one each on the other side)
        both = [make_agent("random"), make_agent("pommerman_simple", seed=1)]
        opponents = both if team else OpponentPool(both, strategy="uniform")
        kwargs = {"mode": "team", "max_steps": 25}
        venv = BatchVecEnv("pommerman", 3, opponents, team=team, shuffle_seats=True, env_kwargs=kwargs)
        venv._turns.views_on_demand &= on_demand
        venv.seed(4)
        seen = [venv.reset().copy()]
        rng = np.random.default_rng(0)
        for _ in range(40):
            obs, rewards, dones, infos = venv.step(rng.integers(0, 6, venv.num_envs))
            finals = [info["terminal_observation"] for info in infos if "terminal_observation" in info]
            seen.append((obs.copy(), rewards, dones, finals))
        return seen, venv.batch._seats.copy()

    (asked, seats), (every, all_seats) = rollout(True), rollout(False)
    assert (seats != 15).any() and (all_seats == 15).all()  # fewer views were written
    for step_asked, step_every in zip(asked, every):
        for part_asked, part_every in zip(step_asked, step_every):
            assert np.array_equal(np.asarray(part_asked), np.asarray(part_every))
