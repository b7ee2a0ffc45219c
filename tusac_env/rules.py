"""Tu Sac rules as a :class:`~setgames.game.Game`.

The rules: ``tusac_env/README.md``, "Rules summary" and "Rules choices".

Summary: 2-4 players, 112 cards (4 colors x 7 pieces x 4 copies); 20 cards
each, 21 to the first player, who discards first (or wins at once with no
trash). Quans are revealed at the deal, Khap counts announced. A discard must
lower the discarder's trash by one. The next player melds the active card
(with up to 3 private cards, never raising trash, never breaking a Khap) or
hits the draw pile and then melds or passes. Claims run on every discarded or
hit card: win, then Khap -> Khui, then pair priority; they are automatic.
Whoever melds and has no trash left wins; hitting with 7 cards left draws the
game. Payments: ``(3 + value) + 10`` per loser, doubled-plus-ten with a Quan
or Khui, side payments for Quans, Khuis and Khaps, and the penalty rule.

The modules: :mod:`tusac_env.state` (state, config), :mod:`tusac_env.melds`
(meld tables, block bookkeeping), :mod:`tusac_env.claims`,
:mod:`tusac_env.flow` (deal, legal actions, actions), :mod:`tusac_env.scoring`,
:mod:`tusac_env.observation`, :mod:`tusac_env.render`.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import numpy as np

from setgames.cards import NUM_TUSAC_TYPES, TUSAC_NAMES
from setgames.game import Game
from setgames.obs import DEFAULT_OBS, check_obs
from setgames.validate import StateError, check_list, legal_actions_consistent
from tusac_env import flow
from tusac_env.history import history_bytes, make_history_spec
from tusac_env.layout import LAYOUT
from tusac_env.melds import rebuild_caches, unseen_counts
from tusac_env.observation import Observer, make_obs_spec
from tusac_env.render import render_state
from tusac_env.state import (
    EXPOSED_BY_DISCARD,
    EXPOSED_BY_HIT,
    EXPOSED_NONE,
    PHASE_DISCARD,
    PHASE_OVER,
    TuSacConfig,
    TuSacState,
    lend_picture,
)
from tusac_env.structure import action_features, make_action_spec, make_structure_observe, make_structure_spec
from tusac_env.validate import validate_fields

__all__ = ["TuSacGame", "deal_hidden"]

_CURRENT = attrgetter("current")  # state -> seat to act (C-level: no Python frame)

_HOW_NAMES = {EXPOSED_NONE: None, EXPOSED_BY_DISCARD: "discard", EXPOSED_BY_HIT: "hit"}
_DETERMINIZE_TRIES = 50  # random re-deals tried before keeping the true hidden cards


class TuSacGame(Game[TuSacState]):
    """Tu Sac under one config.

    Args:
        num_players: 2, 3 or 4 (default 4).
        penalty_rule: apply the penalty rule (default True).
        first_player: seat dealt 21 cards, or ``"random"`` (drawn from the seed).
        reward_scale: factor on the net payments, finite, in [1e-6, 1e6] (default 1.0).
        obs: the observation mode, ``"cards"`` (default), ``"structure"`` (the cards vector
            followed by :mod:`tusac_env.structure`'s block) or ``"history"`` (the cards vector
            followed by the public record as event rows, :mod:`tusac_env.history`); anything
            else is a ``ValueError``.

    >>> game = TuSacGame(num_players=2)
    >>> from setgames.game import rng_from_seed
    >>> state = game.new_state(rng_from_seed(0))
    >>> sum(map(sum, state.private)) + sum(len(t) for b in state.public for _, t in b) + len(state.draw)
    112
    """

    name = "tusac"
    env_name = "tusac_v0"
    version = 0
    engine_module = "tusac_env._engine"
    batch_module = "tusac_env._batch"
    search_module = "tusac_env._search"

    def __init__(self, num_players: int = 4, penalty_rule: bool = True,
                 first_player: int | str = 0, reward_scale: float = 1.0, obs: str = DEFAULT_OBS):
        # (the player count checked first: the modes' specs depend on it)
        self.num_players = num_players = TuSacConfig(num_players).num_players
        cards = make_obs_spec(num_players)
        self.obs_specs = {"cards": cards, "structure": make_structure_spec(num_players),
                          "history": make_history_spec(num_players)}
        self.config = TuSacConfig(num_players, penalty_rule, first_player, reward_scale,
                                  check_obs(obs, tuple(self.obs_specs)))
        self.layout = LAYOUT
        self.obs = self.config.obs
        self.obs_spec = self.obs_specs[self.obs]
        self._observer = Observer(cards, num_players, flow.worst_cards)
        self.action_spec = make_action_spec(num_players)
        self._apply = flow.make_apply(self.config)
        # The per-step entry points, bound once on the instance (found before the class's
        # methods, which do the same): each saves a Python call a step.
        self.apply = self._apply  # type: ignore[method-assign]
        self._observe = self._observer.observe
        if self.obs == "structure":  # the cards vector and the structure block after it
            self._observe = make_structure_observe(self._observe)
        elif self.obs == "history":  # the cards vector and the event rows after it
            self._observe = _history_observe(self._observe)
        self.observe = self._observe  # type: ignore[method-assign]
        self.legal_actions = flow.legal_actions  # type: ignore[method-assign]
        self.current_seat = _CURRENT  # type: ignore[method-assign]

    # ------------------------------------------------------------- life cycle
    def new_state(self, rng: np.random.Generator) -> TuSacState:
        """Shuffle and deal (see :func:`tusac_env.flow.deal`)."""
        return flow.deal(self.config, rng)

    def position(self, private: list[list[int]], draw: list[int], first: int = 0,
                 dead: list[int] | None = None) -> TuSacState:
        """A hand-built starting position: ``private`` counts per seat as dealt
        (fours become Quans), ``draw`` the top of the draw pile (top card last),
        ``dead`` the dead pile's counts (default empty).

        Every card the arguments leave out goes to the bottom of the draw pile,
        in type order (the lowest type id at the very bottom), so that the
        position holds the whole 112-card deck, each type exactly four times, as
        every state must (:mod:`tusac_env.validate`); ``draw`` stays the top of
        the pile, hit in its order. The filled-in cards are unseen by every seat,
        as cards left out of the game would be, but they lengthen the pile: the
        game is drawn only once the pile is down to
        :data:`~tusac_env.state.DRAW_LIMIT` cards.

        Raises:
            ValueError: when the cards are not part of one 112-card deck.
        """
        n = self.num_players
        if len(private) != n or any(len(p) != NUM_TUSAC_TYPES for p in private):
            raise ValueError(f"private must be {n} lists of {NUM_TUSAC_TYPES} counts")
        dead = list(dead) if dead is not None else [0] * NUM_TUSAC_TYPES
        if len(dead) != NUM_TUSAC_TYPES:
            raise ValueError(f"dead must be {NUM_TUSAC_TYPES} counts")
        if any(not 0 <= t < NUM_TUSAC_TYPES for t in draw):
            raise ValueError(f"draw pile cards must be type ids 0..{NUM_TUSAC_TYPES - 1}: {list(draw)}")
        total = [sum(p[t] for p in private) + dead[t] + draw.count(t) for t in range(NUM_TUSAC_TYPES)]
        if any(x > 4 for x in total):
            raise ValueError(f"more than 4 copies of a type in the position: {total}")
        rest = [t for t in range(NUM_TUSAC_TYPES) for _ in range(4 - total[t])]
        state = TuSacState(num_players=n, first=first, private=[list(p) for p in private],
                           public=[[] for _ in range(n)], dead=dead, draw=rest + list(draw))
        return flow.start(state, self.config)

    def current_seat(self, state: TuSacState) -> int:
        """Seat to act, -1 once the game is over."""
        return state.current

    def legal_actions(self, state: TuSacState) -> list[int]:
        """Legal action ids in ascending order (empty once over)."""
        return flow.legal_actions(state)

    def apply(self, state: TuSacState, action: int) -> tuple[float, ...] | None:
        """Play ``action``; the per-seat rewards when this ends the game, else None."""
        return self._apply(state, action)

    def is_over(self, state: TuSacState) -> bool:
        """True once won or drawn."""
        return state.phase == PHASE_OVER

    def returns(self, state: TuSacState) -> tuple[float, ...]:
        """Per-seat net payments times the reward scale (zeros until the end)."""
        if state.phase != PHASE_OVER:
            return (0.0,) * state.num_players
        return tuple(state.returns)

    def observe(self, state: TuSacState, seat: int) -> np.ndarray:
        """``seat``'s int8 observation in the game's mode (see ``tusac_env/README.md``): the
        cards vector, then in the ``structure`` mode the structure block
        (:mod:`tusac_env.structure`), in the ``history`` mode the event rows
        (:mod:`tusac_env.history`)."""
        return self._observe(state, seat)

    def action_features(self, state: TuSacState, seat: int) -> np.ndarray:
        """Per-action features of ``seat`` (:func:`tusac_env.structure.action_features`)."""
        return action_features(state, seat)

    def worst_cards(self, state: TuSacState) -> list[int]:
        """The current seat's worst discards (the "Find Trash" hint); [] unless discarding."""
        if state.phase != PHASE_DISCARD:
            return []
        return list(flow.worst_cards(state))

    def outcome(self, state: TuSacState) -> dict[str, Any]:
        """Winner, reason, hand value, winning card, every payment and the net result."""
        n = state.num_players
        net = [0] * n
        payments = state.payments
        for payer, payee, amt, _ in payments:
            net[payer] -= amt
            net[payee] += amt
        return {
            "winner": state.winner if state.winner >= 0 else None,
            "reason": state.result or "running",
            "value": state.value,
            "amount": state.amount,
            "winning_card": TUSAC_NAMES[state.win_card] if state.win_card >= 0 else None,
            "winning_card_how": _HOW_NAMES[state.win_how],  # (IntEnum keys: an int finds them)
            "winning_card_from": state.win_from if state.win_from >= 0 else None,
            "penalized": state.penalized if state.penalized >= 0 else None,
            "payments": [
                {"payer": p, "payee": q, "amount": a, "reason": r} for p, q, a, r in payments
            ],
            "net_payments": net,
            "scores": list(state.returns) if state.phase == PHASE_OVER else [0.0] * n,
        }

    def outcome_info(self, outcome: dict[str, Any]) -> dict[str, Any]:
        """The final infos' numbers, -1 standing for ``None``: ``winner``,
        ``value``, ``amount``, ``penalized``, ``winning_card_from``, and over
        seats ``net_payments`` and ``returns`` (the outcome's ``scores``)."""
        def seat(x: Any) -> int:
            return -1 if x is None else int(x)

        return {
            "winner": seat(outcome["winner"]),
            "value": int(outcome["value"]),
            "amount": int(outcome["amount"]),
            "penalized": seat(outcome["penalized"]),
            "winning_card_from": seat(outcome["winning_card_from"]),
            "net_payments": np.asarray(outcome["net_payments"], dtype=np.int64),
            "returns": np.asarray(outcome["scores"], dtype=np.float32),
        }

    # ------------------------------------------------------------- state tools
    def clone(self, state: TuSacState) -> TuSacState:
        """Independent copy (caches included)."""
        s = state
        twin = TuSacState(
            num_players=s.num_players, first=s.first, private=[p[:] for p in s.private],
            public=[[[k, t[:]] for k, t in b] for b in s.public], dead=s.dead[:], draw=s.draw[:],
            active=s.active, active_from=s.active_from, active_how=s.active_how,
            active_passed=s.active_passed, discard_worst=s.discard_worst, current=s.current,
            phase=s.phase, winner=s.winner, result=s.result, win_card=s.win_card,
            win_how=s.win_how, win_from=s.win_from, value=s.value, amount=s.amount,
            penalized=s.penalized, payments=[p[:] for p in s.payments], returns=s.returns[:],
            last_claim=s.last_claim[:], events=s.events[:],
        )
        twin._trash = s._trash[:]
        twin._khaps = s._khaps[:]
        twin._sizes = s._sizes[:]
        twin._codes = [c[:] for c in s._codes]
        twin._ctrash = [c[:] for c in s._ctrash]
        twin._disc = s._disc[:]
        twin._win = s._win[:]
        twin._high = s._high[:]
        twin._hot = s._hot[:]
        twin._hot_any = s._hot_any
        twin._pub_counts = [p[:] for p in s._pub_counts]
        twin._kind_counts = [p[:] for p in s._kind_counts]
        twin._exposed = s._exposed[:]
        twin._legal = None if s._legal is None else s._legal[:]
        twin._worst = None if s._worst is None else s._worst[:]
        twin._obs = s._obs[:]
        twin._lay = s._lay
        return twin

    _FIELDS = ("num_players", "first", "private", "public", "dead", "draw", "active",
               "active_from", "active_how", "active_passed", "discard_worst", "current",
               "phase", "winner", "result", "win_card", "win_how", "win_from", "value",
               "amount", "penalized", "payments", "returns", "last_claim")

    def to_json(self, state: TuSacState) -> dict[str, Any]:
        """Plain JSON-able data; :meth:`from_json` rebuilds an equal state."""
        data = {k: getattr(self.clone(state), k) for k in self._FIELDS}
        data["phase"] = int(state.phase)
        data["active_how"] = int(state.active_how)
        data["win_how"] = int(state.win_how)
        data["events"] = [list(e) for e in state.events]
        return data

    def from_json(self, data: dict[str, Any]) -> TuSacState:
        """Rebuild a state written by :meth:`to_json`.

        Raises:
            ValueError: data that is not a state of this game (see :meth:`validate`), one line.
        """
        if not isinstance(data, dict):
            raise StateError(f"a Tu Sac state is a JSON object, not {type(data).__name__}")
        missing = [k for k in (*self._FIELDS, "events") if k not in data]
        if missing:
            raise StateError(f"Tu Sac state data lacks {missing}")
        state = TuSacState(**_plain_fields(data))
        validate_fields(self.num_players, state)
        rebuild_caches(state)
        _check_legal(state)
        return state

    def validate(self, state: TuSacState) -> None:
        """Raise ``ValueError`` unless this game could produce ``state`` (see
        :mod:`tusac_env.validate`: types, ranges, exactly four of every type, real public
        sets, the active card as the phase has it, and a legal action for the seat
        to act). The state is not changed: the last check runs on a copy of its
        plain fields with fresh caches."""
        if not isinstance(state, TuSacState):
            raise StateError(f"not a Tu Sac state: {type(state).__name__}")
        validate_fields(self.num_players, state)
        twin = TuSacState(**_plain_fields({k: getattr(state, k) for k in (*self._FIELDS, "events")}))
        rebuild_caches(twin)
        _check_legal(twin)
        # The rules layer steps the state's own caches: they must be the fields' (a state
        # edited by hand needs tusac_env.melds.rebuild_caches, as from_json does).
        stale = [k for k in _CACHES if getattr(state, k) != getattr(twin, k)]
        if state._legal is not None and state._legal != flow.legal_now(twin):
            stale.append("_legal")
        if stale:
            raise StateError(f"the state's caches {stale[:4]} do not match its fields "
                             f"(rebuild them with tusac_env.melds.rebuild_caches)")

    def determinize(self, state: TuSacState, seat: int, rng: np.random.Generator) -> TuSacState:
        """Re-deal the other private blocks and the draw pile from ``seat``'s unseen cards.

        Kept: every public block, the dead pile, the active card, private block
        sizes and Khap counts (a player with k Khaps gets k triples of unseen
        types and no other type three times). If no such deal is found in
        :data:`_DETERMINIZE_TRIES` tries the true hidden cards are kept.
        """
        if not 0 <= seat < state.num_players:
            raise ValueError(f"seat {seat!r} is not 0..{state.num_players - 1}")
        twin = self.clone(state)
        n = state.num_players
        others = [s for s in range(n) if s != seat]
        pool = unseen_counts(state, seat)
        sizes = [sum(state.private[s]) for s in others]
        nkhaps = [len(state._khaps[s]) for s in others]
        for _ in range(_DETERMINIZE_TRIES):
            deal = deal_hidden(pool, sizes, nkhaps, rng)
            if deal is not None:
                hands, draw = deal
                for s, hand in zip(others, hands, strict=True):
                    twin.private[s] = hand
                twin.draw = draw
                break
        rebuild_caches(twin)
        if seat == state.current and state._worst is not None:
            twin._worst = state._worst[:]
        return twin

    def render(self, state: TuSacState, seat: int | None = None) -> str:
        """Text picture; all private blocks when ``seat`` is None, else only ``seat``'s."""
        return render_state(state, seat)


