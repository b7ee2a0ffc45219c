"""A structure-aware fuzzer of game states, run in child processes.

Each case takes a valid state of one game and config (from random play),
breaks it in one to three places, and loads it into a fresh env on both layers
(the compiled engine and ``engine=False``):

- a *JSON* case mutates the state's ``to_json`` data and goes through
  ``game.from_json``, then ``set_game_state``;
- an *object* case mutates an attribute of a valid state object in place (a
  caller's hand edit) and goes straight to ``set_game_state``.

Mutations follow the data's shape: a scalar becomes an id out of range, a huge
int, a float, None, a string, a bool, a list or a dict; an int is nudged or has
a high bit set (masks); a list loses, duplicates, repeats or swaps items, or
takes an item of another list (a card in two zones), or is cut or padded; a dict
loses a key; or a card moves from one list to another (still once, in a zone the
rules may not allow). A fifth of the Tu Sac cases are *card* cases instead: one
card dropped from a zone (a private block, a public block, the dead or draw
pile, the active card) or a fifth copy of a type added to one, and nothing
else; card conservation is exact, so each must be refused, on both layers.
Each other case must end in one of two ways:

- a refusal: a ``ValueError`` whose message is one line, after which the env is
  exactly as before (state, ``seed_used``, ``actions``), or
- a valid game: a few random legal steps, every agent observed, the state
  read back, and ``game.validate`` still passes.

Anything else (another exception, a signal, a hang) is a failure. The child
runs a batch and prints one JSON summary line; run as a module it is the child::

    python -m tests.setgames.fuzz_states GAME CONFIG_JSON START COUNT [--trace]

``--trace`` prints ``case i`` before each case, so that the parent names the
case that took the child down.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

# game -> configs the fuzzer covers (every game, every player count, Bharg's extended decks)
CONFIGS: dict[str, list[dict[str, Any]]] = {
    "tethsi": [{}],
    "bharg": [{}, {"num_players": 3}, {"excuse": True, "pawns": True, "courts": True},
              {"num_players": 3, "excuse": True, "pawns": True, "courts": True, "target_score": 20,
               "reward": "win"}],
    "tusac": [{"num_players": 2}, {"num_players": 3}, {"num_players": 4}],
}
_BAD_INTS = (-1, -2, 2, 3, 4, 5, 6, 7, 28, 35, 36, 44, 45, 48, 55, 63, 64, 112, 127, 128, 255, 256,
             500, 10**6, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, -(2**63), 10**30, 10**400)
_BAD_VALUES = (None, 1.5, 0.0, -0.0, float("nan"), float("inf"), "5", "", "x" * 300, True, False,
               [], {}, [0], [[0]], {"a": 1})
_STEPS = 4  # random legal steps played on an accepted state
_BASES = 16  # valid states per child to start the mutations from
ROOT = Path(__file__).resolve().parents[2]
CRASH_VAR = "SETGAMES_FUZZ_CRASH_AT"  # set in a test of the harness: the child kills itself there


def _game_class(name: str) -> type:
    if name == "tethsi":
        from tethsi_env.rules import TetHsiGame
        return TetHsiGame
    if name == "bharg":
        from bharg_env.rules import BhargGame
        return BhargGame
    from tusac_env.rules import TuSacGame
    return TuSacGame


def _env_class(name: str) -> type:
    if name == "tethsi":
        from tethsi_env.env import raw_env
    elif name == "bharg":
        from bharg_env.env import raw_env
    else:
        from tusac_env.env import raw_env
    return raw_env


def _base_states(game: Any, rng: np.random.Generator) -> list[Any]:
    """Valid states from random play: the deal, mid-game points and finished games."""
    from setgames.game import rng_from_seed

    out = []
    for _ in range(_BASES):
        state = game.new_state(rng_from_seed(int(rng.integers(2**32))))
        stop = int(rng.integers(0, 120))
        for _ in range(stop):
            legal = game.legal_actions(state)
            if not legal:
                break
            game.apply(state, legal[int(rng.integers(len(legal)))])
        out.append(state)
    return out


# ------------------------------------------------------------------ mutations
def _bad_scalar(rng: np.random.Generator) -> Any:
    if rng.random() < 0.6:
        return _BAD_INTS[int(rng.integers(len(_BAD_INTS)))]
    return copy.deepcopy(_BAD_VALUES[int(rng.integers(len(_BAD_VALUES)))])


def _mutate_value(value: Any, rng: np.random.Generator, lists: list[list]) -> Any:
    """A broken version of ``value`` (may be the same object, changed in place)."""
    r = rng.random()
    if isinstance(value, bool) or r < 0.25:
        return _bad_scalar(rng)
    if isinstance(value, int):
        k = int(rng.integers(5))
        if k == 0:
            return value + int(rng.choice([-1, 1, 2]))
        if k == 1:
            return value | 1 << int(rng.integers(0, 70))  # a stray bit: masks beyond the deck
        if k == 2:
            return -value - 1
        if k == 3:
            return value ^ 1 << int(rng.integers(0, 40))
        return _bad_scalar(rng)
    if isinstance(value, float):
        return float(rng.choice([1e308, -1e308, 1e300, 0.5])) if rng.random() < 0.5 else _bad_scalar(rng)
    if isinstance(value, (list, tuple)):
        items = list(value)
        k = int(rng.integers(8))
        if k == 0 and items:
            del items[int(rng.integers(len(items)))]
        elif k == 1 and items:
            items.append(copy.deepcopy(items[int(rng.integers(len(items)))]))
        elif k == 2:
            items = items[: int(rng.integers(len(items) + 1))]
        elif k == 3 and items:
            items = items + [copy.deepcopy(items[0])] * int(rng.choice([10, 200]))
        elif k == 4 and items and lists:
            donor = lists[int(rng.integers(len(lists)))]
            if donor:
                items[int(rng.integers(len(items)))] = copy.deepcopy(donor[int(rng.integers(len(donor)))])
        elif k == 5 and items:
            i = int(rng.integers(len(items)))
            items[i] = _mutate_value(items[i], rng, lists)
        elif k == 6:
            rng.shuffle(items)
            if items:
                items[0] = _bad_scalar(rng)
        else:
            items.append(_bad_scalar(rng))
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        d = dict(value)
        if d and rng.random() < 0.5:
            del d[list(d)[int(rng.integers(len(d)))]]
        else:
            d[str(rng.integers(100))] = _bad_scalar(rng)
        return d
    return _bad_scalar(rng)


def _lists_in(value: Any, out: list[list]) -> list[list]:
    """Every list inside ``value`` (donors of items: a card put into another zone)."""
    if isinstance(value, (list, tuple)):
        out.append(list(value))
        for x in value:
            _lists_in(x, out)
    elif isinstance(value, dict):
        for x in value.values():
            _lists_in(x, out)
    return out


def _mutate_path(data: Any, rng: np.random.Generator, lists: list[list]) -> Any:
    """``data`` with one value somewhere inside it broken (a random walk down its tree)."""
    if isinstance(data, dict) and data and rng.random() < 0.85:
        key = list(data)[int(rng.integers(len(data)))]
        if rng.random() < 0.04:
            out = dict(data)
            del out[key]
            return out
        out = dict(data)
        out[key] = _mutate_path(data[key], rng, lists)
        return out
    if isinstance(data, list) and data and rng.random() < 0.6:
        out = list(data)
        i = int(rng.integers(len(out)))
        out[i] = _mutate_path(out[i], rng, lists)
        return out
    return _mutate_value(data, rng, lists)


def _int_lists(data: Any, path: tuple = ()) -> list[tuple]:
    """Paths to the lists of ints inside ``data`` (card zones, counts)."""
    out = []
    if isinstance(data, dict):
        for k, v in data.items():
            out += _int_lists(v, (*path, k))
    elif isinstance(data, list):
        if data and all(type(x) is int for x in data):
            out.append(path)
        for i, v in enumerate(data):
            out += _int_lists(v, (*path, i))
    return out


def _move_item(data: Any, rng: np.random.Generator) -> Any:
    """``data`` with one item moved from one list of ints to another: every card still
    once, but in a zone the rules may not allow (states that often still pass)."""
    paths = _int_lists(data)
    if len(paths) < 2:
        return data
    out = copy.deepcopy(data)
    src, dst = (paths[int(i)] for i in rng.choice(len(paths), 2, replace=False))

    def at(path: tuple) -> list:
        node = out
        for k in path:
            node = node[k]
        return node

    a, b = at(src), at(dst)
    if a:
        b.insert(int(rng.integers(len(b) + 1)), a.pop(int(rng.integers(len(a)))))
    return out


def _tusac_card_edit(data: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Tu Sac JSON ``data`` with one card dropped from one zone or a fifth copy of a type
    added to one, every other field untouched: a state no layer may accept."""
    out = copy.deepcopy(data)
    rows = [r for r in (*out["private"], out["dead"]) if sum(r)]  # count rows holding cards
    sets = [(b, i) for b in out["public"] for i in range(len(b))]
    if rng.random() < 0.5:  # drop one card (a public set goes whole: part of one is no set)
        zones = [z for z, ok in (("row", rows), ("draw", out["draw"]), ("public", sets),
                                 ("active", out["active"] >= 0)) if ok]
        zone = zones[int(rng.integers(len(zones)))]
        if zone == "row":
            row = rows[int(rng.integers(len(rows)))]
            held = [t for t in range(len(row)) if row[t]]
            row[held[int(rng.integers(len(held)))]] -= 1
        elif zone == "draw":
            del out["draw"][int(rng.integers(len(out["draw"])))]
        elif zone == "public":
            block, i = sets[int(rng.integers(len(sets)))]
            del block[i]
        else:
            out["active"] = -1
        return out
    t = int(rng.integers(28))  # every type is held four times: any one added is a fifth
    zone = int(rng.integers(4))
    if zone == 0:
        counts = [*out["private"], out["dead"]]
        counts[int(rng.integers(len(counts)))][t] += 1
    elif zone == 2:
        out["public"][int(rng.integers(len(out["public"])))].append(["king", [t - t % 7]])
    elif zone == 3 and out["active"] < 0:
        out["active"] = t
    else:  # (an active card already there: the fifth goes on the draw pile instead)
        out["draw"].insert(int(rng.integers(len(out["draw"]) + 1)), t)
    return out


