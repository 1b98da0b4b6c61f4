"""The ViZDoom rule levels: the trigger pressed by rule (DoomAutoFire) and a game variable's bonus."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import InvalidValueError, SpaceMismatchError
from envs.vizdoom.agents import VizdoomAimAgent
from interfaces.vizdoom import DoomActions, DoomTarget
from interfaces.vizdoom_rules import DoomAimShaping, DoomAutoFire, DoomVariableBonus

TABLE = spaces.Box(0.0, 1.0, (3, 5), np.float32)
VARIABLES = spaces.Box(-np.inf, np.inf, (5,), np.float32)
RAW = spaces.Dict({"enemies": TABLE, "variables": VARIABLES})
BUTTONS = spaces.MultiBinary(7)
DELTA = spaces.Dict({"buttons": BUTTONS, "turn": spaces.Box(-45, 45, (1,), np.float32)})

rows = st.tuples(
    st.sampled_from([0.0, 1.0]),
    st.floats(0, 1, width=32),
    st.floats(0, 1, width=32),
    st.floats(0, 0.5, width=32),
    st.floats(0, 1, width=32),
)


RADAR = spaces.Box(-1.0, 1.0, (2, 3), np.float32)
radar_rows = st.tuples(st.sampled_from([0.0, 1.0]), st.floats(-0.375, 0.375, width=32), st.floats(0.0, 1, width=32))


def _observation(row: tuple[float, ...], radar: list[tuple[float, ...]] | None = None) -> dict[str, np.ndarray]:
    table = np.zeros((3, 5), np.float32)
    table[0] = row
    observation = {"enemies": table, "variables": np.zeros(5, np.float32)}
    if radar is not None:
        observation["radar"] = np.array(radar, np.float32).reshape(2, 3)
    return observation


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(
        st.tuples(rows, st.sampled_from([0.0, 0.0, 0.0, 1.0, -1.0]), st.lists(radar_rows, min_size=2, max_size=2)),
        min_size=1,
        max_size=60,
    ),
    tolerance=st.floats(0.01, 0.2),
    cadence=st.integers(1, 6),
    hold=st.integers(0, 8),
    model=st.integers(0, 7),
    with_radar=st.booleans(),
)
def test_auto_fire_presses_the_trigger_exactly_when_vizdoom_aim_would(
    steps, tolerance, cadence, hold, model, with_radar
) -> None:
    """The rule is vizdoom_aim's trigger, with or without a radar to sharpen the aim: same presses for any
    enemies, radar rows and frags; the rest is the model's."""
    raw = spaces.Dict({**RAW.spaces, "radar": RADAR}) if with_radar else RAW
    level = DoomActions(DoomAutoFire(tolerance=tolerance, cadence=cadence, hold=hold), actions="move")
    level.setup(raw, BUTTONS)
    aim = VizdoomAimAgent(tolerance=tolerance, cadence=cadence, hold=hold)
    aim.setup(spaces.Dict({"enemies": TABLE, **({"radar": RADAR} if with_radar else {})}), BUTTONS)
    aim.reset()
    expected_moves = DoomActions(actions="move")
    expected_moves.setup(RAW, BUTTONS)
    previous_reward = 0.0
    for index, (row, reward, radar) in enumerate(steps):
        observation = _observation(row, radar if with_radar else None)
        seen = level.transform_reset(observation) if index == 0 else level.transform_observation(observation)
        assert seen is observation  # observations pass unchanged
        buttons = level.transform_action(model)
        assert BUTTONS.contains(buttons)
        assert buttons[0] == aim.act(observation, reward=previous_reward)[0]
        assert buttons[1:].tolist() == expected_moves.transform_action(model)[1:].tolist()
        level.transform_reward(reward)
        previous_reward = reward


def test_auto_fire_aims_by_the_radar_where_the_label_leans_off_the_body() -> None:
    """A label whose box leans right of the crosshair (a gun arm) fires when the radar puts the body dead ahead."""
    row = (1.0, 0.55, 0.5, 0.1, 0.4)  # centre 0.05 right: outside the 0.02 tolerance and 40% of 0.1
    ahead = [(1.0, 0.0, 0.1), (0.0, 0.0, 0.0)]
    for radar, fires in ((None, 0), (ahead, 1)):
        raw = spaces.Dict({**RAW.spaces, "radar": RADAR}) if radar else RAW
        level = DoomAutoFire(hold=0)
        level.setup(raw, BUTTONS)
        level.transform_reset(_observation(row, radar))
        assert level.transform_action(np.zeros(7, np.int8))[0] == fires


