"""Shared helpers for the Bharg tests: build states by hand, check invariants."""

from __future__ import annotations

from bharg_env.rules import BhargGame, BhargState
from setgames.cards import card_from_name


def cards(*names: str) -> list[int]:
    """Card ids from names or short codes."""
    return [card_from_name(n) for n in names]


def mask(ids) -> int:
    m = 0
    for c in ids:
        m |= 1 << c
    return m


def make_state(game: BhargGame, hands: list[list[int]], deck: list[int], discard: list[int],
               aces: list[int], seat: int = 0, phase: int = 0, known: list[list[int]] | None = None,
               turn: int = 0, scores: list[int] | None = None, fill: str = "deck",
               check: bool = True) -> BhargState:
    """A state laid out by hand, through from_json (so validated) unless ``check`` is False.

    Every card of the config the zones leave out is added (validation wants each card
    once): ``fill="deck"`` at the bottom of the deck, ``"piles"`` under the discard pile
    (Aces under the Ace Pile), ``"none"`` nowhere (a position no deal reaches: only
    with ``check=False``, for the rules layer alone).
    """
    n = game.num_players
    placed = set(deck) | set(discard) | set(aces) | {c for h in hands for c in h}
    rest = [c for c in game.deck_cards if c not in placed]
    if fill == "deck":
        deck = rest + list(deck)
    elif fill == "piles":
        discard = [c for c in rest if c >= 6] + list(discard)
        aces = [c for c in rest if c < 6] + list(aces)
    data = {
        "hands": [mask(h) for h in hands], "known": [mask(k) for k in (known or [[]] * n)],
        "deck": deck, "discard": discard, "aces": aces, "seat": seat, "phase": phase, "turn": turn,
        "round": 1, "scores": scores or [0] * n, "rewards": [0.0] * n, "seed": 12345, "draws": 1,
        "winner": -1, "reason": "", "truncated": False, "round_points": [0] * n, "events": [],
    }
    if check:
        return game.from_json(data)
    return BhargState(data["hands"], data["known"], list(deck), list(discard), list(aces), mask(discard),
                      seat, phase, turn, 1, data["scores"], data["rewards"], 12345, 1,
                      round_points=[0] * n)


def check_conservation(game: BhargGame, state: BhargState) -> None:
    """Every card of the config is in exactly one place; piles hold what they may."""
    places = [state.hands[s] for s in range(game.num_players)]
    places += [mask(state.deck), mask(state.discard), mask(state.aces)]
    total = sum(p.bit_count() for p in places)
    union = 0
    for p in places:
        union |= p
    assert total == len(game.deck_cards) == len(state.deck) + len(state.discard) + len(state.aces) + sum(
        h.bit_count() for h in state.hands), "a card is duplicated or lost"
    assert union == mask(game.deck_cards), "cards outside the config's deck"
    assert all(c < 6 for c in state.aces), "a non-Ace on the Ace Pile"
    assert state.discard_mask == mask(state.discard)
    for s in range(game.num_players):
        assert state.known[s] & ~state.hands[s] == 0, "a known card not in its holder's hand"
        size = state.hands[s].bit_count()
        extra = 1 if (s == state.seat and state.phase == 1) else 0
        if state.phase != 2:
            assert size == game.hand_size + extra, (s, size)


def observation_oracle(game: BhargGame, state: BhargState, seat: int) -> list[int]:
    """``seat``'s observation written feature by feature from the state's fields and the
    README's table (hand, Ace Pile, discard pile, next / next-but-one player's hand size
    and known cards, deck size, phase, to_act, capped scores, turns left)."""
    n, cfg = game.num_players, game.config

    def bits(m: int) -> list[int]:
        return [m >> c & 1 for c in range(45)]

    def onehot(ids: list[int], size: int) -> list[int]:
        return [int(i in ids) for i in range(size)]

    others = [(seat + k) % n if k < n else None for k in (1, 2)]
    over, target = state.phase == 2, cfg.target_score
    return (bits(state.hands[seat]) + onehot(state.aces[-1:], 6) + onehot(state.aces[:-1], 6)
            + onehot(state.discard[-1:], 45) + onehot(state.discard[:-1], 45)
            + [0 if o is None else state.hands[o].bit_count() for o in others]
            + [b for o in others for b in (bits(0) if o is None else bits(state.known[o]))]
            + [len(state.deck)]
            + ([0, 0] if over else [int(state.phase == 0), int(state.phase == 1)])
            + ([0, 0, 0] if over else [int((state.seat - seat) % n == k) for k in range(3)])
            + [0 if target is None or k >= n else min(state.scores[(seat + k) % n], target) for k in range(3)]
            + [min(cfg.max_turns - state.turn, 127)])


def check_observation_bytes(game: BhargGame, state: BhargState) -> None:
    """Every seat's observation of ``state`` (whose derived data apply() kept current)
    equals the oracle's and that of a copy without derived data; the
    next legal action does the same on both (rewards and resulting state)."""
    plain = game.clone(state)  # (not through JSON: hand-made states may be unchecked)
    plain.obs_bytes = plain.codes = None
    for s in range(game.num_players):
        got = game.observe(state, s).tolist()
        assert got == observation_oracle(game, state, s), f"wrong observation of seat {s}"
        assert got == game.observe(plain, s).tolist(), f"stale observation of seat {s}"
    legal = game.legal_actions(state)
    if legal:
        twin = game.clone(state)
        assert game.apply(twin, legal[-1]) == game.apply(plain, legal[-1])
        assert game.to_json(twin) == game.to_json(plain)
        for s in range(game.num_players):
            assert game.observe(twin, s).tolist() == game.observe(plain, s).tolist()
