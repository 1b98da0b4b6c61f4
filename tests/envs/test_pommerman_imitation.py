"""tools/imitate.py on Pommerman's ego planes: the labels follow the seat, pommerman_evader the teacher."""

from __future__ import annotations

import json
from typing import Any

import pytest

import envs
from arena import make_agent, play
from arena.agents.base import Agent
from arena.specs.interfaces import build_interface
from envs.pommerman.recipe import planes_interface
from tests.tool_scripts import load_tool

imitate = load_tool("imitate")


class Recording(Agent):
    """The teacher, its raw actions kept."""

    def __init__(self, inner: Agent) -> None:
        super().__init__()
        self.inner, self.actions = inner, []

    def setup(self, observation_space: Any, action_space: Any) -> None:
        super().setup(observation_space, action_space)
        self.inner.setup(observation_space, action_space)

    def reset(self, *, seed: int | None = None) -> None:
        self.inner.reset(seed=seed)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        self.actions.append(int(self.inner.act(observation, action_mask, reward)))
        return self.actions[-1]


@pytest.mark.parametrize("seat", range(4))
def test_the_teachers_moves_label_back_to_themselves_from_every_seat_of_the_ego_view(seat):
    """The ego view turns the moves by seat: a label read from the stack's seat-0 frame would send other moves."""
    env = envs.make("pommerman", max_steps=200)
    teacher = Recording(make_agent("pommerman_evader", seed=seat))
    stack = planes_interface(200)
    demonstration = imitate.Demonstration(
        teacher, imitate.Pupil(None, [], leads=True), build_interface(stack), build_interface(stack)
    )
    others = iter(make_agent("pommerman_simple") for _ in range(3))
    agents = [demonstration if k == seat else next(others) for k in range(4)]
    for game in range(2):  # the second game re-reads the seat
        record: list[dict[str, Any]] = []
        teacher.actions.clear()
        play(env, agents, seed=10 * seat + game, record=record)
        sent = [int(step[f"agent_{seat}"]) for step in record if f"agent_{seat}" in step]
        assert sent == teacher.actions and len(sent) > 5


def test_the_teacher_and_the_opponent_take_options_as_tournaments_do() -> None:
    shadow = imitate.agent_spec('pommerman_shadow{"approach": 2}', "teacher").build()
    assert shadow.agent.approach == 2  # the option reached the agent behind the filter
    assert imitate.agent_spec("pommerman_shadow", "teacher").build().agent.approach == 4  # the registered default


@pytest.mark.parametrize(
    ("teacher", "error", "message"),
    [
        ("pommerman_shadow+pommerman_shadow", "InvalidValueError", "the teacher is one agent"),
        ('pommerman_shadow{"approach": 2', "InvalidValueError", "must be a JSON object"),
    ],
)
def test_a_bad_teacher_spec_is_refused_before_any_game(tmp_path, teacher, error, message) -> None:
    with pytest.raises(Exception, match=message) as raised:
        imitate.imitate(
            tmp_path / "none",
            teacher=teacher,
            opponent="pommerman_simple",
            rounds=1,
            games=1,
            seed=0,
            epochs=1,
            env_options={},
        )
    assert type(raised.value).__name__ == error
    assert not (tmp_path / "none").exists()


def test_a_folder_taught_another_mode_trains_on_with_that_modes_recipe_and_its_own_model(tmp_path) -> None:
    from dataclasses import replace

    from arena.training.config import RECIPE_FILE, stored_recipe
    from arena.training.recipe import recipe_for

    ffa = replace(recipe_for("pommerman", {}), algo_options={"learning_rate": 0.125}, env_options={})
    (tmp_path / RECIPE_FILE).write_text(json.dumps(ffa.to_json()))
    manifest = {"env": "pommerman", "interface": ffa.interface, "algo": ffa.algo}
    assert imitate.recipe_for_games(tmp_path, manifest, {}) is None  # the same game: the folder's recipe stays
    team = imitate.recipe_for_games(tmp_path, manifest, {"mode": "team"})
    expected = recipe_for("pommerman", {"mode": "team"})
    assert team is not None and ffa.control != expected.control
    assert (team.control, team.n_envs, team.env_options) == (expected.control, expected.n_envs, {"mode": "team"})
    assert (team.interface, team.algo, team.algo_options) == (ffa.interface, ffa.algo, {"learning_rate": 0.125})
    (tmp_path / RECIPE_FILE).unlink()  # no stored recipe: the env's, with the manifest's model
    bare = imitate.recipe_for_games(tmp_path, {**manifest, "interface": "pommerman_safe_moves"}, {"mode": "team"})
    assert bare is not None and (bare.interface, bare.control) == ("pommerman_safe_moves", expected.control)
    assert stored_recipe(tmp_path) is None
