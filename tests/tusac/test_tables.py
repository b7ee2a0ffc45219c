"""The table-driven rules layer against independent references.

The per-component tables of ``tusac_env.melds`` are checked exhaustively against
a brute-force oracle written here from the rule text (``tusac_env/README.md``, rules choices
16 and 18: the valid sets; a Khap is three of a type, never broken, never trash), shared with the
kernel's tests (``tests/setgames/kernels/tusac_oracle.py``). Whole-block
answers (the winning meld, the worst discards, the waiting hand) are checked
against the kernel (``setgames.kernels.tusac``, itself tested against its own
oracle), the way the rules layer computed them before the tables. The caches
the rules keep up to date step by step are compared with a fresh rebuild, and
the observation with a plain builder written from the spec.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from setgames.cards import NUM_TUSAC_TYPES
from setgames.game import rng_from_seed
from setgames.kernels import tusac as kern
from tests.setgames.kernels.tusac_oracle import SET_VALUE, _minus, _vec, oracle_trash, oracle_value
from tusac_env import claims, flow, melds
from tusac_env.rules import TuSacGame
from tusac_env.state import FIRST_DEAL, HAND_SIZE, PUBLIC_KINDS, TuSacState

N = NUM_TUSAC_TYPES


# ---------------------------------------------------------------- helpers
def _block(k: int, code: int) -> list[int]:
    """The private counts (0..3) of component ``k``'s code, written out digit by digit."""
    comp = melds.COMPONENTS[k]
    counts = [0] * N
    for i, t in enumerate(comp):
        counts[t] = code // 4 ** (len(comp) - 1 - i) % 4
    return counts


def _free(counts: list[int]) -> tuple[int, ...]:
    """The cards outside Khaps (a count of 3 is a Khap)."""
    return tuple(0 if c == 3 else c for c in counts)


def _components():
    for k, comp in enumerate(melds.COMPONENTS):
        for code in range(4 ** len(comp)):
            yield k, code, _block(k, code)


# ---------------------------------------------------------------- component tables
def test_component_codes_are_base_4_digits():
    for k, code, counts in _components():
        assert melds.seat_codes(counts)[k] == code


def test_component_trash_and_discards_match_oracle():
    for k, code, counts in _components():
        free = _free(counts)
        trash = oracle_trash(free)
        assert melds.COMP_TRASH[k][code] == trash, (k, code)
        lowering = {t for t in range(N) if free[t] and oracle_trash(_minus(free, _vec([t]))) == trash - 1}
        assert melds.COMP_DISCARD[k][code] == sum(1 << t for t in lowering), (k, code)


def test_component_value_matches_oracle():
    for k, code, counts in _components():
        v = oracle_value(_free(counts))
        expect = melds.NO_VALUE if v is None else v + 3 * counts.count(3)
        assert melds.COMP_VALUE[k][code] == expect, (k, code)


def test_meld_options_are_the_melds_the_block_can_make():
    """A meld is listed when its private cards are held outside Khaps; its trash change
    is the oracle's; the legal ones are those not raising trash."""
    for k, code, counts in _components():
        free = _free(counts)
        for a in melds.COMPONENTS[k]:
            expect = []
            for idx, _, used in melds.MELDS[a]:
                need = _vec(used)
                if all(free[t] >= need[t] and (need[t] == 0 or counts[t] != 3) for t in range(N)):
                    expect.append((idx, oracle_trash(_minus(free, need)) - oracle_trash(free)))
            assert list(melds.MELD_OPTIONS[a][code]) == expect, (a, code)
            assert melds.LEGAL_MELDS[a][code] == tuple(i for i, d in expect if d <= 0)


def test_component_win_masks_match_oracle():
    for k, code, counts in _components():
        free = _free(counts)
        zero = 0
        for a in melds.COMPONENTS[k]:
            for _, _, used in melds.MELDS[a]:
                need = _vec(used)
                if all(free[t] >= need[t] for t in range(N)) and oracle_trash(_minus(free, need)) == 0:
                    zero |= 1 << a
        assert melds.COMP_ZERO[k][code] == zero
        assert melds.COMP_CLEAN[k][code] == zero | sum(1 << t for t in range(N) if counts[t] == 3)


