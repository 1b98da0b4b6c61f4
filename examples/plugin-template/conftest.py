"""Lets ``pytest`` run from a source checkout before ``pip install -e .`` (pytest puts this folder on sys.path)."""