def test_auto_fire_waits_out_spawn_protection_at_the_start_and_after_each_frag() -> None:
    level = DoomAutoFire(hold=2, cadence=3)
    level.setup(RAW, BUTTONS)
    in_sight = _observation((1.0, 0.5, 0.5, 0.05, 0.1))
    level.transform_reset(in_sight)
    fired = []
    for step in range(8):
        if step:
            level.transform_observation(in_sight)
        fired.append(int(level.transform_action(np.zeros(7, np.int8))[0]))
        level.transform_reward(0.0)
    assert fired == [0, 0, 1, 0, 0, 1, 0, 0]  # held for 2 steps, then one press every 3 steps
    level.transform_reward(1.0)  # a frag: its victim respawns protected
    after = []
    for _ in range(3):
        level.transform_observation(in_sight)
        after.append(int(level.transform_action(np.zeros(7, np.int8))[0]))
    assert after == [0, 0, 1]


def test_auto_fire_drops_the_models_trigger_and_keeps_the_delta_turn() -> None:
    level = DoomAutoFire(hold=0, cadence=2)
    level.setup(RAW, DELTA)
    far_left = _observation((1.0, 0.1, 0.5, 0.05, 0.2))
    level.transform_reset(far_left)
    pressed = {"buttons": np.ones(7, np.int8), "turn": np.array([3.0], np.float32)}
    out = level.transform_action(pressed)
    assert out["buttons"].tolist() == [0, 1, 1, 1, 1, 1, 1] and out["turn"].tolist() == [3.0]
    assert DELTA.contains(out)
    assert pressed["buttons"].tolist() == [1] * 7  # the model's action is not changed in place
    centred = _observation((1.0, 0.52, 0.5, 0.01, 0.2))
    level.transform_observation(centred)
    assert level.transform_action(pressed)["buttons"][0] == 1
    assert level.transform_action(pressed)["buttons"][0] == 1  # a retried turn decides the same
    level.transform_observation(centred)
    assert level.transform_action(pressed)["buttons"][0] == 0  # cadence 2: released in between
    level.transform_observation(centred)
    assert level.transform_action(pressed)["buttons"][0] == 1
    level.transform_reset(centred)  # a new match: the clock and the last shot start over
    assert level.transform_action(pressed)["buttons"][0] == 1
    assert str(DoomAutoFire(hold=0, cadence=2)) == "DoomAutoFire(cadence=2, hold=0)"