def test_high_masks_hold_khaps_and_non_king_pairs():
    for k, code, counts in _components():
        expect = sum(1 << t for t in range(N) if counts[t] == 3 or (counts[t] == 2 and t % 7))
        assert melds.COMP_HIGH[k][code] == expect


# ---------------------------------------------------------------- whole blocks
def _random_blocks(rng: random.Random, count: int):
    for _ in range(count):
        counts = [0] * N
        for t in rng.sample(range(N), rng.randint(4, 14)):
            counts[t] = rng.choice((1, 1, 1, 2, 2, 3))
        yield counts


def test_block_tables_match_kernel_on_random_blocks():
    rng = random.Random(7)
    for counts in _random_blocks(rng, 400):
        khaps = melds.khap_types(counts)
        codes, khap_list, trash = melds.seat_caches(counts)
        assert khap_list == khaps and trash == kern.min_trash(counts, khaps)
        mask = melds.discard_mask(codes)
        assert [t for t in range(N) if mask >> t & 1] == kern.trash_discards(counts, khaps)
        value = melds.block_value(codes)
        expect = kern.max_value(counts, khaps)
        assert (value < 0) if expect is None else value == expect


def _win_reference(counts, khaps, trash, a):
    """Win check and best winning meld as the rules layer did it with the kernel."""
    best = None
    if counts[a] == 3 and trash == 0:
        rest = counts[:]
        rest[a] = 0
        best = (6 + kern.max_value(rest, tuple(t for t in khaps if t != a)), "khui", (a, a, a))
    for _, kind, used in melds.MELDS[a]:
        rest = melds.after_removal(counts, used)
        if rest is None:
            continue
        v = kern.max_value(rest, khaps)
        if v is not None and (best is None or SET_VALUE[kind] + v > best[0]):
            best = (SET_VALUE[kind] + v, kind, used)
    return best


def test_win_mask_and_winning_meld_match_kernel_reference():
    rng = random.Random(11)
    game = TuSacGame(num_players=2)
    state = game.new_state(rng_from_seed(0))
    checked = 0
    for counts in _random_blocks(rng, 3000):
        khaps = melds.khap_types(counts)
        trash = kern.min_trash(counts, khaps)
        if trash > 3:
            continue
        codes = melds.seat_codes(counts)
        state.private[0] = counts
        state.public[0] = []
        melds.init_seat(state, 0)
        for a in range(N):
            ref = _win_reference(counts, khaps, trash, a)
            assert bool(melds.win_mask(codes, trash) >> a & 1) == (ref is not None), (counts, a)
            got = claims.win_meld(state, 0, a)
            assert (got is None) == (ref is None)
            if ref is not None:
                assert got == ref, (counts, a)
            checked += 1
    assert checked > 1000


def test_waiting_hand_table_matches_kernel_check():
    rng = random.Random(3)
    game = TuSacGame(num_players=2)
    state = game.new_state(rng_from_seed(0))
    seen = 0
    for counts in _random_blocks(rng, 4000):
        khaps = melds.khap_types(counts)
        trash = kern.min_trash(counts, khaps)
        state.private[0] = counts
        melds.init_seat(state, 0)
        expect = claims.is_waiting_hand(counts, khaps, trash)
        assert claims._is_waiting(state, 0) == expect, counts
        seen += expect
    assert seen > 5


# ---------------------------------------------------------------- caches during play
CACHE_FIELDS = ("_trash", "_khaps", "_sizes", "_codes", "_ctrash", "_disc", "_high", "_win", "_hot",
                "_hot_any", "_pub_counts", "_kind_counts", "_exposed", "_obs")


def _play(game: TuSacGame, seed: int, rng: random.Random):
    """Yield the state before every action of a random game, with the action."""
    state = game.new_state(rng_from_seed(seed))
    while True:
        legal = game.legal_actions(state)
        if not legal:
            return
        action = legal[int(rng.random() * len(legal))]
        yield state, action
        game.apply(state, action)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_kept_caches_equal_a_fresh_rebuild(n):
    """Every cache the actions keep up to date equals the one rebuilt from the plain fields."""
    game = TuSacGame(num_players=n)
    rng = random.Random(n)
    for seed in range(6):
        for state, _ in _play(game, seed, rng):
            fresh = game.from_json(json.loads(json.dumps(game.to_json(state))))
            for name in CACHE_FIELDS:
                assert getattr(state, name) == getattr(fresh, name), name
            # The legal list an action leaves equals one computed afresh.
            assert state._legal == flow.legal_now(fresh)