_CACHES = ("_trash", "_khaps", "_sizes", "_codes", "_ctrash", "_disc", "_high", "_win", "_hot",
           "_hot_any", "_pub_counts", "_kind_counts", "_exposed", "_obs")


def _history_observe(cards_observe):
    """``observe(state, seat)`` of the ``history`` mode: ``cards_observe``'s vector, then the
    block of :func:`tusac_env.history.history_bytes`."""

    def observe(state: TuSacState, seat: int) -> np.ndarray:
        """``seat``'s history observation (a new int8 array)."""
        cards = cards_observe(state, seat)  # (checks the seat)
        return np.concatenate([cards, np.frombuffer(history_bytes(state, seat), np.int8)])

    return observe


def _plain_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The fields of a state from JSON data or another state, with the nested lists copied
    (lists and tuples both taken: a state built in Python may hold tuples)."""
    kw = {k: data[k] for k in TuSacGame._FIELDS}
    for k in ("private", "dead", "draw", "payments", "returns", "last_claim"):
        kw[k] = check_list(kw[k], k)
    kw["private"] = [check_list(p, "private row") for p in kw["private"]]
    kw["public"] = [[check_list(e, "public set") for e in check_list(b, "public block")]
                    for b in check_list(kw["public"], "public")]
    kw["public"] = [[[e[0], check_list(e[1], "public set cards")] if len(e) == 2 else e for e in b]
                    for b in kw["public"]]
    kw["payments"] = [check_list(p, "payment") for p in kw["payments"]]
    kw["events"] = [tuple(e) if isinstance(e, list) else e for e in check_list(data["events"], "events")]
    return kw


def _check_legal(state: TuSacState) -> None:
    """The seat to act of a checked state (caches built) has a legal action; none once over."""
    legal_actions_consistent(flow.legal_now(state), LAYOUT.n, state.phase == PHASE_OVER)


def deal_hidden(pool: list[int], sizes: list[int], nkhaps: list[int],
                rng: np.random.Generator) -> tuple[list[list[int]], list[int]] | None:
    """Deal private blocks of ``sizes`` cards from the card counts ``pool``: block i
    gets ``nkhaps[i]`` triples of random types and no other type three times; the
    rest, shuffled, is the draw pile. Returns ``(blocks as counts, draw pile)``, or
    None when this random attempt could not keep the Khap counts (try again)."""
    avail = pool[:]
    hands = [[0] * NUM_TUSAC_TYPES for _ in sizes]
    for hand, k in zip(hands, nkhaps, strict=True):
        if k:
            cands = [t for t in range(NUM_TUSAC_TYPES) if avail[t] >= 3]
            if len(cands) < k:
                return None
            for i in rng.choice(len(cands), size=k, replace=False).tolist():
                t = cands[i]
                hand[t] = 3
                avail[t] -= 3
    cards = [t for t in range(NUM_TUSAC_TYPES) for _ in range(avail[t])]
    rest = [cards[i] for i in rng.permutation(len(cards)).tolist()]
    for hand, size, k in zip(hands, sizes, nkhaps, strict=True):
        need = size - 3 * k
        left: list[int] = []
        for i, t in enumerate(rest):
            if need == 0:
                left.extend(rest[i:])
                break
            if hand[t] < 2:  # a third copy would be a Khap that was never announced
                hand[t] += 1
                need -= 1
            else:
                left.append(t)
        if need:
            return None
        rest = left
    return hands, rest


def _picture(state: TuSacState) -> str:
    """The SVG of ``state``, every card face up, under the default config of its player count."""
    from tusac_env.draw import draw  # only a notebook needs the drawing toolkit

    return draw(TuSacGame(num_players=state.num_players), state)


lend_picture(_picture)
