"""The guarded batch (:mod:`setgames.batch.guard`): threads, forks, its arrays and its options.

The thread and fork checks run in a child interpreter (a crash or a hang there fails the test
instead of taking pytest down), under ``MALLOC_CHECK_=3`` so that glibc aborts on the first
heap inconsistency rather than later or never.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from setgames.batch import make_batch
from setgames.registry import make_game

GAMES = [("tethsi", {}), ("bharg", {"num_players": 3, "target_score": 40}), ("tusac", {"num_players": 4})]
IDS = [g for g, _ in GAMES]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _run_child(script: str, timeout: float) -> str:
    """Run ``script`` in a fresh interpreter with glibc's strict heap checks; its stdout."""
    env = dict(os.environ, MALLOC_CHECK_="3",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)
    assert proc.returncode == 0, (f"child exited {proc.returncode}:\n{proc.stdout[-2000:]}\n"
                                  f"{proc.stderr[-4000:]}")
    return proc.stdout


def _script(name: str, config: dict, *parts: str) -> str:
    """A child's script: the prelude for game ``name``, then ``parts`` (each dedented)."""
    return PRELUDE.format(name=name, config=config) + "".join(textwrap.dedent(p) for p in parts)


PRELUDE = """
import json, os, sys, threading, time
import numpy as np
from setgames.batch import make_batch
from setgames.registry import make_game
game = make_game({name!r}, **{config!r})
"""


@pytest.mark.parametrize(("name", "config"), GAMES, ids=IDS)
def test_threads_hammering_one_batch_are_refused_not_corrupting(name, config):
    """Four threads call every method of one pooled batch 10,000+ times: each call either runs
    alone or is refused in one line; the heap stays sound and the batch stays consistent."""
    out = _run_child(_script(name, config, """
    b = make_batch(game, 512, seed=5, num_threads=2, opponents="greedy", learner_seat="rotate")
    b.reset()
    counts = {"ran": 0, "refused": 0}
    errors = []
    def work(k):
        rng = np.random.default_rng(k)
        for j in range(2600):
            try:
                op = j % 5
                if op == 0 or op == 1:
                    b.step(b.sample(rng))
                elif op == 2:
                    b.legal_actions(int(rng.integers(512)))
                elif op == 3:
                    b.greedy_actions()
                else:
                    b.reset(mask=rng.random(512) < 0.1)
                counts["ran"] += 1
            except RuntimeError as e:
                if "in use by another thread" not in str(e):
                    errors.append(repr(e))
                counts["refused"] += 1
            except ValueError as e:  # a sample() taken before another thread's step moved on
                if "is not legal" not in str(e) and "out of range" not in str(e):
                    errors.append(repr(e))
                counts["ran"] += 1
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    for i in range(512):
        assert b.mask[i].nonzero()[0].tolist() == b.legal_actions(i), i
    print(json.dumps({**counts, "errors": errors[:5]}))
    """), timeout=240)
    result = __import__("json").loads(out.strip().splitlines()[-1])
    assert result["errors"] == []
    assert result["ran"] + result["refused"] == 4 * 2600 and result["ran"] > 0


FORK = """
b = make_batch(game, 512, seed=9, num_threads=2, opponents="random", learner_seat="rotate")
b.reset()
rng = np.random.default_rng(0)
for _ in range(5):
    b.step(b.sample(rng))

def child_work(b, expect_torn):
    torn = False
    try:
        b.step(b.sample())
    except RuntimeError as e:
        assert "forked while another thread was inside" in str(e) and "call reset() first" in str(e), e
        assert len(str(e).splitlines()) == 1
        torn = True
        try:
            b.reset(mask=np.arange(512) < 3)
            raise AssertionError("a partial reset of a torn batch was accepted")
        except RuntimeError as e2:
            assert "reset every slot" in str(e2), e2
        b.reset()
        b.step(b.sample())
    assert torn or not expect_torn
    for i in range(512):
        assert b.mask[i].nonzero()[0].tolist() == b.legal_actions(i), i
        assert b.seat[i] < 0 or b.mask[i].any(), i
    return torn

def fork_and_wait(expect_torn=False, drop=True, work=True):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            torn = child_work(b, expect_torn) if work else False
            if drop:
                globals().pop("b")  # the batch goes: its pool is the parent's
                import gc; gc.collect()
            code = 10 + torn
        except BaseException as e:
            print("child:", repr(e), file=sys.stderr, flush=True)
            code = 1
        sys.stdout.flush()
        os._exit(code) if drop else sys.exit(code)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.01)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return "hung"
"""