CARD_EDITS = {"tusac": _tusac_card_edit}  # game -> its card-conservation mutation
_CARD_SHARE = 0.2  # of a game's cases


def _fields(game: Any) -> list[str]:
    if game.name == "tethsi":
        from tethsi_env.rules import TetHsiState
        return list(TetHsiState._FIELDS)
    if game.name == "bharg":
        return list(game._JSON_FIELDS)
    return [*game._FIELDS, "events"]


# ------------------------------------------------------------------ one case
def _snapshot(env: Any) -> tuple:
    state = env.game_state
    return (env.seed_used, list(env.actions), json.dumps(env.game.to_json(state), sort_keys=True))


def _play_on(env: Any, rng: np.random.Generator) -> None:
    """A few random legal steps on an accepted state, every agent observed, state read back."""
    game = env.game
    for _ in range(_STEPS):
        for agent in env.agents:
            env.observe(agent)
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        legal = np.flatnonzero(env.action_mask()).tolist()
        env.step(int(legal[int(rng.integers(len(legal)))]))
    state = env.game_state
    game.validate(state)
    game.from_json(json.loads(json.dumps(game.to_json(state))))


def run_case(game_name: str, config: dict[str, Any], index: int, bases: list[Any], game: Any,
             envs: list[Any]) -> tuple[str, bool]:
    """Run case ``index``; returns ``"refused"`` or ``"accepted"``, and whether it was a
    card case (raises on a failure)."""
    rng = np.random.default_rng([index, len(game_name), len(json.dumps(config, sort_keys=True))])
    base = bases[int(rng.integers(len(bases)))]
    as_object = rng.random() < 0.4
    data = game.to_json(base)
    lists = _lists_in(data, [])
    card_case = game_name in CARD_EDITS and rng.random() < _CARD_SHARE
    if card_case:
        edit = CARD_EDITS[game_name](data, rng)
        if as_object:  # a hand edit of the fields on a state object, caches left as they were
            broken = game.clone(base)
            for name in ("private", "public", "dead", "draw", "active"):
                setattr(broken, name, edit[name])
        else:
            broken = edit
    elif as_object:
        broken: Any = game.clone(base)
        for _ in range(int(rng.integers(1, 4))):
            name = str(rng.choice(_fields(game)))
            setattr(broken, name, _mutate_path(copy.deepcopy(getattr(broken, name)), rng, lists))
        if game.name == "bharg":  # the documented rule for a state edited by hand
            broken.obs_bytes = broken.codes = None
        if game.name == "tethsi":
            broken._obs = None
    else:
        broken = data
        for _ in range(int(rng.integers(1, 4))):
            if rng.random() < 0.3:
                broken = _move_item(broken, rng)
            else:
                broken = _mutate_path(broken, rng, lists)
    results = []
    for env in envs:
        before = _snapshot(env)
        try:
            mine = copy.deepcopy(broken)  # each layer its own copy: the rules layer steps it
            env.set_game_state(mine if as_object else game.from_json(mine))
        except ValueError as exc:
            msg = str(exc)
            if "\n" in msg or not msg:
                raise AssertionError(f"refusal is not one line: {msg!r}") from None
            if _snapshot(env) != before:
                raise AssertionError(f"a refused state changed the env ({msg})") from None
            results.append("refused")
            continue
        _play_on(env, np.random.default_rng(index))
        results.append("accepted")
        env.reset(seed=index)
    # Both layers see the same input: they must agree on refusing it.
    if len(set(results)) != 1:
        raise AssertionError(f"the layers disagree: {results}")
    if card_case and results[0] != "refused":
        raise AssertionError("a state with a card missing or a fifth copy was accepted")
    return results[0], card_case


