"""The MaskablePPO bot's model cache: one load per file, a new load once the file is saved again."""

from __future__ import annotations

import os
import pathlib

import pytest

sb3_contrib = pytest.importorskip("sb3_contrib")

from setgames.wrappers import sb3  # noqa: E402


def test_a_checkpoint_saved_again_at_the_same_path_is_loaded_again(tmp_path, monkeypatch):
    loads = []

    def load(path, device="cpu"):
        loads.append(pathlib.Path(path).read_text())
        return object()

    monkeypatch.setattr(sb3_contrib.MaskablePPO, "load", staticmethod(load))
    monkeypatch.setattr(sb3, "_MODELS", {})
    path = tmp_path / "model.zip"
    path.write_text("after 200k steps")
    first = sb3.maskable_ppo_bot("bharg", 0, path=str(path)).model
    assert sb3.maskable_ppo_bot("bharg", 1, path=str(path)).model is first  # one load per file
    path.write_text("after 1M steps, longer")
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 1_000_000))
    later = sb3.maskable_ppo_bot("bharg", 2, path=str(path)).model
    assert later is not first
    assert loads == ["after 200k steps", "after 1M steps, longer"]
