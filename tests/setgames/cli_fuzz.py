"""A structure-aware fuzzer of the command line's file inputs: game records
(``setgames replay``) and save files (``setgames play --load``).

:func:`make_corpus` plays short games of every game and config and keeps their
records and saves; :func:`mutate` turns one into a bad file (a field of the
wrong type, a huge or negative number, a missing or unknown field, an action
out of range, junk or NUL bytes, a truncated file, deep nesting, ...);
:func:`run_cases` runs the commands in child processes under a memory and CPU
cap (``resource.setrlimit``) and an alarm per case, and classifies each:

- ``works``: exit status 0;
- ``refused``: a non-zero status and exactly one line on stderr,
  ``setgames: error: ...`` or ``setgames play: error: ...``;
- anything else is a failure: a traceback (an exception out of ``main``),
  several lines, an out-of-memory message (a runaway allocation that the
  cap stopped), a case over its time (a hang), or a child killed by a signal.
"""

from __future__ import annotations

import io
import json
import os
import random
import resource
import signal
import subprocess
import sys
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MEMORY_CAP = 3 * 2**30  # bytes of address space a child may map (numpy and the engines take ~0.6 GB)
CASE_SECONDS = 30  # a case running longer is a hang
CHILD_CPU_SECONDS = 900
ERROR_PREFIXES = ("setgames: error: ", "setgames play: error: ")

# (game, config, players of the saves) of the corpus: every game and each config family.
CONFIGS = [
    ("tethsi", {}), ("tethsi", {"first_player": "random"}),
    ("bharg", {}), ("bharg", {"num_players": 3, "pawns": True, "excuse": True}),
    ("bharg", {"target_score": 15, "courts": True, "reward": "win"}),
    ("tusac", {"num_players": 2}), ("tusac", {"num_players": 4, "penalty_rule": False}),
]
JUNK = [None, True, False, 0, -1, 1.5, -0.0, 10**12, 10**30, -(10**30), 2**63, 2**64, 1e308,
        float("inf"), float("nan"), "", "x", "1", "random", "ismcts:iterations=1000000000000",
        [], {}, [1, 2], {"a": 1}, [[[]]], "é" * 50, "y" * 5000]
BAD_OPTIONS = {"max_turns": [10**12, 0, 2.0, 10_001], "num_players": [2.0, 5, True, "3"],
               "reward_scale": [10**400, 1e300, float("inf"), 0, -1, "2"],
               "target_score": [0, 10**9, 1.5], "first_player": [7, -1, 1.0, "first"],
               "pawns": [1, "yes"], "penalty_rule": [0, None], "reward": ["points", 1]}
BOT_SPECS = ["random:seed=5", "greedy:depth=3", "ismcts:iterations=1000000000000", "ismcts:iterations=0",
             "ismcts:seconds=1e9", "ismcts:c=nan", "nobot", "", ":", "ismcts:iterations", "greedy,random"]


# ---------------------------------------------------------------------------- corpus
def make_corpus(seed: int = 0) -> list[tuple[str, str, dict[str, Any]]]:
    """``(kind, game, data)`` items: ``kind`` is ``"record"`` (a finished game's
    record with seats, outcome and returns) or ``"save"`` (a game in progress
    saved by the play session), for every config of :data:`CONFIGS`."""
    from setgames.bots import make_bot
    from setgames.play.session import Session
    from setgames.records import record_from_env
    from setgames.registry import env_class, make_game

    out = []
    for k, (name, config) in enumerate(CONFIGS):
        env = env_class(name)(**config)
        env.reset(seed=seed + k)
        bots = [make_bot("random", name, seed=seed + 10 * k + i) for i in range(env.game.num_players)]
        steps = 0
        while not env.game.is_over(env.game_state) and steps < 3000:
            seat = env.possible_agents.index(env.agent_selection)
            env.step(bots[seat].act(env.game, env.game_state, seat))
            steps += 1
        out.append(("record", name, record_from_env(env, seats=["random"] * env.game.num_players)))
        game = make_game(name, **config)
        session = Session(game, name, seed + k, human_seat=k % game.num_players, opponents="random",
                          hint_bot="random")
        for _ in range(12):
            if session.is_over():
                break
            session.auto_move()
        out.append(("save", name, session.record()))
    return out


# ---------------------------------------------------------------------------- mutations
def _dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


