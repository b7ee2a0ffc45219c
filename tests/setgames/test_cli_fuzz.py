"""Fuzzed records and save files through ``setgames replay`` and ``setgames play
--load``, in capped child processes: every case works or ends in one line and a
non-zero status; never a traceback, signal, hang or runaway allocation."""

from __future__ import annotations

import random
import signal
import time

import pytest

from setgames import cli
from tests.setgames import cli_fuzz

CASES = 5000  # default run: about 10 s on one core
SLOW_CASES = 40_000


@pytest.fixture(scope="module")
def corpus():
    return cli_fuzz.make_corpus(seed=0)


def _check(results, maxrss_kb, n):
    counts = cli_fuzz.summary(results)
    fails = [r for r in results if r["status"] == "fail"]
    assert not fails, "\n".join(f"{r['what']}: {r['argv']}: {r['problem']}" for r in fails[:10])
    assert len(results) == n and counts["works"] > 0 and counts["refused"] > 0, counts
    assert maxrss_kb * 1024 < cli_fuzz.MEMORY_CAP, maxrss_kb
    return counts


def test_corpus_covers_every_game_and_both_files_and_replays(corpus):
    kinds = {(kind, game) for kind, game, _ in corpus}
    assert kinds == {(k, g) for k in ("record", "save") for g in ("tethsi", "bharg", "tusac")}
    from setgames.records import replay

    for kind, _, data in corpus:
        if kind == "record":
            assert replay(data).outcome == data["outcome"]


def test_fuzzed_records_and_saves_work_or_end_in_one_line(corpus, tmp_path):
    cases = cli_fuzz.make_cases(corpus, CASES, seed=1, folder=tmp_path)
    results, maxrss = cli_fuzz.run_cases(cases, workers=1)
    _check(results, maxrss, len(cases))
    hostile = {r["what"]: r for r in results if "/" not in r["what"] or r["what"] == "/dev/zero"}
    assert hostile and all(r["status"] == "refused" for r in hostile.values()), hostile


@pytest.mark.slow
def test_many_fuzzed_records_and_saves_work_or_end_in_one_line(corpus, tmp_path):
    cases = cli_fuzz.make_cases(corpus, SLOW_CASES, seed=2, folder=tmp_path)
    results, maxrss = cli_fuzz.run_cases(cases, workers=2)
    _check(results, maxrss, len(cases))


def test_mutations_are_reproducible_and_varied(corpus):
    a = [cli_fuzz.mutate(random.Random(5), data, kind) for kind, _, data in corpus]
    b = [cli_fuzz.mutate(random.Random(5), data, kind) for kind, _, data in corpus]
    assert a == b
    rng = random.Random(9)
    whats = {cli_fuzz.mutate(rng, corpus[0][2], "record")[1].split("=")[0].split(" ")[0] for _ in range(400)}
    assert len(whats) >= 12, whats


# The classifier itself: each kind of failure is caught (else a silent fuzzer passes).
def _command(monkeypatch, run):
    monkeypatch.setitem(cli.COMMANDS, "probe", cli.Command("probe", "probe", lambda p: None, run))


def test_the_classifier_flags_a_traceback(monkeypatch):
    def boom(args):
        raise KeyError("boom")
    _command(monkeypatch, boom)
    res = cli_fuzz.run_one(["probe"])
    assert res["status"] == "fail" and "KeyError" in res["problem"]


def test_the_classifier_flags_several_lines_and_out_of_memory(monkeypatch):
    def two_lines(args):
        import sys
        print("setgames: error: a\nmore", file=sys.stderr)
        return 2
    _command(monkeypatch, two_lines)
    assert cli_fuzz.run_one(["probe"])["status"] == "fail"

    def oom(args):
        raise MemoryError
    _command(monkeypatch, oom)
    res = cli_fuzz.run_one(["probe"])
    assert res["status"] == "fail" and "runaway allocation" in res["problem"]


def test_the_classifier_flags_a_hang_and_passes_a_one_line_refusal(monkeypatch):
    monkeypatch.setattr(cli_fuzz, "CASE_SECONDS", 1)
    old = signal.signal(signal.SIGALRM, cli_fuzz._alarm)
    try:
        _command(monkeypatch, lambda args: time.sleep(5))
        res = cli_fuzz.run_one(["probe"])
        assert res["status"] == "fail" and res["problem"].startswith("hang")
    finally:
        signal.signal(signal.SIGALRM, old)

    def refuse(args):
        raise cli.UsageError("no")
    _command(monkeypatch, refuse)
    res = cli_fuzz.run_one(["probe"])
    assert (res["status"], res["rc"], res["message"]) == ("refused", 2, "setgames: error: no")


def test_a_child_killed_by_a_signal_is_a_failure():
    cases = [{"argv": ["replay", "/dev/zero", "--check"], "what": f"probe {i}"} for i in range(3)]
    code = cli_fuzz.CHILD_CODE.replace("child_main()",
                                       "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    results, _ = cli_fuzz.run_cases(cases, workers=1, child_code=code)
    assert [r["status"] for r in results] == ["fail"] * 3
    assert f"status {-signal.SIGSEGV}" in results[0]["problem"]