@pytest.mark.parametrize("n", [2, 4])
def test_worst_cards_match_kernel_worst_discards(n):
    game = TuSacGame(num_players=n)
    rng = random.Random(5)
    checked = 0
    for seed in range(10):
        for state, _ in _play(game, seed, rng):
            if state.phase != 0:
                continue
            seat = state.current
            counts = state.private[seat]
            expect = kern.worst_discards(counts, melds.unseen_counts(state, seat), melds.khap_types(counts))
            assert game.worst_cards(state) == expect
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("n", [2, 3, 4])
def test_play_continues_identically_from_clone_and_json(n):
    """A clone and a JSON copy taken mid-game play on exactly as the original."""
    game = TuSacGame(num_players=n)
    for seed in range(4):
        rng = random.Random(seed)
        state = game.new_state(rng_from_seed(seed))
        copies = []
        step = 0
        while game.legal_actions(state):
            if step % 7 == 3:
                copies.append(game.clone(state))
                copies.append(game.from_json(json.loads(json.dumps(game.to_json(state)))))
            legal = game.legal_actions(state)
            action = legal[int(rng.random() * len(legal))]
            rewards = game.apply(state, action)
            for c in copies:
                assert game.legal_actions(c) == legal
                assert game.apply(c, action) == rewards
                for seat in range(n):
                    assert np.array_equal(game.observe(c, seat), game.observe(state, seat))
            step += 1
        assert all(c == state for c in copies)


def test_state_pickles_and_deep_copies_with_its_caches():
    """The state is a slotted dataclass (no instance dict): pickle and deepcopy still carry
    every field and cache, and play continues identically from the copies."""
    import copy
    import pickle

    game = TuSacGame(num_players=4)
    rng = random.Random(9)
    for seed in range(3):
        for i, (state, action) in enumerate(_play(game, seed, rng)):
            if i % 7:
                continue
            for twin in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
                assert twin == state
                for name in (*CACHE_FIELDS, "_legal", "_worst"):
                    assert getattr(twin, name) == getattr(state, name), name
                a, b = game.clone(state), twin
                assert game.apply(a, action) == game.apply(b, action)
                assert game.to_json(a) == game.to_json(b) and a._obs == b._obs