def run_batch(game_name: str, config: dict[str, Any], start: int, count: int, trace: bool = False
              ) -> dict[str, Any]:
    """Cases ``start .. start + count - 1`` of one config: counts and failures."""
    game = _game_class(game_name)(**config)
    bases = _base_states(game, np.random.default_rng([start, 7]))
    env_cls = _env_class(game_name)
    envs = [env_cls(engine=True, **config), env_cls(engine=False, **config)]
    for env in envs:
        env.reset(seed=start)
    counts = {"refused": 0, "accepted": 0, "card_cases": 0}
    failures = []
    crash_at = int(os.environ.get(CRASH_VAR, "-1"))  # the harness's own test: die at that case
    for i in range(start, start + count):
        if trace:
            print(f"case {i}", flush=True)
        if i == crash_at:
            os.kill(os.getpid(), signal.SIGSEGV)
        try:
            outcome, card_case = run_case(game_name, config, i, bases, game, envs)
            counts[outcome] += 1
            counts["card_cases"] += card_case
        except Exception as exc:  # every other outcome is a finding: name it, go on
            failures.append({"case": i, "error": f"{type(exc).__name__}: {str(exc)[:200]}"})
            for env in envs:
                env.reset(seed=i)
    return {"game": game_name, "config": config, "start": start, "count": count, **counts,
            "failures": failures}


