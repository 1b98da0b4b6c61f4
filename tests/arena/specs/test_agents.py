"""Entrants described by name: parsing, building anywhere, versions."""

from __future__ import annotations

import pytest

import envs
from arena import AgtItfWrapper, RandomAgent
from arena.agents.mcts import MCTSAgent
from arena.specs.agents import AgentSpec, agent_version, behind_interface, parse_agents
from arena.tournament import run_tournament


def test_parse_names_factories_and_json_kwargs():
    specs = parse_agents(
        'random, deep=mcts{"simulations": 4, "exploration": 1.0},x=tests.arena.tournament.helpers:SleepyAgent'
    )
    assert specs == [
        AgentSpec("random", "random"),
        AgentSpec("deep", "mcts", {"simulations": 4, "exploration": 1.0}),
        AgentSpec("x", "tests.arena.tournament.helpers:SleepyAgent"),
    ]
    assert specs[1].describe() == 'mcts{"exploration": 1.0, "simulations": 4}'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a|b=random", "an entrant name must be letters, digits, spaces or _.-+#@/ (no '|', ',' or '='), got 'a|b'"),
        ('a=random{"seed": 1', "the keyword arguments after the name must be a JSON object"),
        (
            'a=random["seed"]',
            "AgentSpec 'a': factory must be a registered agent name or 'package.module:callable' "
            "(keyword arguments go in {JSON} after it), got 'random[\"seed\"]'",
        ),
        ("name=", "expected [NAME=]FACTORY[{JSON kwargs}], got no factory"),
        ("", "--agents: expected comma-separated agents, got ''"),
    ],
)
def test_parse_errors_name_what_was_expected(text, message):
    with pytest.raises(ValueError) as info:
        parse_agents(text)
    assert message in str(info.value)


def test_planners_receive_the_env_they_play_in():
    env = envs.make("connect_four")
    agent = AgentSpec("m", "mcts", {"simulations": 3}).build(env)
    assert isinstance(agent, MCTSAgent) and agent.env is env


def test_agent_objects_and_lambdas_are_refused_with_the_way_out():
    with pytest.raises(TypeError, match="is an agent object; give a factory instead"):
        run_tournament("tic_tac_toe", [RandomAgent(), RandomAgent()])
    with pytest.raises(ValueError, match="must be importable by name so that workers can build it"):
        run_tournament("tic_tac_toe", {"a": lambda: RandomAgent(), "b": "random"})
    with pytest.raises(ValueError, match="keyword arguments must be JSON-serialisable"):
        AgentSpec("a", "random", {"seed": object()})


def test_importable_factories_and_dicts_of_entrants():
    result = run_tournament("tic_tac_toe", {"first": RandomAgent, "second": "random"}, games=2)
    assert result.specs["first"].factory == "arena.agents.base:RandomAgent"


def test_behind_interface_wraps_an_agent_built_by_name():
    agent = behind_interface("random", "interfaces.board:RotateBoard", interface_kwargs={"quarter_turns": 2})
    assert isinstance(agent, AgtItfWrapper)
    assert str(agent) == "AgtItfWrapper(RandomAgent, RotateBoard(quarter_turns=2))"
    assert (
        str(behind_interface("random", "rotate_board", interface_kwargs={"mirror": True}))
        == "AgtItfWrapper(RandomAgent, RotateBoard(quarter_turns=1, mirror=True))"
    )
    with pytest.raises(KeyError, match="unknown interface 'no_such_interface'; known interfaces: "):
        behind_interface("random", "no_such_interface")


def test_agent_version_names_the_class_and_package():
    assert agent_version(RandomAgent()).startswith("RandomAgent (arena-marl ")

    class Versioned(RandomAgent):
        version = "my-bot 2.1"

    assert agent_version(Versioned()) == "my-bot 2.1"


def test_an_unnamed_module_callable_or_folder_entrant_is_named_by_what_it_is():
    specs = parse_agents(
        'envs.rock_paper_scissors:BeatMostCommonAgent,arena.training:load_trained_agent{"path": "/r/c4"}'
    )
    assert [spec.name for spec in specs] == ["BeatMostCommonAgent", "c4"]
    assert [spec.label() for spec in specs] == ["envs.rock_paper_scissors:BeatMostCommonAgent", "c4"]