def test_auto_fire_and_bonus_errors_name_the_problem() -> None:
    with pytest.raises(InvalidValueError, match=r"^DoomAutoFire: tolerance must lie in \(0, 0.5\), got 0.5$"):
        DoomAutoFire(tolerance=0.5)
    with pytest.raises(InvalidValueError, match=r"^DoomAutoFire: cadence must be an integer >= 1, got 0$"):
        DoomAutoFire(cadence=0)
    with pytest.raises(InvalidValueError, match=r"^DoomAutoFire: hold must be an integer >= 0, got True$"):
        DoomAutoFire(hold=True)
    with pytest.raises(SpaceMismatchError, match=r"'enemies' Box \(n, 5\) \(make the env with enemies=True\), got"):
        DoomAutoFire().setup(spaces.Dict({"variables": VARIABLES}), BUTTONS)
    with pytest.raises(SpaceMismatchError, match=r"needs ViZDoom's 7 buttons.*got Discrete\(3\)"):
        DoomAutoFire().setup(RAW, spaces.Discrete(3))
    with pytest.raises(InvalidValueError, match=r"^DoomVariableBonus: index must be an integer >= 0, got -1$"):
        DoomVariableBonus(index=-1)
    with pytest.raises(InvalidValueError, match=r"^DoomVariableBonus: bonus must be a finite number, got nan$"):
        DoomVariableBonus(bonus=float("nan"))
    with pytest.raises(SpaceMismatchError, match=r"index 5 needs at least 6 game variables, the observation has 5"):
        DoomVariableBonus(index=5).setup(RAW, BUTTONS)
    with pytest.raises(SpaceMismatchError, match=r"a 'variables' Box \(k,\), got Dict\('enemies'"):
        DoomVariableBonus().setup(spaces.Dict({"enemies": TABLE}), BUTTONS)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.one_of(st.floats(-1e4, 1e4, width=32), st.just(float("nan"))), min_size=1, max_size=40),
    bonus=st.floats(-1, 1),
    index=st.integers(0, 4),
)
def test_variable_bonus_pays_the_change_of_its_variable_over_a_match(values, bonus, index) -> None:
    """The match's bonuses sum to bonus x (last finite value - first finite value); nan changes nothing."""
    level = DoomVariableBonus(index=index, bonus=bonus)
    level.setup(RAW, BUTTONS)
    paid = 0.0
    for step, value in enumerate(values):
        observation = _observation((0, 0, 0, 0, 0))
        observation["variables"][index] = value
        if step == 0:
            level.transform_reset(observation)
        else:
            level.transform_observation(observation)
            paid += level.transform_reward(0.0)
    paid += level.transform_done(0.0, terminated=True, truncated=False)
    finite = [np.float32(v) for v in values if np.isfinite(v)]
    expected = bonus * (float(finite[-1]) - float(finite[0])) if finite else 0.0
    assert paid == pytest.approx(expected, rel=1e-6, abs=1e-6)


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(rows, min_size=1, max_size=40), scale=st.floats(0.1, 4), gamma=st.floats(0.9, 1.0))
def test_aim_shaping_pays_the_discounted_potential_difference(steps, scale, gamma) -> None:
    """Each reward gains gamma * phi(o') - phi(o), phi = -scale * the enemy's distance from the centre (0.5 unseen)."""
    level = DoomAimShaping(scale=scale, gamma=gamma)
    level.setup(RAW, BUTTONS)

    def phi(row: tuple[float, ...]) -> float:
        return -scale * (abs(float(np.float32(row[1])) - 0.5) if row[0] > 0 else 0.5)

    level.transform_reset(_observation(steps[0]))
    for before, after in zip(steps, steps[1:]):
        assert level.transform_observation(_observation(after))["enemies"][0, 0] == after[0]
        assert level.transform_reward(0.25) == pytest.approx(0.25 + gamma * phi(after) - phi(before), abs=1e-9)
    assert level.transform_done(0.0, terminated=True, truncated=False) == pytest.approx(-phi(steps[-1]), abs=1e-9)


def test_aim_shaping_errors_and_its_name() -> None:
    with pytest.raises(InvalidValueError, match=r"^DoomAimShaping: scale must be a positive finite number, got 0$"):
        DoomAimShaping(scale=0)
    with pytest.raises(SpaceMismatchError, match=r"'enemies' Box \(n, 5\)"):
        DoomAimShaping().setup(spaces.Dict({"variables": VARIABLES}), BUTTONS)
    assert (
        str(DoomAimShaping(DoomAutoFire(), scale=2.0, gamma=1.0)) == "DoomAimShaping(DoomAutoFire(), scale=2, gamma=1)"
    )


def test_the_training_stack_reads_the_table_and_acts_on_the_buttons() -> None:
    """The documented stack: an MLP's vector of 5 + k values, 8 moves, and the hit bonus paid once per hit."""
    stack = DoomTarget(DoomVariableBonus(DoomActions(DoomAutoFire(hold=0), actions="move"), index=4, bonus=0.1))
    stack.setup(RAW, BUTTONS)
    assert stack.observation_space.shape == (10,) and stack.action_space == spaces.Discrete(8)
    assert str(stack) == ("DoomTarget(DoomVariableBonus(DoomActions(DoomAutoFire(hold=0), actions='move'), index=4))")
    first = _observation((1.0, 0.5, 0.5, 0.1, 0.3))
    assert stack.observation_space.contains(stack.transform_reset(first))
    assert stack.transform_action(4).tolist() == [1, 1, 0, 0, 0, 1, 0]  # forward+turn_left, and the rule fires
    hit = _observation((1.0, 0.5, 0.5, 0.1, 0.3))
    hit["variables"][4] = 2.0
    stack.transform_observation(hit)
    assert stack.transform_reward(1.0) == pytest.approx(1.2)
    assert stack.transform_reward(0.0) == 0.0