@pytest.mark.parametrize(("name", "config"), GAMES, ids=IDS)
def test_fork_in_every_pool_state_leaves_a_child_that_steps_and_exits(name, config):
    """A child forked while the pool's workers sleep, while they spin just after a step, or
    while another thread steps, steps (after a reset if the fork caught a call) and exits,
    dropping the batch or leaving it to the interpreter's exit."""
    out = _run_child(_script(name, config, FORK, """
    codes = {}
    time.sleep(0.3)  # past the workers' spin: they sleep on the condition variable
    codes["sleeping"] = [fork_and_wait(), fork_and_wait(drop=False), fork_and_wait(work=False),
                         fork_and_wait(drop=False, work=False)]
    b.step(b.sample())  # the workers spin for the next call
    codes["spinning"] = [fork_and_wait()]
    b.step(b.sample())
    codes["spinning_exit"] = [fork_and_wait(drop=False)]
    stop = False
    def stepper():
        r = np.random.default_rng(1)
        while not stop:
            try:
                b.step(b.sample(r))
            except RuntimeError:
                pass  # the main thread is inside (its fork handlers ran there)
    t = threading.Thread(target=stepper)
    t.start()
    codes["mid_step"] = []
    for _ in range(30):
        time.sleep(0.002)
        try:
            codes["mid_step"].append(fork_and_wait())
        except RuntimeError:
            pass
    stop = True
    t.join()
    b.step(b.sample())  # the parent's batch and pool are unharmed
    print(json.dumps(codes))
    """), timeout=300)
    codes = __import__("json").loads(out.strip().splitlines()[-1])
    for state, got in codes.items():
        assert got and all(c in (10, 11) for c in got), (state, got)
    assert all(c == 10 for state in ("sleeping", "spinning", "spinning_exit") for c in codes[state])
    assert 11 in codes["mid_step"]  # some forks caught a step (1 in 2 when the issue was filed)


@pytest.mark.parametrize(("name", "config"), GAMES, ids=IDS)
def test_arrays_cannot_be_resized_written_or_freed_under_the_c_side(name, config):
    b = make_batch(make_game(name, **config), 4, seed=2, opponents="random")
    b.reset()
    names = ["obs", "final_obs", "mask", "seat", "rewards", "learner_reward", "terminated", "truncated",
             "illegal", "skipped_deals", "game_seed", "final_seed", "game_index", "learner_seat",
             "final_learner_seat"]
    for attr in names:
        a = getattr(b, attr)
        with pytest.raises(ValueError, match="does not own its data"):
            a.resize((1,), refcheck=False)
        with pytest.raises(ValueError, match="WRITEABLE"):
            a.flags.writeable = True
        with pytest.raises(ValueError, match="read-only"):
            a[...] = 0
        with pytest.raises(AttributeError):
            setattr(b, attr, np.zeros(1))
    kept = b.obs
    rows = kept.copy()
    del b  # a view a caller kept outlives the batch: the memory goes with the last array
    np.testing.assert_array_equal(kept, rows)


def _refused(match, fn, *args, **kwargs):
    with pytest.raises(ValueError, match=match) as info:
        fn(*args, **kwargs)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(("name", "config"), GAMES, ids=IDS)
def test_silent_acceptances_are_refused_in_one_line(name, config):
    game = make_game(name, **config)
    for bad in (4.5, True, 0, "4", 2**24 + 1):
        _refused("num_envs", make_batch, game, bad)
    for bad in (2.7, True, 0, 10**6, None):
        _refused("num_threads", make_batch, game, 8, num_threads=bad)
    for bad in (2**63, True, -1, 1.5, "7"):
        _refused("seed", make_batch, game, 8, seed=bad)
    _refused("illegal_action", make_batch, game, 8, illegal_action="ignore")
    _refused("illegal_reward", make_batch, game, 8, illegal_reward=float("nan"))
    _refused("short_deals", make_batch, game, 8, short_deals="drop")
    _refused("autoreset mode", make_batch, game, 8, autoreset="sometimes")
    b = make_batch(game, 8, seed=2**63 - 1, opponents="random")
    _refused(r"step\(\) before reset\(\)", b.step, np.zeros(8, np.int64))
    _refused(r"sample\(\) before reset\(\)", b.sample)
    b.reset()
    _refused("seed", b.reset, seed=2**63)
    good = b.sample(np.random.default_rng(0))
    for bad in (good.astype(np.float64), [float(a) for a in good], good.astype(bool), good[:3], "0" * 8):
        _refused("must be integers", b.step, bad)
    assert make_batch(game, 8, num_threads=8).num_threads == 1      # 8 slots: the caller alone
    assert make_batch(game, 1024, num_threads=8).num_threads == 4   # one thread per 256 slots


@pytest.mark.parametrize(("name", "config"), GAMES, ids=IDS)
def test_a_list_of_ints_steps_as_the_array_does(name, config):
    game = make_game(name, **config)
    a, b = (make_batch(game, 16, seed=4, opponents="greedy") for _ in range(2))
    a.reset()
    b.reset()
    rng = np.random.default_rng(3)
    for _ in range(30):
        actions = a.sample(rng)
        a.step(actions)
        b.step([int(x) for x in actions])
        np.testing.assert_array_equal(a.obs, b.obs)
        np.testing.assert_array_equal(a.rewards, b.rewards)


def test_the_seed_two_to_the_63_is_refused_not_reduced_to_zero():
    game = make_game("tethsi")
    b = make_batch(game, 2, seed=0)
    b.reset()
    _refused("seed", make_batch, game, 2, seed=2**63)
    top = make_batch(game, 2, seed=2**63 - 1)
    top.reset()
    assert top.game_seed.tolist() != b.game_seed.tolist()