# ------------------------------------------------------------------ the parent side
def child_env() -> dict[str, str]:
    """The child's environment: glibc's malloc checker (and its debug library when installed)."""
    env = dict(os.environ, MALLOC_CHECK_="3", PYTHONPATH=str(ROOT))
    for lib in ("/lib/x86_64-linux-gnu/libc_malloc_debug.so.0", "/usr/lib/libc_malloc_debug.so.0"):
        if Path(lib).exists():
            env["LD_PRELOAD"] = lib
            break
    return env


def run_in_child(game_name: str, config: dict[str, Any], start: int, count: int,
                 timeout: float = 300.0, extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    """One batch in a child process. A child that dies (a signal, a non-zero exit) or
    hangs is run again with ``--trace`` to name the case it died on."""
    cmd = [sys.executable, "-m", "tests.setgames.fuzz_states", game_name, json.dumps(config),
           str(start), str(count)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env={**child_env(), **(extra_env or {})}, cwd=ROOT)
        if proc.returncode == 0:
            return json.loads(proc.stdout.strip().splitlines()[-1])
        why = f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"
    except subprocess.TimeoutExpired:
        why = f"no answer in {timeout:.0f} s"
    try:
        proc = subprocess.run([*cmd, "--trace"], capture_output=True, text=True, timeout=timeout,
                              env={**child_env(), **(extra_env or {})}, cwd=ROOT)
        out = proc.stdout
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
    started = [line for line in out.splitlines() if line.startswith("case ")]
    culprit = started[-1] if started else "before the first case"
    return {"game": game_name, "config": config, "start": start, "count": count, "refused": 0,
            "accepted": 0, "card_cases": 0, "failures": [{"case": culprit, "error": f"child died ({why})"}]}


def main(argv: list[str]) -> None:
    """Child entry point: run one batch, print its JSON summary line."""
    game_name, config, start, count = argv[0], json.loads(argv[1]), int(argv[2]), int(argv[3])
    result = run_batch(game_name, config, start, count, trace="--trace" in argv)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
