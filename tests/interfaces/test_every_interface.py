"""Every bundled interface, on any spaces: either it keeps the contract, or setup rejects the spaces by name."""

from __future__ import annotations

import copy

import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import SpaceMismatchError
from arena.plugins import interface_registry
from arena.testing import check_interface
from arena.testing.strategies import spaces as any_space

BUILTINS = [entry for entry in interface_registry() if entry.builtin]

# Spaces that no vector-minded interface can take, mixed in with the generated ones.
ODD_SPACES = [spaces.Text(4), spaces.Sequence(spaces.Discrete(3)), spaces.Dict({"name": spaces.Text(2)})]
observation_spaces = st.one_of(any_space(max_depth=2), st.sampled_from(ODD_SPACES))
action_spaces = st.one_of(any_space(max_depth=1), st.sampled_from(ODD_SPACES[:2]))


def _names(space: spaces.Space) -> set[str]:
    """The text of a space and of every space nested in it."""
    names = {str(space)}
    children = space.spaces.values() if isinstance(space, spaces.Dict) else getattr(space, "spaces", ())
    if isinstance(space, (spaces.Tuple, spaces.Dict)):
        for child in children:
            names |= _names(child)
    return names


@pytest.mark.parametrize("entry", BUILTINS, ids=[entry.name for entry in BUILTINS])
@settings(max_examples=40, deadline=None)
@given(observation_space=observation_spaces, action_space=action_spaces)
def test_keeps_the_contract_or_rejects_the_spaces_at_setup(entry, observation_space, action_space):
    prototype = entry.interface.contract_examples()[0][0]  # default options, or the documented example's
    interface = copy.deepcopy(prototype)
    try:
        interface.setup(observation_space, action_space)
    except SpaceMismatchError as err:
        message = str(err)
        assert message.startswith(f"{interface}: "), message
        assert any(name in message for name in _names(observation_space) | _names(action_space)), message
        return
    check_interface(copy.deepcopy(prototype), observation_space, action_space, examples=4)
