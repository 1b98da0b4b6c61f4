"""A Griffe extension for the documentation site (mkdocs.yml loads it): ``Example:`` is an examples section.

arena's Google-style docstrings head their doctests ``Example:`` (the Google style guide's spelling);
Griffe's Google parser knows only ``Examples:`` and would render the ``>>>`` lines as Markdown text, where
an output such as ``['random', 'deep']`` reads as a broken cross-reference. Renaming the heading as each
object is loaded makes them code blocks, as ``Examples:`` are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

# The heading alone on its line, at any indentation (the docstring's own).
_SINGULAR = re.compile(r"^(\s*)Example:[ \t]*$", flags=re.M)


class ExampleSections(griffe.Extension):
    """Rename each docstring's ``Example:`` heading to ``Examples:``."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _SINGULAR.sub(r"\1Examples:", obj.docstring.value)