def _mutate_fields(rng: random.Random, data: dict[str, Any], kind: str) -> tuple[str, str]:
    """A structural mutation of a copy of ``data``: the file text and a description."""
    d = json.loads(json.dumps(data))
    op = rng.randrange(12)
    keys = list(d)
    if op == 0:
        key = rng.choice(keys)
        d[key] = rng.choice(JUNK)
        what = f"{key}=junk"
    elif op == 1:
        key = rng.choice(keys)
        del d[key]
        what = f"del {key}"
    elif op == 2 and d.get("config") is not None:
        cfg = d["config"]
        key = rng.choice(list(BAD_OPTIONS))
        cfg[key] = rng.choice(BAD_OPTIONS[key])
        what = f"config.{key}=bad"
    elif op == 3 and isinstance(d.get("config"), dict):
        if d["config"] and rng.random() < 0.5:
            key = rng.choice(list(d["config"]))
            d["config"][key] = rng.choice(JUNK)
            what = f"config.{key}=junk"
        else:
            d["config"][rng.choice(["bogus", "seed", "engine", ""])] = rng.choice(JUNK)
            what = "config+unknown"
    elif op in (4, 5) and d["actions"]:
        acts = d["actions"]
        i = rng.randrange(len(acts))
        acts[i] = rng.choice([-1, 2**31, 2**31 - 1, 2**63, 10**30, 1.0 * acts[i], str(acts[i]),
                              None, True, [acts[i]], acts[i] + 1, 5000, -2**63])
        what = f"actions[{i}]=bad"
    elif op == 6:
        acts = d["actions"]
        choice = rng.randrange(3)
        if choice == 0:
            del acts[rng.randrange(len(acts) + 1):]
        elif choice == 1:
            acts += [rng.randrange(-5, 800) for _ in range(rng.randrange(1, 50))]
        else:
            rng.shuffle(acts)
        what = "actions reshaped"
    elif op == 7:
        d["seed"] = rng.choice([-1, 2**63, 2**64, 1.5, "1", None, True, d["seed"] + 1, 10**30])
        what = "seed=bad"
    elif op == 8:
        key = rng.choice(["seats", "outcome", "returns", "version"])
        d[key] = rng.choice([*JUNK, [1e308, -1e308], [10**400], ["a", "b"], [[], {}], [None] * 4,
                             {"winner": 10**30}])
        what = f"{key}=junk"
    elif op == 9 and kind == "save":
        key = rng.choice(["human_seat", "opponents", "hint_bot"])
        d[key] = rng.choice([*JUNK, *BOT_SPECS, 99, -5, 10**30, 0.5])
        what = f"{key}=bad"
    elif op == 10:
        key = rng.choice(keys)
        depth = rng.choice([50, 5000, 200_000])
        text = _dumps(d)
        token = f'"{key}":'
        start = text.index(token) + len(token)
        # the field's value wrapped in `depth` lists, written by hand (json.dumps recurses)
        value = _dumps(d[key])
        text = text[:start] + "[" * depth + value + "]" * depth + text[start + len(value):]
        return text, f"{key} nested {depth}"
    else:
        key = rng.choice(["seed", "version"])
        text = _dumps(d).replace(f'"{key}":{_dumps(d[key])}', f'"{key}":' + rng.choice(
            ["1" * 5000, "1e999999", "-1e999999", "Infinity", "NaN", "9" * 400, "0x10", "01"]), 1)
        return text, f"{key} literal"
    return _dumps(d), what


def mutate(rng: random.Random, data: dict[str, Any], kind: str) -> tuple[bytes, str]:
    """One bad file made from ``data``: its bytes and what was done to it."""
    op = rng.randrange(10)
    if op < 6:
        text, what = _mutate_fields(rng, data, kind)
        return text.encode("utf-8") + b"\n", what
    raw = (_dumps(data) + "\n").encode("utf-8")
    if op == 6:
        cut = rng.randrange(len(raw))
        return raw[:cut], f"truncated at {cut}"
    if op == 7:
        buf = bytearray(raw)
        for _ in range(rng.randrange(1, 8)):
            buf[rng.randrange(len(buf))] = rng.randrange(256)
        return bytes(buf), "bytes flipped"
    if op == 8:
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        at = rng.randrange(len(raw) + 1)
        return raw[:at] + junk + raw[at:], "junk inserted"
    # several records, blank lines and a bad one among them
    bad, what = _mutate_fields(rng, data, kind)
    lines = [raw, b"\n", raw, b"   \n", bad.encode("utf-8") + b"\n"]
    rng.shuffle(lines)
    return b"".join(lines), f"lines with {what}"


