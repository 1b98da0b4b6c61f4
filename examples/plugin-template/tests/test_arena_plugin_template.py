"""The one test every arena plugin needs: check_interface over generated spaces."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import SpaceMismatchError
from arena.testing import check_interface
from arena_plugin_template import AppendTurnCount

boxes = st.builds(lambda n, low: spaces.Box(np.float32(low), np.float32(low + 2), (n,), np.float32),
                  st.integers(1, 6), st.integers(-5, 5))


@settings(max_examples=25, deadline=None)
@given(boxes, st.integers(1, 5), st.integers(1, 20))
def test_append_turn_count_keeps_the_contract(box, actions, max_turns):
    check_interface(AppendTurnCount(max_turns=max_turns), box, spaces.Discrete(actions), examples=10)


def test_append_turn_count_rejects_other_spaces():
    with pytest.raises(SpaceMismatchError, match=r"AppendTurnCount\(max_turns=1000\): needs a 1-D Box observation"):
        AppendTurnCount().setup(spaces.Discrete(3), spaces.Discrete(2))