# ---------------------------------------------------------------- deal and observation
@pytest.mark.parametrize("n", [2, 3, 4])
def test_deal_is_the_permuted_deck_dealt_in_turn(n):
    """The deck is rng.permutation(112) // 4: 21 cards to the first player, then 20 each."""
    game = TuSacGame(num_players=n, first_player="random")
    for seed in range(30):
        rng = rng_from_seed(seed)
        first = int(rng.integers(n))
        deck = (rng.permutation(4 * N) // 4).tolist()
        state = game.new_state(rng_from_seed(seed))
        assert state.first == first
        pos = 0
        for i in range(n):
            size = FIRST_DEAL if i == 0 else HAND_SIZE
            dealt = _vec(deck[pos:pos + size])
            seat = (first + i) % n
            public = [t for _, tt in state.public[seat] for t in tt]
            assert [a + b for a, b in zip(state.private[seat], _vec(public), strict=True)] == list(dealt)
            pos += size
        if state.phase != 3:
            assert state.draw == deck[pos:]


def _reference_observation(game: TuSacGame, state, seat: int) -> np.ndarray:
    """The observation written feature by feature from the spec and the plain fields."""
    n = state.num_players
    out = np.zeros(game.obs_spec.size, np.int8)
    sl = game.obs_spec.slices

    def put(name, values):
        out[sl[name]] = np.asarray(values, np.int8).ravel()

    rel = [(seat + r) % n for r in range(n)]
    counts = state.private[seat]
    put("private", counts)
    put("khap_types", [int(c == 3) for c in counts])
    put("private_sizes", [sum(state.private[s]) for s in rel])
    put("khap_counts", [state.private[s].count(3) for s in rel])
    put("public_counts", [[sum(tt.count(t) for _, tt in state.public[s]) for t in range(N)] for s in rel])
    put("public_sets", [[sum(k == kind for k, _ in state.public[s]) for kind in PUBLIC_KINDS] for s in rel])
    put("dead", state.dead)
    one = np.zeros(N, np.int8)
    if state.active >= 0:
        one[state.active] = 1
        put("active_from", [int(s == state.active_from) for s in rel])
        put("active_how", [int(state.active_how == 1), int(state.active_how != 1)])
        put("active_passed", int(state.active_passed))
    put("active", one)
    put("draw_size", len(state.draw))
    if state.current >= 0:
        put("current", [int(s == state.current) for s in rel])
        put("phase", [int(p == state.phase) for p in range(3)])
        if state.current == seat and state.phase == 0:
            put("worst", [int(t in game.worst_cards(state)) for t in range(N)])
    put("trash", kern.min_trash(counts, melds.khap_types(counts)))
    kind, who = state.last_claim
    if who >= 0:
        put("last_claim", [int(k == kind) for k in ("win", "khui", "pair")])
        put("last_claimer", [int(s == who) for s in rel])
    if state.winner >= 0:
        put("winner", [int(s == state.winner) for s in rel])
    put("drawn", int(state.result == "draw"))
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_observation_matches_reference_builder(n):
    game = TuSacGame(num_players=n)
    rng = random.Random(n + 10)
    for seed in range(4):
        for state, _ in _play(game, seed, rng):
            for seat in range(n):
                obs = game.observe(state, seat)
                assert obs.dtype == np.int8 and obs.flags.writeable
                assert np.array_equal(obs, _reference_observation(game, state, seat))


def test_legal_actions_are_fresh_lists():
    """Changing a returned legal list never touches the tables it came from."""
    game = TuSacGame(num_players=2)
    rng = random.Random(1)
    for state, _ in _play(game, 1, rng):
        legal = game.legal_actions(state)
        again = flow.legal_now(state)
        assert legal == again and legal is not again
        legal.append(-1)
        assert flow.legal_now(state) == again
        legal.pop()


def _assert_caches_fresh(game: TuSacGame, state) -> None:
    # Rebuilt without from_json: these states are edited by hand past what a game
    # reaches (a triple from a pair), which validation would refuse.
    plain = json.loads(json.dumps(game.to_json(state)))
    plain["events"] = [tuple(e) for e in plain["events"]]
    fresh = TuSacState(**plain)
    melds.rebuild_caches(fresh)
    for name in CACHE_FIELDS:
        assert getattr(state, name) == getattr(fresh, name), name


def test_public_block_helpers_keep_every_cache_fresh():
    """take_discard, remove_cards, add_public and refresh_seat (the helpers other code may
    call on a state) leave every cache as a rebuild would."""
    game = TuSacGame(num_players=3)
    rng = random.Random(2)
    for seed in range(8):
        state = game.new_state(rng_from_seed(seed))
        if state.phase == 3:
            continue
        seat = state.current
        t = flow.legal_now(state)[0] - flow.DISCARD0
        melds.take_discard(state, seat, t)
        state._legal = None
        _assert_caches_fresh(game, state)
        other = (seat + 1) % 3
        counts = state.private[other]
        pairs = [u for u in range(N) if counts[u] == 2]
        if pairs:
            u = rng.choice(pairs)
            rest = [0 if x == u else c for x, c in enumerate(counts)]
            after = kern.min_trash(rest, melds.khap_types(counts))
            melds.remove_cards(state, other, (u, u), 2 * melds.PLACE[u], after)
            melds.add_public(state, other, "triple", [u, u, u])  # (only the caches are checked)
            _assert_caches_fresh(game, state)
        state.private[other][next(x for x in range(N) if state.private[other][x] == 1)] -= 1
        melds.refresh_seat(state, other)
        _assert_caches_fresh(game, state)


def test_meld_memo_agrees_with_the_legal_melds():
    game = TuSacGame(num_players=2)
    rng = random.Random(4)
    for seed in range(6):
        for state, _ in _play(game, seed, rng):
            if state.phase not in (1, 2):
                continue
            memo = melds.meld_memo(state, state.current, state.active)
            assert list(memo.legal) == flow.legal_now(state)[:-1]
            index = {(k, u): i for i, k, u in melds.MELDS[state.active]}
            for kind, used, rest in memo.wins:
                assert memo.after[index[kind, used]] == 0
                assert kern.min_trash(rest, melds.khap_types(rest)) == 0
