"""One interface syntax: text and JSON forms, errors that name what is valid, every place that names an interface."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena import AgtItfWrapper, UnknownNameError, play
from arena.errors import InterfaceSpecError
from arena.specs.agents import AgentSpec, behind_interface
from arena.specs.interfaces import InterfaceSpec, build_interface, parse_interface_spec


def test_text_and_json_forms_build_the_same_stack():
    text = "flatten(rotate_board(ego_board(planes=true), quarter_turns=1, mirror=false))"
    spec = parse_interface_spec(text)
    assert spec.text() == text
    as_json = json.dumps(spec.to_json())
    assert parse_interface_spec(as_json) == spec == parse_interface_spec(spec.to_json())
    assert str(build_interface(text)) == "Flatten(RotateBoard(EgoBoard(planes=True), quarter_turns=1))"


def test_a_stacks_str_reads_back():
    stack = build_interface("frame_stack(one_hot, frames=3)")
    assert str(build_interface(str(stack))) == str(stack)


names = st.sampled_from(["flatten", "ego_board", "one_hot", "frame_stack"])
values = st.one_of(
    st.integers(-5, 5),
    st.booleans(),
    st.none(),
    st.text("abc xyz,()=", max_size=5),
    st.lists(st.integers(0, 3), max_size=3),
    st.floats(-2, 2, allow_nan=False),
)


@st.composite
def specs(draw, depth=3):
    inner = draw(specs(depth=depth - 1)) if depth and draw(st.booleans()) else None
    keys = draw(st.lists(st.from_regex(r"[a-z_]{1,6}", fullmatch=True), max_size=3, unique=True))
    return InterfaceSpec(draw(names), {key: draw(values) for key in keys}, inner)


@settings(max_examples=60, deadline=None)
@given(specs())
def test_text_and_json_round_trip(spec):
    assert parse_interface_spec(spec.text()) == spec
    assert parse_interface_spec(json.dumps(spec.to_json())) == spec


def test_errors_name_the_unknown_interface_or_option_and_list_the_valid_ones():
    with pytest.raises(UnknownNameError, match=r"unknown interface 'flaten'; known interfaces: .*flatten"):
        build_interface("flaten(ego_board)")
    with pytest.raises(InterfaceSpecError, match=r"interface 'frame_stack' has no option 'frame'; its options: frames"):
        build_interface("frame_stack(flatten, frame=2)")
    with pytest.raises(InterfaceSpecError, match=r"expected ',' or '\)' at position"):
        build_interface("flatten(ego_board planes=true)")
    with pytest.raises(InterfaceSpecError, match="only the first argument may be the inner interface"):
        build_interface("flatten(ego_board, one_hot)")
    with pytest.raises(InterfaceSpecError, match="option 'frames' given twice"):
        build_interface("frame_stack(frames=2, frames=3)")
    with pytest.raises(InterfaceSpecError, match='needs an "interface" name'):
        build_interface('{"name": "flatten"}')


def test_entrants_name_interfaces_in_the_same_syntax():
    spec = AgentSpec.parse(
        'mirrored=random{"interface": "rotate_board(ego_board, quarter_turns=0, mirror=true)", "seed": 3}'
    )
    agent = spec.build()
    assert isinstance(agent, AgtItfWrapper)
    assert str(agent.interface) == "RotateBoard(EgoBoard(), quarter_turns=0, mirror=True)"
    episode = play(envs.make("connect_four"), [agent, AgentSpec.parse("random").build()], seed=1)
    assert episode.length > 0
    helper = behind_interface("random", "rotate_board(ego_board)", interface_kwargs={"mirror": True})
    assert str(helper.interface) == "RotateBoard(EgoBoard(), quarter_turns=1, mirror=True)"


def test_arena_interfaces_lists_the_options_of_each_interface(capsys):
    from arena.cli import main

    assert main(["interfaces", "--plain"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert "OPTIONS" in rows["NAME"]
    assert "frames=4" in rows["frame_stack"] and "nvec (required)" in rows["discrete_to_multi_discrete"]
    assert "player=null, planes=false" in rows["ego_board"]  # option values in the syntax they are given in
    build_interface("ego_board(player=null, planes=false)")


def test_arena_play_takes_an_entrant_behind_an_interface_in_both_forms(capsys):
    from arena.cli import main

    text = 'random{"interface": "flatten(ego_board(planes=true))", "seed": 1}'
    as_json = json.dumps({"interface": parse_interface_spec("flatten(ego_board(planes=true))").to_json(), "seed": 1})
    outcomes = []
    for entrant in (text, f"random{as_json}"):
        assert main(["play", "tic_tac_toe", "--agents", f"{entrant},random", "--seed", "4"]) == 0
        outcomes.append(capsys.readouterr().out.splitlines()[-1])
    assert outcomes[0] == outcomes[1] and outcomes[0].startswith("result: ")
    assert main(["play", "tic_tac_toe", "--agents", 'random{"interface": "flatten(ego_bord)"},random']) == 2
    assert "unknown interface 'ego_bord'; known interfaces: " in capsys.readouterr().err
