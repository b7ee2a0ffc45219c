"""Information-set Monte Carlo tree search (single-observer ISMCTS).

One tree is grown over the searching seat's information set: every
iteration re-deals the hidden cards with ``game.determinize(state, seat, rng)``
(so the bot never reads what its seat cannot see), walks the tree with
UCB restricted to the actions legal in that determinization (the
"availability" counts of Cowling, Powley and Whitehouse 2012), expands one
action, finishes the game with a fast rollout policy and backs the result
up. Edges are keyed by ``(seat, action)``: in a game with automatic claims who acts next can
depend on hidden cards (automatic claims), so one node may see different
movers in different determinizations.

Returns are multi-player: each edge stores the utility of the seat that
chose it. The utility of a finished game is the *win share* (1 for the seat
with the strictly highest return, shared on ties, 0 otherwise), because the
arena ranks bots by wins; games with score-valued returns then still break
ties on score through the rollout evaluation hook.

Rollout mode (the default for the three games, which have a greedy bot):
the search improves on that *base policy* the way a rollout algorithm does
(Bertsekas; Tesauro and Galperin 1996). Every round draws one determinization
and plays each root action on its own copy of it, then the greedy bot for
*every* seat to the end of the game (no cut-off, no evaluation guess), all
copies with the same rollout seed: root actions are compared on paired
samples (common random numbers), whose differences are mostly 0, so a few
hundred rounds separate actions whose win shares differ by a few points.
Clearly worse actions are dropped as the race goes (``RACE_*``), so the
budget goes to the close calls; the move is the greedy bot's unless another
beats it by ``switch_z`` standard errors. The tree below the root is one
level deep on purpose: the base policy's continuation values are what the
improvement argument needs, and a deeper tree grown from a few hundred
determinizations only adds selection noise and strategy fusion.

Why not the tree-and-fast-policy sweep below (it drew with greedy): 16
determinizations give a standard error of about 0.12 on a root action's win
share, while the root actions of these games differ by 0.02 to 0.15; taking
the best of up to ten such noisy means and switching at 1 SE made frequent
wrong switches, and the fast policies (and the evaluation at a 4-step
cut-off, where a game's hooks cut rollouts off) are not the greedy player, so their rollouts valued moves
for a game the opponent does not play.

Root sweep (``below="tree"``; the default for games with a fast policy but no greedy bot):
every iteration draws one determinization and searches *every* root action
on its own copy of it, with the same rollout seed (common random numbers), so
root actions are compared on identical hidden cards; below the root the tree
grows by progressive widening led by the fast policy, and other seats play
that policy. The final move is the rule-based ``prior``'s move unless another
action beats it on the paired samples by ``switch_z`` standard errors. The
plain one-action-per-iteration UCB root is ``root="ucb"``.

A rollout stops after ``max_rollout_steps`` steps; an unfinished game is then
scored by the game's ``evaluate`` hook when it has one (see
:func:`game_hooks`), else as a draw.

The budget is ``iterations`` (reproducible; determinizations in sweep and
rollout modes) or ``seconds`` (wall clock, not reproducible). The rollout
mode's default budget per game (``rollout_determinizations`` in the
game's :class:`~setgames.bots.hooks.GameHooks` defaults) is about half a second per move on one core of the
reference machine.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from setgames import registry
from setgames.bots.base import Bot
from setgames.bots.hooks import GameHooks, game_hooks
from setgames.checks import check_int, check_real
from setgames.game import Game

__all__ = ["DEFAULT_ITERATIONS", "MAX_ITERATIONS", "MAX_SECONDS", "GameHooks", "IsmctsBot", "game_hooks",
           "win_shares"]

DEFAULT_ITERATIONS = 200  # iterations per decision when the game module gives no default
DEFAULT_EXPLORATION = 0.7  # UCB constant c on utilities in [0, 1]
DEFAULT_MAX_ROLLOUT_STEPS = 400  # steps; beyond that the evaluate hook (or a draw) scores the game
DEFAULT_PRIOR_BIAS = 2.0  # progressive bias: bonus bias / (visits + 1) on the prior's root move
DEFAULT_DETERMINIZATIONS = 16  # sweep mode: determinizations per decision, each shared by all root actions
DEFAULT_WIDEN = 0.5  # sweep mode: children allowed below the root = 1 + widen * sqrt(node visits)
DEFAULT_SWITCH_Z = 1.0  # sweep mode: leave the prior's move when a paired test beats it by this many SEs
DEFAULT_ROLLOUT_DETERMINIZATIONS = 200  # rollout mode: determinizations (rounds) per decision
DEFAULT_ROLLOUT_SWITCH_Z = 1.0  # rollout mode: leave the prior's move when beaten by this many SEs
# Bounds on the options (a bot spec on the command line or in a save file names them):
# 500x the default budget (a search of hours a move, a tree of ~10**5 nodes), an hour a
# move, rollouts far longer than any game, and constants far beyond any useful value.
MAX_ITERATIONS = 100_000
MAX_SECONDS = 3600.0
MAX_ROLLOUT_STEPS = 100_000
MAX_PARAMETER = 1e12  # a z threshold of 1e9 is a test's "never switch"
RACE_MIN_ROUNDS = 16  # rollout mode: rounds before the first drop of a trailing root action
RACE_EVERY = 8  # rollout mode: rounds between two drop checks
RACE_DROP_Z = 2.5  # rollout mode: a root action trailing the leader by this many SEs is dropped


def win_shares(returns: tuple[float, ...] | list[float]) -> list[float]:
    """Utility of a finished game per seat: the seats with the highest return
    share 1, unless every seat ties (then all share it equally).

    >>> win_shares((1.0, -1.0)), win_shares((0.0, 0.0)), win_shares((5.0, 5.0, -10.0))
    ([1.0, 0.0], [0.5, 0.5], [0.5, 0.5, 0.0])
    """
    best = max(returns)
    top = [i for i, r in enumerate(returns) if r == best]
    share = 1.0 / len(top)
    out = [0.0] * len(returns)
    for i in top:
        out[i] = share
    return out


def _paired_z(x: list[float], y: list[float]) -> float:
    """z statistic of the mean of the paired differences ``x - y`` (0 when all equal).

    >>> _paired_z([1.0, 1.0, 0.0], [0.0, 0.0, 0.0]) > 1, _paired_z([1.0, 0.0], [1.0, 0.0])
    (True, 0.0)
    """
    n = len(x)
    d = [a - b for a, b in zip(x, y, strict=True)]
    mean = sum(d) / n
    if n < 2:
        return 0.0
    var = sum((v - mean) ** 2 for v in d) / (n - 1)
    if var == 0.0:
        return 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
    return mean / math.sqrt(var / n)


def _plain_determinize(game: Game, state: Any, seat: int, rng: np.random.Generator) -> Any:
    return game.determinize(state, seat, rng)


def _random_action(game: Game, state: Any, rng: np.random.Generator) -> int:
    legal = game.legal_actions(state)
    return legal[int(rng.integers(len(legal)))]


def _base_policy(game_name: str) -> Callable[[Game, Any, np.random.Generator], int] | None:
    """The game's greedy bot as a rollout policy for every seat, or None.

    One bot object serves every seat: the greedy bots read only the seat to
    act's information and keep no state between moves except the generator
    for ties, which is set to the rollout's generator (so rollouts sharing a
    seed play identically: common random numbers).
    """
    if game_name not in registry.game_names():
        return None
    cls = registry.part(game_name, "greedy")
    if cls is None:
        return None
    bot = cls(0)

    def policy(game: Game, state: Any, rng: np.random.Generator) -> int:
        bot.rng = rng
        return bot.act(game, state, game.current_seat(state))
    return policy


class _Node:
    """Statistics of the edges leaving one information-set node."""

    __slots__ = ("bias", "edges", "prior", "visits")

    def __init__(self) -> None:
        self.visits = 0  # descents through this node (used by progressive widening)
        self.prior = -1  # action favoured by progressive bias at this node, -1 for none
        self.bias = 0.0
        # (seat, action) -> [visits, availability, total utility of seat, child node]
        self.edges: dict[tuple[int, int], list[Any]] = {}


class IsmctsBot(Bot):
    """Single-observer information-set MCTS.

    Args:
        seed: seeds the bot's generator (determinizations, expansion order, rollouts).
        iterations: search iterations per decision, an integer 1..:data:`MAX_ITERATIONS`
            (default: the game's ``ISMCTS_HOOKS.defaults`` or :data:`DEFAULT_ITERATIONS`).
        seconds: wall-clock budget per decision instead of ``iterations``, in
            (0, :data:`MAX_SECONDS`] (not reproducible run to run).
        c: UCB exploration constant (c, widen, switch_z in [0, 1e12], prior_bias
            in [-1e12, 1e12], max_rollout_steps an integer 0..100000).
        rollout: ``"auto"`` (rollout mode: the game's greedy bot; otherwise the
            game's fast policy if it has one), ``"fast"`` (the fast policy),
            ``"random"``, ``"greedy"`` (the game's rule-based player itself).
        max_rollout_steps: rollout length cap (default: the game's hooks, else
            :data:`DEFAULT_MAX_ROLLOUT_STEPS`).
        opponents: ``"tree"``: other seats' moves are tree nodes too (plain
            SO-ISMCTS); ``"policy"``: other seats play the rollout policy inside
            the tree as well, so every iteration refines the bot's own choices
            against a sensible opponent model; ``"auto"``: ``"policy"`` when the
            game has a fast policy, else ``"tree"``.
        prior_bias: progressive-bias weight on the root move of the game's
            ``prior`` hook (0 turns it off).
        root: ``"ucb"``: one determinization per iteration, the root action
            chosen by UCB (plain SO-ISMCTS); ``"sweep"``: every iteration
            draws one determinization and searches *every* root action on it
            (with the same rollout seed), and ``iterations`` counts those
            determinizations; ``"auto"``: ``"sweep"`` when the game has a fast
            policy, else ``"ucb"``.
        switch_z: sweep mode: the move of the ``prior`` hook is kept unless
            another root action beats it on the paired samples by more than
            ``switch_z`` standard errors (0: plain best mean; default: the
            game's hooks, else :data:`DEFAULT_SWITCH_Z`).
        widen: sweep mode, games with a fast policy: below the root a node
            holds at most ``1 + widen * sqrt(visits)`` children, the policy's
            move first (0: expand every action, plain ISMCTS).
        below: sweep mode: ``"policy"``: rollout mode (every seat plays the
            rollout policy below the root, whole games, root actions raced on
            paired samples; see the module docstring); ``"tree"``: the tree
            below the root; ``"auto"``: ``"policy"`` when the game has a greedy
            bot, else ``"tree"``.
    """

    name = "ismcts"

    def __init__(self, seed: int | None = None, iterations: int | None = None,
                 seconds: float | None = None, c: float = DEFAULT_EXPLORATION,
                 rollout: str = "auto", max_rollout_steps: int | None = None,
                 opponents: str = "auto", prior_bias: float = DEFAULT_PRIOR_BIAS,
                 root: str = "auto", switch_z: float | None = None, widen: float = DEFAULT_WIDEN,
                 below: str = "auto", game_name: str | None = None):
        super().__init__(seed)
        # Budgets are bounded: a record or save file names them, and a search of
        # 10**12 iterations would hold the table forever.
        if iterations is not None:
            iterations = check_int("iterations", iterations, 1, MAX_ITERATIONS)
        if seconds is not None:
            seconds = check_real("seconds", seconds, 0.0, MAX_SECONDS, lo_open=True)
        if rollout not in ("auto", "fast", "random", "greedy"):
            raise ValueError(f"rollout {rollout!r} must be 'auto', 'fast', 'random' or 'greedy'")
        if opponents not in ("auto", "tree", "policy"):
            raise ValueError(f"opponents {opponents!r} must be 'auto', 'tree' or 'policy'")
        if root not in ("auto", "ucb", "sweep"):
            raise ValueError(f"root {root!r} must be 'auto', 'ucb' or 'sweep'")
        if below not in ("auto", "tree", "policy"):
            raise ValueError(f"below {below!r} must be 'auto', 'tree' or 'policy'")
        widen = check_real("widen", widen, 0.0, MAX_PARAMETER)
        if switch_z is not None:
            switch_z = check_real("switch_z", switch_z, 0.0, MAX_PARAMETER)
        c = check_real("c", c, 0.0, MAX_PARAMETER)
        prior_bias = check_real("prior_bias", prior_bias, -MAX_PARAMETER, MAX_PARAMETER)
        if max_rollout_steps is not None:
            max_rollout_steps = check_int("max_rollout_steps", max_rollout_steps, 0, MAX_ROLLOUT_STEPS)
        self.iterations = iterations
        self.seconds = seconds
        self.c = c
        self.rollout_mode = rollout
        self.max_rollout_steps = max_rollout_steps
        self.opponents = opponents
        self.prior_bias = prior_bias
        self.root = root
        self.switch_z = switch_z
        self.widen = widen
        self.below = below
        self.game_name = game_name
        self._determinize = _plain_determinize

    def __repr__(self) -> str:
        budget = f"seconds={self.seconds}" if self.seconds else f"iterations={self.iterations}"
        return f"IsmctsBot({budget}, c={self.c}, rollout={self.rollout_mode!r})"

    def determinizer(self, game: Game, state: Any, seat: int
                     ) -> Callable[[Game, Any, int, np.random.Generator], Any]:
        """Rollout mode: the ``(game, state, seat, rng) -> state`` re-dealer used
        for every round of the search of this position; the game's own
        ``determinize`` (uniform over what ``seat`` cannot see). Subclasses that
        study other re-deals override it (``research/tusac_information``)."""
        return _plain_determinize

    def _hooks(self, game: Game) -> GameHooks:
        return game_hooks(self.game_name or game.name)

    def act(self, game: Game, state: Any, seat: int) -> int:
        """The most visited root action after the search."""
        return self.search(game, state, seat)[0]

    def explain(self, game: Game, state: Any, seat: int) -> tuple[int, str]:
        """The chosen action and its visit share and estimated win share."""
        action, stats, n_iter = self.search(game, state, seat)
        if not stats:
            if len(game.legal_actions(state)) > 1:
                return action, "only candidate action"
            return action, "only legal action"
        visits, total = stats[action]
        return action, (f"{visits}/{n_iter} visits, estimated win share "
                        f"{total / max(visits, 1):.2f}")

    def search(self, game: Game, state: Any, seat: int) -> tuple[int, dict[int, tuple[int, float]], int]:
        """Run the search; return (action, {action: (visits, total utility)}, iterations run).

        Raises:
            ValueError: ``state`` is no state of ``game`` (``game.validate``: the
                search's copies of it go into compiled engines unchecked), or the
                game is over, or ``seat`` is not to act.
        """
        game.validate(state)
        legal = game.legal_actions(state)
        if not legal:
            raise ValueError("the game is over: no action to choose")
        if game.current_seat(state) != seat:
            raise ValueError(f"seat {seat} is not the seat to act ({game.current_seat(state)})")
        if len(legal) == 1:
            return legal[0], {}, 0
        hooks = self._hooks(game)
        policy = hooks.rollout if self.rollout_mode in ("auto", "fast") else None
        if self.rollout_mode == "greedy" and hooks.prior is not None:
            prior_fn = hooks.prior

            def policy(g: Game, s: Any, r: np.random.Generator) -> int:
                return prior_fn(g, s, g.current_seat(s))
        evaluate = hooks.evaluate
        limit = self.max_rollout_steps
        if limit is None:
            limit = int(hooks.defaults.get("max_rollout_steps", DEFAULT_MAX_ROLLOUT_STEPS))
        model = self.opponents == "policy" or (self.opponents == "auto" and hooks.rollout is not None)
        opp_policy = (policy or hooks.rollout or _random_action) if model else None
        sweep = self.root == "sweep" or (self.root == "auto" and hooks.rollout is not None)
        base = _base_policy(self.game_name or game.name) if sweep and self.below != "tree" else None
        if sweep and (self.below == "policy" or (self.below == "auto" and base is not None)):
            if self.rollout_mode == "greedy" or (self.rollout_mode == "auto" and base is not None):
                policy = base
            opts = hooks.defaults
            iterations = self.iterations
            if iterations is None and self.seconds is None:
                iterations = int(opts.get("rollout_determinizations", DEFAULT_ROLLOUT_DETERMINIZATIONS))
            deadline = None if self.seconds is None else time.perf_counter() + self.seconds
            prior = hooks.prior(game, state, seat) if hooks.prior is not None else -1
            z = self.switch_z
            if z is None:
                z = float(opts.get("rollout_switch_z", DEFAULT_ROLLOUT_SWITCH_Z))
            steps = self.max_rollout_steps
            if steps is None:
                steps = int(opts.get("rollout_max_steps", DEFAULT_MAX_ROLLOUT_STEPS))
            self._determinize = self.determinizer(game, state, seat)
            candidates = hooks.candidates
            if candidates is not None:
                legal = candidates(game, state, legal)
                if prior >= 0 and prior not in legal:
                    legal = sorted({*legal, prior})
            if len(legal) == 1:
                return legal[0], {}, 0
            fast = hooks.base_rollout if policy is base else None
            return self._search_rollout(game, state, seat, legal, prior, iterations, deadline,
                                        policy or _random_action, evaluate, steps, z, fast)
        iterations = self.iterations
        if iterations is None and self.seconds is None:
            if sweep:
                iterations = int(hooks.defaults.get("determinizations", DEFAULT_DETERMINIZATIONS))
            else:
                iterations = int(hooks.defaults.get("iterations", DEFAULT_ITERATIONS))
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        root = _Node()
        if hooks.prior is not None and self.prior_bias > 0:
            root.prior = hooks.prior(game, state, seat)
            root.bias = self.prior_bias
        rng = self.rng
        c = self.c
        if sweep:
            z = self.switch_z
            if z is None:
                z = float(hooks.defaults.get("switch_z", DEFAULT_SWITCH_Z))
            return self._search_sweep(game, state, seat, legal, root, iterations, deadline, policy,
                                      evaluate, opp_policy, limit, z)
        n = 0
        while True:
            if iterations is not None and n >= iterations:
                break
            if deadline is not None and n > 0 and time.perf_counter() >= deadline:
                break
            self._iterate(game, state, seat, root, rng, c, policy, evaluate, opp_policy, limit)
            n += 1
        stats = {a: (e[0], e[2]) for (s, a), e in root.edges.items() if s == seat}
        # Most visited, ties to the higher mean then the lower id: deterministic.
        # (Progressive bias makes the prior's move the most visited unless others prove better.)
        best = max(legal, key=lambda a: (stats.get(a, (0, 0.0))[0],
                                         stats.get(a, (0, 0.0))[1] / max(stats.get(a, (1, 0.0))[0], 1),
                                         -a))
        return best, stats, n

    def _search_sweep(self, game: Game, state: Any, seat: int, legal: list[int], root: _Node,
                      iterations: int | None, deadline: float | None, policy: Any, evaluate: Any,
                      opp_policy: Any, limit: int, switch_z: float
                      ) -> tuple[int, dict[int, tuple[int, float]], int]:
        samples: dict[int, list[float]] = {a: [] for a in legal}
        n = 0
        while True:
            if iterations is not None and n >= iterations:
                break
            if deadline is not None and n > 0 and time.perf_counter() >= deadline:
                break
            self._sweep(game, state, seat, root, legal, self.rng, self.c, policy, evaluate, opp_policy,
                        limit, samples)
            n += 1
        stats = {a: (e[0], e[2]) for (s, a), e in root.edges.items() if s == seat}
        means = {a: sum(v) / len(v) for a, v in samples.items()}
        best = max(legal, key=lambda a: (means[a], -a))
        prior = root.prior
        if prior in samples and best != prior and n > 1:
            diffs = [x - y for x, y in zip(samples[best], samples[prior], strict=True)]
            mean = sum(diffs) / n
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
            if mean <= switch_z * math.sqrt(var / n):
                best = prior
        return best, stats, n

    def _search_rollout(self, game: Game, state: Any, seat: int, legal: list[int], prior: int,
                        iterations: int | None, deadline: float | None, policy: Any, evaluate: Any,
                        limit: int, switch_z: float, fast: Any = None
                        ) -> tuple[int, dict[int, tuple[int, float]], int]:
        """Rollout improvement of the base policy, raced on shared determinizations.

        Every round draws one determinization and plays each surviving root
        action on its own copy, then the base policy for every seat to the end
        of the game, all with the same rollout seed; so every two surviving
        actions hold paired samples on identical hidden cards and identical
        chance. An action is dropped once it trails the leader by
        :data:`RACE_DROP_Z` standard errors of the paired difference (the
        prior's move is never dropped), so the budget goes to the close calls.
        The final move is the prior's unless the best survivor beats it by
        ``switch_z`` standard errors.
        """
        samples: dict[int, list[float]] = {a: [] for a in legal}
        alive = list(legal)
        n = 0
        rng = self.rng
        while len(alive) > 1:
            if iterations is not None and n >= iterations:
                break
            if deadline is not None and n > 0 and time.perf_counter() >= deadline:
                break
            det = self._determinize(game, state, seat, rng)
            seed = int(rng.integers(2**63))
            for a in alive:
                end = fast(game, det, a, limit) if fast is not None else None
                if end is not None:
                    samples[a].append(win_shares(end)[seat])
                    continue
                s = game.clone(det)
                game.apply(s, a)
                samples[a].append(self._rollout(game, s, np.random.default_rng(seed), policy, evaluate,
                                                limit)[seat])
            n += 1
            if n >= RACE_MIN_ROUNDS and n % RACE_EVERY == 0 and len(alive) > 1:
                lead = max(alive, key=lambda a: (sum(samples[a]), a == prior))
                alive = [a for a in alive if a in (lead, prior)
                         or _paired_z(samples[a], samples[lead]) > -RACE_DROP_Z]
        means = {a: sum(v) / len(v) for a, v in samples.items() if v}
        best = max(alive, key=lambda a: (means.get(a, 0.0), a == prior, -a))
        if prior in alive and best != prior and _paired_z(samples[best], samples[prior]) <= switch_z:
            best = prior
        stats = {a: (len(v), float(sum(v))) for a, v in samples.items()}
        return best, stats, n

    @staticmethod
    def _rollout(game: Game, state: Any, rng: np.random.Generator, policy: Any, evaluate: Any,
                 limit: int) -> list[float]:
        steps = 0
        while not game.is_over(state) and steps < limit:
            game.apply(state, policy(game, state, rng))
            steps += 1
        if game.is_over(state):
            return win_shares(game.returns(state))
        if evaluate is not None:
            return list(evaluate(game, state))
        return [1.0 / game.num_players] * game.num_players

    def _iterate(self, game: Game, root_state: Any, me: int, root: _Node,
                 rng: np.random.Generator, c: float, policy: Any, evaluate: Any,
                 opp_policy: Any, limit: int) -> None:
        state = game.determinize(root_state, me, rng)
        self._descend(game, state, me, root, rng, c, policy, evaluate, opp_policy, limit)

    def _sweep(self, game: Game, root_state: Any, me: int, root: _Node, legal: list[int],
               rng: np.random.Generator, c: float, policy: Any, evaluate: Any,
               opp_policy: Any, limit: int, samples: dict[int, list[float]]) -> None:
        """One determinization shared by every root action (common random numbers).

        Each root action is applied to its own copy of the same determinization
        and searched below with the same rollout seed, so root actions are
        compared on identical hidden cards: the comparison's variance drops far
        below that of independent samples, which is what lets a small budget
        find moves better than the prior's.
        """
        det = game.determinize(root_state, me, rng)
        seed = int(rng.integers(2**63))
        edges = root.edges
        for a in legal:
            edge = edges.get((me, a))
            if edge is None:
                edge = edges[(me, a)] = [0, 0, 0.0, _Node()]
            edge[1] += 1
            state = game.clone(det)
            game.apply(state, a)
            util = self._descend(game, state, me, edge[3], np.random.default_rng(seed), c, policy,
                                 evaluate, opp_policy, limit, self.widen)
            edge[0] += 1
            edge[2] += util[me]
            samples[a].append(util[me])

    def _descend(self, game: Game, state: Any, me: int, root: _Node,
                 rng: np.random.Generator, c: float, policy: Any, evaluate: Any,
                 opp_policy: Any, limit: int, widen: float = 0.0) -> list[float]:
        """Selection, expansion, rollout and backup from ``root`` on the
        determinized ``state`` (consumed); returns the utilities per seat."""
        node = root
        path: list[list[Any]] = []
        movers: list[int] = []
        # Selection and expansion.
        while not game.is_over(state):
            mover = game.current_seat(state)
            if opp_policy is not None and mover != me:
                game.apply(state, opp_policy(game, state, rng))
                continue
            legal = game.legal_actions(state)
            edges = node.edges
            untried = [a for a in legal if (mover, a) not in edges]
            for a in legal:
                e = edges.get((mover, a))
                if e is not None:
                    e[1] += 1
            if untried and widen and policy is not None:
                # Progressive widening led by the fast policy: a node below the root
                # first grows the policy's move and admits another only as its visits
                # grow, so a small budget values a root action by sensible follow-ups
                # rather than by random first tries.
                node.visits += 1
                if len(legal) - len(untried) >= 1 + int(widen * math.sqrt(node.visits)):
                    untried = []
                else:
                    pa = policy(game, state, rng)
                    if pa in untried:
                        untried = [pa]
            if untried:
                a = untried[int(rng.integers(len(untried)))] if len(untried) > 1 else untried[0]
                edge = [0, 1, 0.0, _Node()]
                edges[(mover, a)] = edge
                game.apply(state, a)
                path.append(edge)
                movers.append(mover)
                break
            best_edge = None
            best_a = -1
            best_u = -math.inf
            prior = node.prior
            for a in legal:
                e = edges.get((mover, a))
                if e is None:
                    continue
                u = e[2] / e[0] + c * math.sqrt(math.log(e[1]) / e[0])
                if a == prior:
                    u += node.bias / (e[0] + 1)
                if u > best_u:
                    best_u, best_edge, best_a = u, e, a
            game.apply(state, best_a)
            path.append(best_edge)
            movers.append(mover)
            node = best_edge[3]
        # Rollout.
        steps = 0
        while not game.is_over(state) and steps < limit:
            if policy is not None:
                a = policy(game, state, rng)
            else:
                legal = game.legal_actions(state)
                a = legal[int(rng.integers(len(legal)))]
            game.apply(state, a)
            steps += 1
        if game.is_over(state):
            util = win_shares(game.returns(state))
        elif evaluate is not None:
            util = list(evaluate(game, state))
        else:
            util = [1.0 / game.num_players] * game.num_players
        for edge, mover in zip(path, movers, strict=True):
            edge[0] += 1
            edge[2] += util[mover]
        return util
