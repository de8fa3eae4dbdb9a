"""A virtual X screen with a real window on it, for the capture client's tests."""

import pytest

from tests.desktop import Desktop


@pytest.fixture
def desktop(tmp_path):
    screen = Desktop(tmp_path)
    yield screen
    screen.close()
