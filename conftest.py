"""Collection rules for the doctest run over the packages (``--doctest-modules``)."""

import importlib.util

# The training recipe and the learning probes are torch programs (the `train` extra); a plain
# install has no torch, so their modules are collected only where torch is installed
# (.ci/train-smoke runs the recipe).
collect_ignore = [] if importlib.util.find_spec("torch") else ["setgames/learn/ppo.py",
                                                                "setgames/learn/dmc.py",
                                                                "setgames/learn/encoder.py",
                                                                "research/learning/probes.py"]


# What each importable name a skipped test asked for comes with, and how to get it from a checkout.
_EXTRA_OF = {
    "torch": "train", "stable_baselines3": "sb3", "sb3_contrib": "sb3", "tianshou": "tianshou",
    "torchrl": "torchrl", "nbclient": "notebook", "nbformat": "notebook", "ipykernel": "notebook",
    "ray": "ray",
    "resvg_py": "pictures", "PIL": "pictures", "moviepy": "pictures", "matplotlib": "plot",
    "selenium": "test-web", "open_spiel": "bench", "pgx": "bench", "jax": "bench", "rlcard": "bench",
}
# The extras that pull torch install its CPU build first (a plain `torch` is the CUDA build).
_INSTALL = {extra: f"pip install torch==2.13.0 && pip install -e '.[{extra}]'"
            for extra in ("train", "sb3", "tianshou", "torchrl", "trainers")}


def _skip_need(reason: str) -> str:
    """What a skipped test needs, in one line a newcomer can act on."""
    import re

    m = re.search(r"could not import '([\w.]+)'|No module named '([\w.]+)'|\.\[([\w-]+)\]", reason)
    if m and m.group(3):
        extra = m.group(3)
    elif m:
        extra = _EXTRA_OF.get((m.group(1) or m.group(2)).split(".")[0])
    else:
        extra = None
    if extra:
        return f"the [{extra}] extra: {_INSTALL.get(extra, f'pip install -e {chr(39)}.[{extra}]{chr(39)}')}"
    if "not built" in reason or "no batched engine built" in reason:
        return "the compiled parts: a C compiler at install (pip install -e . builds them)"
    if "SETGAMES_REQUIRE_ENGINES" in reason:
        return "SETGAMES_REQUIRE_ENGINES=1 (CI's check that every engine was compiled)"
    if "+SKIP" in reason:
        return "nothing: a doctest example marked +SKIP (shown in the docs, never run)"
    if "Chromium" in reason:
        return "Chromium and chromedriver (.ci/web-smoke installs them) and the [test-web] extra"
    return reason


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """After the run: the skipped tests grouped by what they need (an extra, the compiled
    parts, a browser), so that a newcomer knows what to install to run them."""
    from collections import Counter

    needs: Counter[str] = Counter()
    for report in terminalreporter.stats.get("skipped", []):
        if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
            reason = str(report.longrepr[2]).removeprefix("Skipped: ")
        else:
            reason = str(report.longrepr)
        needs[_skip_need(reason)] += 1
    if needs:
        terminalreporter.section("skipped tests need")
        for need, count in needs.most_common():
            terminalreporter.line(f"{count:5d} skipped: need {need}")