def make_cases(corpus: list[tuple[str, str, dict[str, Any]]], n: int, seed: int,
               folder: Path) -> list[dict[str, Any]]:
    """``n`` cases (files written under ``folder``), each ``{"argv", "what"}``, plus
    the fixed hostile ones: /dev/zero, empty file, a directory, a missing file,
    a file without line ends."""
    rng = random.Random(seed)
    cases = []
    fixed = [("/dev/zero", "/dev/zero"), (str(folder), "a directory"),
             (str(folder / "missing.json"), "missing")]
    empty = folder / "empty.json"
    empty.write_bytes(b"")
    fixed.append((str(empty), "empty"))
    long_line = folder / "long.json"
    with long_line.open("wb") as f:  # a line beyond the 8 MB a record may take
        f.write(b"[" + b"0," * (4 * 2**20 + 10) + b"0]")
    fixed.append((str(long_line), "9 MB line"))
    for path, what in fixed:
        cases.append({"argv": ["replay", path, "--check"], "what": what})
        cases.append({"argv": ["play", "tethsi", "--load", path], "what": what})
    for i in range(n):
        kind, game, data = corpus[rng.randrange(len(corpus))]
        content, what = mutate(rng, data, kind)
        path = folder / f"case{i}.json"
        path.write_bytes(content)
        if kind == "record" and rng.random() < 0.8:
            argv = ["replay", str(path)] + (["--check"] if rng.random() < 0.7 else
                                            ["--seat", str(rng.randrange(-1, 5))])
        else:
            other = rng.random() < 0.1
            argv = ["play", "bharg" if other and game != "bharg" else game, "--load", str(path)]
        cases.append({"argv": argv, "what": f"{kind}/{game}: {what}"})
    return cases


# ---------------------------------------------------------------------------- running
class _Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Hang()


def run_one(argv: list[str]) -> dict[str, Any]:
    """Run ``setgames argv`` in this process (stdin empty, output captured) and
    classify it (see the module docstring)."""
    from setgames.cli import main

    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.StringIO("quit\n")
    t0 = time.monotonic()
    signal.alarm(CASE_SECONDS)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            rc: Any = main(argv)
        problem = None
    except _Hang:
        rc, problem = None, f"hang: over {CASE_SECONDS} s"
    except BaseException:  # a traceback is exactly what must never happen
        rc, problem = None, "traceback: " + traceback.format_exc(limit=-3)
    finally:
        signal.alarm(0)
        sys.stdin = stdin
    text = err.getvalue()
    lines = text.strip().splitlines()
    if problem is None and rc != 0:
        if len(lines) != 1 or not lines[0].startswith(ERROR_PREFIXES):
            problem = f"status {rc} without a one-line message: {text[:500]!r}"
        elif "out of memory" in lines[0]:
            problem = f"runaway allocation: {lines[0]}"
    if problem is None and "Traceback" in text:
        problem = f"traceback on stderr: {text[:500]!r}"
    status = "fail" if problem else ("works" if rc == 0 else "refused")
    return {"status": status, "rc": rc, "problem": problem, "message": lines[0][:200] if lines else "",
            "seconds": round(time.monotonic() - t0, 3)}


def child_main() -> None:
    """Child process: read cases (JSON) from stdin, print one JSON result line each."""
    signal.signal(signal.SIGALRM, _alarm)
    cases = json.load(sys.stdin)
    real_stdout = sys.stdout
    for case in cases:
        res = run_one(case["argv"])
        res["what"], res["argv"] = case["what"], case["argv"]
        real_stdout.write(json.dumps(res) + "\n")
        real_stdout.flush()
    real_stdout.write(json.dumps({"maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}) + "\n")


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    resource.setrlimit(resource.RLIMIT_CPU, (CHILD_CPU_SECONDS, CHILD_CPU_SECONDS))


CHILD_CODE = "from tests.setgames.cli_fuzz import child_main; child_main()"


def run_cases(cases: list[dict[str, Any]], workers: int = 1,
              child_code: str = CHILD_CODE) -> tuple[list[dict[str, Any]], int]:
    """Every case's result, run in ``workers`` capped child processes, and the
    largest peak resident size of a child (kB). A child that dies (a signal) or
    stops early leaves its unfinished cases marked as failures (``child_code``: what
    a child runs, replaced only to test that)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    chunks = [cases[i::workers] for i in range(workers)]
    procs = [subprocess.Popen([sys.executable, "-c", child_code], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              preexec_fn=_limits) for _ in chunks]
    results, maxrss = [], 0
    for proc, chunk in zip(procs, chunks, strict=True):
        out, err = proc.communicate(json.dumps(chunk), timeout=CHILD_CPU_SECONDS + 60)
        got = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        maxrss = max([maxrss] + [g["maxrss_kb"] for g in got if "maxrss_kb" in g])
        got = [g for g in got if "status" in g]
        results += got
        for case in chunk[len(got):]:
            results.append({"status": "fail", "argv": case["argv"], "what": case["what"],
                            "problem": f"child ended with status {proc.returncode} "
                                       f"(a signal if negative) before this case: {err[-500:]!r}"})
    return results, maxrss


def summary(results: list[dict[str, Any]]) -> dict[str, int]:
    """Counts by status (``works``, ``refused``, ``fail``)."""
    counts = {"works": 0, "refused": 0, "fail": 0}
    for r in results:
        counts[r["status"]] += 1
    return counts

