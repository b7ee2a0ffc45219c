"""The package reports one version: ``setgames.__version__``, ``setgames --version`` and the
installed metadata agree."""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, version

import pytest

import setgames
from setgames.cli import main


def test_version_is_a_release_number():
    assert re.fullmatch(r"\d+\.\d+\.\d+(?:[ab]\d+|rc\d+|\.dev\d+)?", setgames.__version__)


def test_version_flag_prints_it_with_the_engines_in_use(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"setgames {setgames.__version__} (compiled engines: ")


def test_version_flag_says_when_no_engine_is_compiled(capsys, monkeypatch):
    monkeypatch.setenv("SETGAMES_ENGINE", "0")
    with pytest.raises(SystemExit):
        main(["--version"])
    assert "compiled engines: none" in capsys.readouterr().out


def test_installed_metadata_has_the_same_version():
    try:
        installed = version("setgames")
    except PackageNotFoundError:
        pytest.skip("setgames is not installed (run from a bare checkout)")
    assert installed == setgames.__version__
