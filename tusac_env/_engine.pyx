# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, auto_pickle=False
"""Tu Sac compiled engine (see :mod:`setgames.engine` for the protocol).

The same game as :mod:`tusac_env.rules` (the reference: ``tests/tusac/test_engine.py``
holds this to it step by step), as one C struct (:c:type:`TSState`, declared in
``_engine.pxd``) and the ``nogil`` functions that step it: private blocks as counts
and per-component base-4 codes, the per-seat claim masks of :mod:`tusac_env.melds`
as 32-bit type masks, the public blocks, the draw pile, and every seat's
observation prefix as bytes patched where the data changes (as
:mod:`tusac_env.observation` does). The whole step is C: the discard, hit, pass
and melds, the automatic claims, the game end with its scoring (the C twin of
:mod:`tusac_env.scoring`), the legal actions, mask, observation and the
worst-cards hint, on tables copied at import from the rules layer's own tables
(:mod:`tusac_env.melds`, :mod:`tusac_env.claims`); nothing is derived twice. The
same functions step :class:`Engine` (one struct), the batched engine and the
compiled greedy bot (:mod:`tusac_env._greedy`): one implementation.

The public game record is kept in C as compact event and payment records
(the events when the state points at a record: the Engine's), which :class:`Engine` turns into the rules
layer's tuples and lists after every call; ``outcome``/``to_json`` build the
rules layer's data.

The ``history`` mode's rows (:mod:`tusac_env.history`, the reference) are pushed by the same
event function, ``ts_event``, into a ring (``setgames/_history.pxd``) that the caller passes
to :c:func:`ts_apply` and :c:func:`ts_deal` (NULL: none): the Engine's own, a batch slot's, never
one reached through a copied state (the search and the play-outs pass NULL).

Beyond the protocol, ``deal(rng)`` deals a new game in the engine: the state
``load(game.new_state(rng))`` gives, from the same numpy draws, in about a
tenth of the time (``tests/tusac/test_engine.py`` checks the equality);
:c:func:`ts_deal` deals the same game from a C ``PCG64`` (``setgames/batch/_rng.pxd``).
Likewise ``redeal(seat, rng)`` and :c:func:`ts_redeal` re-deal the cards a seat has not
seen with the draws of ``game.determinize`` (the batch's ``greedy_returns(redeals=k)``).
"""

cimport numpy as cnp
from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport uint64_t
from libc.string cimport memcpy, memset
from numpy.random cimport bitgen_t

from setgames.batch._rng cimport (sg_bitgen_next32, sg_interval, sg_lemire, sg_next32_fn, sg_pcg64,
                                  sg_pcg64_next32_v, sg_shuffle_schar)
from setgames._history cimport sg_event, sg_history_add, sg_history_block, sg_history_reset, sg_history_words

import numpy as np
from operator import index as _index

cnp.import_array()

from setgames.engine import rebuild as _from_json_state
from setgames.cards import NUM_TUSAC_TYPES
from tusac_env import claims as _claims
from tusac_env import flow as _flow
from tusac_env import history as _hist_py
from tusac_env import melds as _melds
from tusac_env import scoring as _scoring
from tusac_env import structure as _structure
from tusac_env.layout import DISCARD0 as _PY_DISCARD0
from tusac_env.layout import HIT as _PY_HIT
from tusac_env.layout import NUM_ACTIONS as _PY_NUM_ACTIONS
from tusac_env.layout import PASS as _PY_PASS
from tusac_env.flow import _DECK_TYPES
from tusac_env.observation import CLAIM_KINDS, LAYOUTS
from tusac_env.rules import _DETERMINIZE_TRIES as _PY_DETERMINIZE_TRIES
from tusac_env.state import (
    DRAW_LIMIT as _PY_DRAW_LIMIT,
    FIRST_DEAL as _PY_FIRST_DEAL,
    HAND_SIZE as _PY_HAND_SIZE,
    EXPOSED_BY_DISCARD as _PY_BY_DISCARD,
    EXPOSED_BY_HIT as _PY_BY_HIT,
    KIND_VALUES,
    PHASE_AFTER_HIT as _PY_AFTER_HIT,
    PHASE_DISCARD as _PY_DISCARD,
    PHASE_OVER as _PY_OVER,
    PHASE_RESPOND as _PY_RESPOND,
    PUBLIC_KINDS,
    TuSacState,
)

__all__ = ["Engine"]

# ---------------------------------------------------------------- constants (from the rules layer)

# (the constants NT, NCOMP, ... and the class attributes are declared in _engine.pxd)
assert NUM_TUSAC_TYPES == NT and len(_melds.COMPONENTS) == NCOMP and _melds.NUM_MELD_ACTIONS == NMELD

cdef int DISCARD0 = _PY_DISCARD0
cdef int HIT = _PY_HIT
cdef int PASS = _PY_PASS
cdef int NUM_ACTIONS = _PY_NUM_ACTIONS
cdef int DRAW_LIMIT = _PY_DRAW_LIMIT
cdef int FIRST_DEAL = _PY_FIRST_DEAL
cdef int HAND_SIZE = _PY_HAND_SIZE
cdef int DETERMINIZE_TRIES = _PY_DETERMINIZE_TRIES
cdef int PH_DISCARD = int(_PY_DISCARD)
cdef int PH_RESPOND = int(_PY_RESPOND)
cdef int PH_AFTER_HIT = int(_PY_AFTER_HIT)
cdef int PH_OVER = int(_PY_OVER)
cdef int BY_DISCARD = int(_PY_BY_DISCARD)
cdef int BY_HIT = int(_PY_BY_HIT)
assert NUM_ACTIONS == TS_N_ACTIONS and DISCARD0 + NT == NUM_ACTIONS and PH_OVER == PH_OVER_C

cdef enum:
    NKINDS = 9  # the public set kinds (a constant, so that copying a seat's counts is inlined)
assert NKINDS == len(PUBLIC_KINDS) and NKINDS <= NKIND
assert NKIND <= 16 and NT <= 32 and MAXSEAT <= 4, "a public set no longer packs into TSState.pub's 32 bits"
cdef int KI_KHUI = PUBLIC_KINDS.index("khui")
cdef int KI_QUAN = PUBLIC_KINDS.index("quan")
cdef int KHUI_VALUE = KIND_VALUES["khui"]
cdef int QUAN_SIDE = _scoring.QUAN_SIDE
cdef int KHUI_SIDE = _scoring.KHUI_SIDE
cdef int KHAP_SIDE = _scoring.KHAP_SIDE
cdef int KIND_VALUE[16]      # public kind index -> set value
for _i, _k in enumerate(PUBLIC_KINDS):
    KIND_VALUE[_i] = KIND_VALUES[_k]

# Python-side names (the event record holds these very objects)
_KIND_NAMES = tuple(PUBLIC_KINDS)
_CLAIM_NAMES = tuple(CLAIM_KINDS)  # last_claim kind code -> name
cdef int CL_WIN = CLAIM_KINDS.index("win")
cdef int CL_KHUI = CLAIM_KINDS.index("khui")
cdef int CL_PAIR = CLAIM_KINDS.index("pair")

# ---------------------------------------------------------------- tables (copied from tusac_env.melds/claims)

cdef int COMP_OF[NT]
cdef int PLACE[NT]
cdef unsigned int COMP_BITS[NCOMP]
cdef int COMP_TRASH[NCOMP][NCODE]
cdef unsigned int COMP_DISCARD[NCOMP][NCODE]
cdef unsigned int COMP_ZERO[NCOMP][NCODE]
cdef unsigned int COMP_CLEAN[NCOMP][NCODE]
cdef unsigned int COMP_HIGH[NCOMP][NCODE]
cdef int COMP_VALUE[NCOMP][NCODE]
cdef bint WAITING[NCOMP][NCODE]
cdef int COMP_TYPES[NCOMP][4]
cdef int COMP_NTYPES[NCOMP]
# MELD_OPTIONS[a][code]: the meld indices the block can make (any trash change), in meld order
cdef int OPT_N[NT][NCODE]
cdef signed char OPT_IDX[NT][NCODE][MAXOPT]
# LEGAL_MELDS[a][code] as a mask over the meld actions
cdef unsigned long long LEGAL_MELD_MASK[NT][NCODE]
# MELD_BY_INDEX[a][idx]: used private types, place sum, sorted cards, kind index
cdef int MI_NUSED[NT][NMELD]
cdef int MI_USED[NT][NMELD][3]
cdef int MI_PLACE[NT][NMELD]
cdef int MI_NCARDS[NT][NMELD]
cdef int MI_CARDS[NT][NMELD][4]
cdef int MI_KIND[NT][NMELD]
cdef int TRIPLE_IDX = _melds.MELD_INDEX_TRIPLE
# outs of a non-pawn type: its two trio partners (as flow._OUTS_OF)
cdef int TRIO_Y[NT]
cdef int TRIO_Z[NT]
cdef int HELD[4]
HELD[0] = 0
HELD[1] = 1
HELD[2] = 1
HELD[3] = 0  # 3 is a Khap: it completes nothing (flow._HELD)


def _fill_tables():
    """Copy the rules layer's tables into the C arrays (once, at import)."""
    cdef int t, k, code, a, idx, j
    for t in range(NT):
        COMP_OF[t] = _melds.COMP_OF[t]
        PLACE[t] = _melds.PLACE[t]
    for k in range(NCOMP):
        COMP_BITS[k] = _melds.COMP_BITS[k]
        comp = _melds.COMPONENTS[k]
        COMP_NTYPES[k] = len(comp)
        for j in range(len(comp)):
            COMP_TYPES[k][j] = comp[j]
        for code in range(NCODE):
            if code < len(_melds.COMP_TRASH[k]):
                COMP_TRASH[k][code] = _melds.COMP_TRASH[k][code]
                COMP_DISCARD[k][code] = _melds.COMP_DISCARD[k][code]
                COMP_ZERO[k][code] = _melds.COMP_ZERO[k][code]
                COMP_CLEAN[k][code] = _melds.COMP_CLEAN[k][code]
                COMP_HIGH[k][code] = _melds.COMP_HIGH[k][code]
                COMP_VALUE[k][code] = _melds.COMP_VALUE[k][code]
                WAITING[k][code] = _claims._WAITING[k][code]
            else:
                COMP_TRASH[k][code] = 0
                COMP_DISCARD[k][code] = 0
                COMP_ZERO[k][code] = 0
                COMP_CLEAN[k][code] = 0
                COMP_HIGH[k][code] = 0
                COMP_VALUE[k][code] = 0
                WAITING[k][code] = 0
    for a in range(NT):
        per_code = _melds.MELD_OPTIONS[a]
        for code in range(NCODE):
            OPT_N[a][code] = 0
            LEGAL_MELD_MASK[a][code] = 0
            if code < len(per_code):
                opts = per_code[code]
                assert len(opts) <= MAXOPT
                OPT_N[a][code] = len(opts)
                for j in range(len(opts)):
                    OPT_IDX[a][code][j] = opts[j][0]
                for idx in _melds.LEGAL_MELDS[a][code]:
                    LEGAL_MELD_MASK[a][code] |= 1ULL << idx
        for idx in range(NMELD):
            MI_NUSED[a][idx] = -1
        for idx, info in _melds.MELD_BY_INDEX[a].items():
            MI_NUSED[a][idx] = len(info.used)
            for j in range(len(info.used)):
                MI_USED[a][idx][j] = info.used[j]
            MI_PLACE[a][idx] = info.place_sum
            MI_NCARDS[a][idx] = len(info.cards)
            for j in range(len(info.cards)):
                MI_CARDS[a][idx][j] = info.cards[j]
            MI_KIND[a][idx] = info.kind_index
            assert info.comp == COMP_OF[a]
    for t in range(NT):
        others = _flow._TRIO_OTHERS[t]  # the same-colour trio partners (None for a pawn)
        TRIO_Y[t] = others[0] if others else -1
        TRIO_Z[t] = others[1] if others else -1


_fill_tables()


cdef extern from *:
    int __builtin_popcount(unsigned int) nogil
    int __builtin_ctz(unsigned int) nogil
    int __builtin_ctzll(unsigned long long) nogil


cdef inline int popcount32(unsigned int m) noexcept nogil:
    return __builtin_popcount(m)


# ---------------------------------------------------------------- observation layouts

ctypedef struct TSLayout:
    # offsets of tusac_env.observation.LAYOUTS[n] (one per player count, shared by every state)
    int size
    int khap, sizes, khc, pub, kinds, dead, active, from_, how, passed
    int draw, current, phase, trash, worst, claim, claimer, winner, drawn

cdef TSLayout LAYOUT[MAXSEAT + 1]


def _fill_layouts():
    """Copy the observation offsets of :data:`tusac_env.observation.LAYOUTS` (once, at load)."""
    cdef TSLayout *L
    for n, lay in LAYOUTS.items():
        off = lay.off
        assert off["private"] == 0 and lay.prefix == off["active"] and lay.size <= MAXOBS
        L = &LAYOUT[n]
        L.size = lay.size
        L.khap = off["khap_types"]
        L.sizes = off["private_sizes"]
        L.khc = off["khap_counts"]
        L.pub = off["public_counts"]
        L.kinds = off["public_sets"]
        L.dead = off["dead"]
        L.active = off["active"]
        L.from_ = off["active_from"]
        L.how = off["active_how"]
        L.passed = off["active_passed"]
        L.draw = off["draw_size"]
        L.current = off["current"]
        L.phase = off["phase"]
        L.trash = off["trash"]
        L.worst = off["worst"]
        L.claim = off["last_claim"]
        L.claimer = off["last_claimer"]
        L.winner = off["winner"]
        L.drawn = off["drawn"]


_fill_layouts()
# Slots of a batch start on cache lines (its states are 64-byte aligned) only when the
# size is a multiple of 64: PADDING in _engine.pxd keeps it one.
assert sizeof(TSState) % 64 == 0, f"sizeof(TSState) = {sizeof(TSState)}: change PADDING in _engine.pxd"


# ---------------------------------------------------------------- the step (nogil C on a TSState)

cdef void ts_rebuild(TSState *g) noexcept nogil:
    """Every cache from the plain fields."""
    cdef int n = g.n
    cdef int s, t, i, j
    for t in range(NT):
        g.exposed[t] = g.dead[t]
    for s in range(n):
        for t in range(NT):
            g.seats[s].pub_counts[t] = 0
        for i in range(NKIND):
            g.seats[s].kind_counts[i] = 0
    for i in range(g.npub):
        s = ts_pub_seat(g.pub[i])
        g.seats[s].kind_counts[ts_pub_kind(g.pub[i])] += 1
        for j in range(ts_pub_ncards(g.pub[i])):
            t = ts_pub_card(g.pub[i], j)
            g.seats[s].pub_counts[t] += 1
            g.exposed[t] += 1
    for s in range(n):
        ts_init_seat(g, s)
    ts_union(g)
    g.worst_ok = False

cdef void ts_init_seat(TSState *g, int s) noexcept nogil:
    """Codes, component trash, trash, size, Khaps and claim masks of seat ``s``
    (as :func:`tusac_env.melds.init_seat`)."""
    cdef int k, j, code, t
    cdef int trash = 0, size = 0
    cdef unsigned int khaps = 0, disc = 0, high = 0
    for t in range(NT):
        size += g.seats[s].private[t]
        if g.seats[s].private[t] == 3:
            khaps |= 1U << t
    for k in range(NCOMP):
        code = 0
        for j in range(COMP_NTYPES[k]):
            code = code * 4 + g.seats[s].private[COMP_TYPES[k][j]]
        g.seats[s].codes[k] = code
        g.seats[s].ctrash[k] = COMP_TRASH[k][code]
        trash += COMP_TRASH[k][code]
        disc |= COMP_DISCARD[k][code]
        high |= COMP_HIGH[k][code]
    g.seats[s].trash = trash
    g.seats[s].size = size
    g.seats[s].khaps = khaps
    g.seats[s].disc = disc
    g.seats[s].high = high
    ts_win_and_hot(g, s)

cdef void ts_win_and_hot(TSState *g, int s) noexcept nogil:
    """``s``'s win mask from its codes and trash, its hot mask (not the union)
    (as :func:`tusac_env.melds._win_and_hot`)."""
    cdef int trash = g.seats[s].trash
    cdef int k
    cdef unsigned int win = 0
    if trash == 0:
        for k in range(NCOMP):
            win |= COMP_CLEAN[k][g.seats[s].codes[k]]
    elif trash <= 3:
        for k in range(NCOMP):
            if g.seats[s].ctrash[k] == trash:
                win = COMP_ZERO[k][g.seats[s].codes[k]]
                break
    g.seats[s].win = win
    g.seats[s].hot = g.seats[s].high | win

cdef void ts_union(TSState *g) noexcept nogil:
    cdef unsigned int u = 0
    cdef int s
    for s in range(g.n):
        u |= g.seats[s].hot
    g.hot_any = u

# ------------------------------------------------------------ block bookkeeping
cdef void ts_masks_changed(TSState *g, int s, int k) noexcept nogil:
    """As :func:`tusac_env.melds.masks_changed` (component ``k`` of ``s`` changed)."""
    cdef int code = g.seats[s].codes[k]
    cdef unsigned int keep = ~COMP_BITS[k]
    g.seats[s].ctrash[k] = COMP_TRASH[k][code]
    g.seats[s].disc = (g.seats[s].disc & keep) | COMP_DISCARD[k][code]
    g.seats[s].high = (g.seats[s].high & keep) | COMP_HIGH[k][code]
    ts_win_and_hot(g, s)
    ts_union(g)

cdef void ts_remove(TSState *g, int s, int a, int idx, int trash) noexcept nogil:
    """Take meld ``idx``'s private cards (of active ``a``) out of ``s``'s block, which is
    then left with ``trash`` (``idx`` KHUI_IDX: the three of a Khap)."""
    cdef int j, u, nused, k = COMP_OF[a]
    if idx == KHUI_IDX:
        g.seats[s].private[a] -= 3
        g.seats[s].codes[k] -= 3 * PLACE[a]
        nused = 3
    else:
        nused = MI_NUSED[a][idx]
        for j in range(nused):
            u = MI_USED[a][idx][j]
            g.seats[s].private[u] -= 1
        g.seats[s].codes[k] -= MI_PLACE[a][idx]
    g.seats[s].trash = trash
    g.seats[s].size -= nused
    ts_masks_changed(g, s, k)

cdef void ts_drop_khap(TSState *g, int s, int t) noexcept nogil:
    """``s``'s Khap of ``t`` left its block (as a Khui), as :func:`tusac_env.melds.drop_khap`."""
    g.seats[s].khaps &= ~(1U << t)

cdef void ts_put_public(TSState *g, int s, int ki, int *cards, int ncards) noexcept nogil:
    """Append a sorted set to ``s``'s public block, as :func:`tusac_env.melds.put_public`."""
    cdef int j, t
    cdef unsigned int x = <unsigned int> (s | ki << 2 | ncards << 6)
    if g.npub >= MAXPUB:  # unreachable from a loaded state (checked there) or a deal (see MAXPUB)
        return
    for j in range(ncards):
        t = cards[j]
        x |= (<unsigned int> t) << (9 + 5 * j)
        g.seats[s].pub_counts[t] += 1
        g.exposed[t] += 1
    g.pub[g.npub] = x
    g.npub += 1
    g.seats[s].pub_n += 1
    g.seats[s].kind_counts[ki] += 1

# The history mode's row kinds (tusac_env.history, the reference): ts_event pushes their rows.
cdef enum:
    HK_DEAL = 1
    HK_QUAN, HK_DISCARD, HK_HIT, HK_PASS, HK_CLAIM, HK_MELD, HK_WIN, HK_PENALTY, HK_DRAW
assert _hist_py.HISTORY_KINDS == ("deal", "quan", "discard", "hit", "pass", "claim", "meld", "win",
                                  "penalty", "draw")
assert HK_DRAW == len(_hist_py.HISTORY_KINDS) and _hist_py.HISTORY_LENGTH == TS_HLEN
assert sg_history_words(TS_HLEN, MAXSEAT) == TS_HWORDS


cdef void ts_history_event(unsigned int *h, int n, int kind, int seat, int a, int b) noexcept nogil:
    """The history rows of event ``kind`` (``ts_event``'s numbers) into the ring ``h``, as
    :func:`tusac_env.history.history_rows` makes them (a meld's rows: :func:`ts_meld_event`;
    the Khap counts and the payments make none)."""
    cdef int row_kind, card = -1, arg = 0
    if kind == EV_DISCARD:
        row_kind, card = HK_DISCARD, a
    elif kind == EV_HIT:
        row_kind, card = HK_HIT, a
    elif kind == EV_PASS:
        row_kind, card = HK_PASS, a
    elif kind == EV_CLAIM:
        row_kind, card, arg = HK_CLAIM, b, a + 1
    elif kind == EV_DEAL:
        row_kind, arg = HK_DEAL, a
    elif kind == EV_QUAN:
        row_kind, card, arg = HK_QUAN, a, KI_QUAN + 1
    elif kind == EV_WIN:
        row_kind, card, arg = HK_WIN, a, b if b < 127 else 127
    elif kind == EV_PENALTY:
        row_kind = HK_PENALTY
    elif kind == EV_DRAW:
        row_kind, seat, arg = HK_DRAW, -1, a
    else:
        return
    sg_history_add(h, TS_HLEN, n, sg_event(row_kind, seat, card, arg))


cdef inline TSEvent *ts_event(TSState *g, unsigned int *h, int kind, int seat, int a, int b) noexcept nogil:
    """A new event record (``("kind", seat, a, b, ...)``, see :func:`_event_tuple`), or NULL
    when the state keeps no record; its history rows pushed to the ring ``h`` unless NULL.
    (Inline, as it was before the history mode: the cards mode pays one test of ``h`` an event,
    the rows are :func:`ts_history_event`'s, out of line.)"""
    cdef TSEvent *e
    if h != NULL:
        ts_history_event(h, g.n, kind, seat, a, b)
    if g.rec == NULL or g.nev >= TS_MAXEV:  # (the cap holds a deal's or a step's events)
        return NULL
    e = &g.rec.ev[g.nev]
    g.nev += 1
    e.kind = kind
    e.seat = seat
    e.a = a
    e.b = b
    e.c = e.d = 0
    return e


cdef void ts_meld_event(TSState *g, unsigned int *h, int s, int ki, int *cards, int ncards) noexcept nogil:
    """The record of ``s``'s meld of set kind ``ki`` (and in the ring ``h``, a row per card)."""
    cdef int j
    cdef TSEvent *e = ts_event(g, NULL, EV_MELD, s, ki, ncards)
    if h != NULL:
        for j in range(ncards):
            sg_history_add(h, TS_HLEN, g.n, sg_event(HK_MELD, s, cards[j], ki + 1))
    if e != NULL:
        for j in range(ncards):
            e.cards[j] = <signed char>cards[j]

# ------------------------------------------------------------ for players (the compiled greedy bot)
cdef int ts_meld_trash(TSState *g, int s, int idx) noexcept nogil:
    """``s``'s trash after melding the active card with meld ``idx`` (held, no Khap broken)."""
    cdef int a = g.active
    cdef int k = COMP_OF[a]
    cdef int code = g.seats[s].codes[k]
    return g.seats[s].trash + COMP_TRASH[k][code - MI_PLACE[a][idx]] - COMP_TRASH[k][code]

cdef int ts_meld_kind(TSState *g, int idx) noexcept nogil:
    """Public set kind index of meld ``idx`` of the active card."""
    return MI_KIND[g.active][idx]

cdef void ts_meld_rest(TSState *g, int s, int idx, unsigned char *rest) noexcept nogil:
    """``rest`` = ``s``'s private counts without the private cards meld ``idx`` uses."""
    cdef int j, a = g.active
    memcpy(rest, g.seats[s].private, NT)
    for j in range(MI_NUSED[a][idx]):
        rest[MI_USED[a][idx][j]] -= 1

cdef void ts_unseen(TSState *g, int s, int *out) noexcept nogil:
    """The cards of each type ``s`` has not seen (:func:`tusac_env.melds.unseen_counts`):
    4 minus its own, every public block, the dead pile and the active card."""
    cdef int t
    for t in range(NT):
        out[t] = 4 - g.seats[s].private[t] - g.exposed[t]
    if g.active >= 0:
        out[g.active] -= 1

cdef void ts_pawn_outs(TSState *g, const unsigned char *counts, int *unseen, int *pawn) noexcept nogil:
    """Outs of a held pawn of each colour (``flow._pawn_outs``): its own copies, and
    with two other pawn colours held every unseen pawn, with one the missing colours'."""
    cdef int c, held = 0, missing = 0
    for c in range(4):
        held += HELD[counts[7 * c + 6]]
        if not HELD[counts[7 * c + 6]]:
            missing += unseen[7 * c + 6]
    for c in range(4):
        if held >= 3:
            pawn[c] = unseen[6] + unseen[13] + unseen[20] + unseen[27]
        elif held == 2:
            pawn[c] = unseen[7 * c + 6] + missing
        else:
            pawn[c] = unseen[7 * c + 6]

cdef int ts_type_outs(TSState *g, const unsigned char *counts, int *unseen, int t, int *pawn) noexcept nogil:
    """Outs of held type ``t`` (as :func:`setgames.kernels.tusac.outs`; ``pawn`` from
    :meth:`_pawn_outs`): its own copies and the trio partner that completes its trio."""
    cdef int y = TRIO_Y[t], z
    if y < 0:
        return pawn[t // 7]
    z = TRIO_Z[t]
    # (masks, not branches: whether a partner is held is a coin flip to the branch predictor)
    return unseen[t] + (unseen[y] & -HELD[counts[z]]) + (unseen[z] & -HELD[counts[y]])

cdef int ts_outs_sum(TSState *g, const unsigned char *counts, int *unseen) noexcept nogil:
    """Sum over the held non-Khap types of ``counts`` of their outs (a Khap, count 3,
    completes nothing)."""
    cdef int t, total = 0
    cdef int pawn[4]
    ts_pawn_outs(g, counts, unseen, pawn)
    for t in range(NT):  # (a mask, not a branch: which types a hand holds is a coin flip to the predictor)
        total += ts_type_outs(g, counts, unseen, t, pawn) & -HELD[counts[t]]
    return total

# ------------------------------------------------------------ worst cards
cdef unsigned int ts_fewest_outs(TSState *g, const unsigned char *counts, int *unseen, int *pawn,
                                 unsigned int legal) noexcept nogil:
    """The types of mask ``legal`` with the fewest outs in the block ``counts`` (``pawn`` from
    :c:func:`ts_pawn_outs`), as a type mask."""
    cdef int t, o, low = 99
    cdef unsigned int worst = 0, m = legal
    while m:
        t = __builtin_ctz(m)
        m &= m - 1
        o = ts_type_outs(g, counts, unseen, t, pawn)
        if o < low:
            low = o
            worst = 1U << t
        elif o == low:
            worst |= 1U << t
    return worst

cdef unsigned int ts_worst(TSState *g) noexcept nogil:
    """The current seat's worst discards as a type mask (:func:`tusac_env.flow.worst_cards`)."""
    cdef int cur
    cdef unsigned int legal, worst
    cdef int unseen[NT]
    cdef int pawn[4]
    if g.worst_ok:
        return g.worst_mask
    cur = g.current
    legal = g.seats[cur].disc if g.phase == PH_DISCARD else 0
    if popcount32(legal) <= 1:
        worst = legal
    else:  # (an active card while discarding: a state the rules never make, refused on load)
        ts_unseen(g, cur, unseen)
        ts_pawn_outs(g, g.seats[cur].private, unseen, pawn)
        worst = ts_fewest_outs(g, g.seats[cur].private, unseen, pawn, legal)
    g.worst_mask = worst
    g.worst_ok = True
    return worst

# ------------------------------------------------------------ legal actions
cdef unsigned long long ts_legal(TSState *g) noexcept nogil:
    """Bit mask of the legal actions (as :func:`tusac_env.flow.legal_now`)."""
    cdef int a, cur = g.current
    if g.phase == PH_DISCARD:
        return (<unsigned long long>g.seats[cur].disc) << DISCARD0
    if g.phase == PH_OVER:
        return 0
    a = g.active
    if g.phase == PH_RESPOND:
        return LEGAL_MELD_MASK[a][g.seats[cur].codes[COMP_OF[a]]] | (1ULL << HIT)
    return LEGAL_MELD_MASK[a][g.seats[cur].codes[COMP_OF[a]]] | (1ULL << PASS)

cdef int ts_apply(TSState *g, int action, unsigned int *h) noexcept nogil:
    """Play a legal ``action`` (unchecked), its automatic claims and game end: 1 when the game
    ended, else 0. The history rows go to the ring ``h`` (NULL: none, as in the cards mode and
    in every copy the search, the play-outs and the greedy bot step)."""
    cdef int cur = g.current, t, old, a, k, after, idx, how, src
    if action >= DISCARD0:
        t = action - DISCARD0
        g.discard_worst = (ts_worst(g) >> t) & 1
        ts_take_discard(g, cur, t)
        ts_event(g, h, EV_DISCARD, cur, t, 0)
        g.worst_ok = False
        g.active = t
        g.active_from = cur
        g.active_how = BY_DISCARD
        g.active_passed = False
        g.current = (cur + 1) % g.n
        g.phase = PH_RESPOND
        if (g.hot_any >> t) & 1 and ts_claim(g, cur, h):
            return g.phase == PH_OVER
        return 0
    if action == HIT:
        if g.draw_len <= DRAW_LIMIT:
            ts_event(g, h, EV_HIT, cur, -1, g.active)
            g.worst_ok = False
            ts_finish_draw(g, h)
            return 1
        old = g.active
        g.dead[old] += 1
        g.exposed[old] += 1
        g.draw_len -= 1
        t = g.draw[g.draw_len]
        ts_event(g, h, EV_HIT, cur, t, old)
        g.worst_ok = False
        g.active = t
        g.active_from = cur
        g.active_how = BY_HIT
        g.active_passed = False
        g.phase = PH_AFTER_HIT
        if (g.hot_any >> t) & 1 and ts_claim(g, -1, h):
            return g.phase == PH_OVER
        return 0
    if action == PASS:
        a = g.active
        ts_event(g, h, EV_PASS, cur, a, 0)
        g.worst_ok = False
        g.current = (cur + 1) % g.n
        g.phase = PH_RESPOND
        g.active_passed = True
        return 0
    # a meld chosen by the current player
    a = g.active
    idx = action
    after = ts_meld_trash(g, cur, idx)
    if MI_NUSED[a][idx]:
        ts_remove(g, cur, a, idx, after)
    ts_put_public(g, cur, MI_KIND[a][idx], MI_CARDS[a][idx], MI_NCARDS[a][idx])
    ts_meld_event(g, h, cur, MI_KIND[a][idx], MI_CARDS[a][idx], MI_NCARDS[a][idx])
    how = g.active_how
    src = g.active_from
    g.worst_ok = False
    g.active = -1
    g.active_from = -1
    g.active_how = 0
    g.active_passed = False
    if after == 0:
        ts_finish_win(g, h, cur, a, how, src)
        return 1
    g.phase = PH_DISCARD
    return 0

cdef void ts_take_discard(TSState *g, int s, int t) noexcept nogil:
    """As :func:`tusac_env.melds.take_discard`: one legal discard out of ``s``'s block."""
    cdef int k = COMP_OF[t]
    cdef int code
    g.seats[s].private[t] -= 1
    code = g.seats[s].codes[k] = g.seats[s].codes[k] - PLACE[t]
    g.seats[s].trash -= 1
    g.seats[s].size -= 1
    g.seats[s].ctrash[k] -= 1
    g.seats[s].disc = (g.seats[s].disc & ~COMP_BITS[k]) | COMP_DISCARD[k][code]
    g.seats[s].high &= ~(1U << t)
    ts_win_and_hot(g, s)
    ts_union(g)

cdef int ts_win_meld(TSState *g, int s, int a) noexcept nogil:
    """The best winning meld index of active ``a`` for ``s`` (KHUI_IDX for a Khui),
    -1 when none (as :func:`tusac_env.claims.win_meld`)."""
    cdef int trash = g.seats[s].trash, k, code, base = 0, j, best_v = -1, best = -1, idx, rest, v
    if trash > 3:
        return -1
    k = COMP_OF[a]
    code = g.seats[s].codes[k]
    for j in range(NCOMP):
        if j != k:
            base += COMP_VALUE[j][g.seats[s].codes[j]]
    if g.seats[s].private[a] == 3 and trash == 0:
        best_v = KHUI_VALUE + base + COMP_VALUE[k][code - 3 * PLACE[a]]
        best = KHUI_IDX
    for j in range(OPT_N[a][code]):
        idx = OPT_IDX[a][code][j]
        rest = base + COMP_VALUE[k][code - MI_PLACE[a][idx]]
        if rest < 0:
            continue
        v = KIND_VALUE[MI_KIND[a][idx]] + rest
        if v > best_v:
            best_v = v
            best = idx
    if best_v < 0:
        return -1
    return best

cdef bint ts_claim(TSState *g, int exclude, unsigned int *h) noexcept nogil:
    """The automatic claims on the newly active card, in priority order
    (as :func:`tusac_env.claims.claim`); True when one was made."""
    cdef int n = g.n, a = g.active, cur = g.current
    cdef int seats[MAXSEAT]
    cdef int ns = 0, i, s, idx, how, src, trash, k, code, after
    cdef int cards[4]
    for i in range(n):
        s = (cur + i) % n
        if (g.seats[s].hot >> a) & 1 and s != exclude:
            seats[ns] = s
            ns += 1
    for i in range(ns):
        s = seats[i]
        if not (g.seats[s].win >> a) & 1:
            continue
        idx = ts_win_meld(g, s, a)
        ts_event(g, h, EV_CLAIM, s, CL_WIN, a)
        g.claim_kind = CL_WIN
        g.claim_seat = s
        how = g.active_how
        src = g.active_from
        if idx == KHUI_IDX:
            ts_remove(g, s, a, KHUI_IDX, 0)
            ts_drop_khap(g, s, a)
            cards[0] = cards[1] = cards[2] = cards[3] = a
            ts_put_public(g, s, KI_KHUI, cards, 4)
            ts_meld_event(g, h, s, KI_KHUI, cards, 4)
        else:
            if MI_NUSED[a][idx]:
                ts_remove(g, s, a, idx, 0)
            ts_put_public(g, s, MI_KIND[a][idx], MI_CARDS[a][idx], MI_NCARDS[a][idx])
            ts_meld_event(g, h, s, MI_KIND[a][idx], MI_CARDS[a][idx], MI_NCARDS[a][idx])
        g.active = -1
        ts_finish_win(g, h, s, a, how, src)
        return True
    for i in range(ns):
        s = seats[i]
        if g.seats[s].private[a] == 3:
            ts_event(g, h, EV_CLAIM, s, CL_KHUI, a)
            g.claim_kind = CL_KHUI
            g.claim_seat = s
            ts_remove(g, s, a, KHUI_IDX, g.seats[s].trash)  # a Khap is never trash
            ts_drop_khap(g, s, a)
            cards[0] = cards[1] = cards[2] = cards[3] = a
            ts_put_public(g, s, KI_KHUI, cards, 4)
            ts_meld_event(g, h, s, KI_KHUI, cards, 4)
            ts_to_claimer(g, s)
            return True
    if a % 7 == 0:  # pair priority never takes a king
        return False
    for i in range(ns):
        s = seats[i]
        if s == cur or g.seats[s].private[a] != 2:
            continue
        trash = g.seats[s].trash
        k = COMP_OF[a]
        code = g.seats[s].codes[k]
        after = trash + COMP_TRASH[k][code - 2 * PLACE[a]] - COMP_TRASH[k][code]
        if after > trash or (trash == 2 and ts_is_waiting(g, s)):
            return False  # only one seat can hold a pair of the type
        ts_event(g, h, EV_CLAIM, s, CL_PAIR, a)
        g.claim_kind = CL_PAIR
        g.claim_seat = s
        ts_remove(g, s, a, TRIPLE_IDX, after)
        ts_put_public(g, s, MI_KIND[a][TRIPLE_IDX], MI_CARDS[a][TRIPLE_IDX], MI_NCARDS[a][TRIPLE_IDX])
        ts_meld_event(g, h, s, MI_KIND[a][TRIPLE_IDX], MI_CARDS[a][TRIPLE_IDX], MI_NCARDS[a][TRIPLE_IDX])
        ts_to_claimer(g, s)
        return True
    return False

cdef bint ts_is_waiting(TSState *g, int s) noexcept nogil:
    """As :func:`tusac_env.claims._is_waiting`."""
    cdef int k
    if g.seats[s].trash != 2:
        return False
    for k in range(NCOMP):
        if g.seats[s].ctrash[k] == 2:
            return WAITING[k][g.seats[s].codes[k]]
    return False

cdef void ts_to_claimer(TSState *g, int s) noexcept nogil:
    g.active = -1
    g.active_from = -1
    g.active_how = 0
    g.active_passed = False
    g.current = s
    g.phase = PH_DISCARD
    g.worst_ok = False


cdef int ts_legal_list(TSState *g, int *out) noexcept nogil:
    """The legal ids of ``g``, ascending, into ``out``; their count."""
    cdef unsigned long long x = ts_legal(g)
    cdef int n = 0
    while x:
        out[n] = __builtin_ctzll(x)
        n += 1
        x &= x - 1
    return n


# ---------------------------------------------------------------- game end (as tusac_env.scoring)

cdef void ts_finish_win(TSState *g, unsigned int *h, int seat, int card, int how, int src) noexcept nogil:
    """End the game with ``seat`` winning on ``card`` (-1 for a dealt hand) and pay everyone,
    as :func:`tusac_env.scoring.finish_win` (``tests/tusac/test_engine.py`` compares the two)."""
    cdef int n = g.n, x, y, k, loser, quans, khuis, khaps, total
    cdef bint doubled, penalized
    cdef int net[MAXSEAT]
    cdef TSEvent *e
    g.winner = seat
    g.result = RES_WIN if card >= 0 else RES_FIRST_HAND_WIN
    g.win_card = card
    g.win_how = how
    g.win_from = src
    total = 0
    for k in range(NCOMP):
        total += COMP_VALUE[k][g.seats[seat].codes[k]]
    for k in range(NKINDS):
        total += g.seats[seat].kind_counts[k] * KIND_VALUE[k]
    g.value = total
    doubled = g.seats[seat].kind_counts[KI_QUAN] > 0 or g.seats[seat].kind_counts[KI_KHUI] > 0
    g.amount = (3 + total) * 2 + 10 if doubled else (3 + total) + 10
    e = ts_event(g, h, EV_WIN, seat, card, g.value)
    if e != NULL:
        e.c = g.amount
    penalized = g.penalty_rule and card >= 0 and how == BY_DISCARD and not g.discard_worst
    g.npay = 0
    for loser in range(n):
        if loser != seat:
            if penalized:
                ts_pay(g, src, seat, g.amount, PAY_PENALTY, loser)
            else:
                ts_pay(g, loser, seat, g.amount, PAY_WIN, -1)
    if penalized:
        g.penalized = src
        ts_event(g, h, EV_PENALTY, src, g.amount * (n - 1), 0)
    for x in range(n):
        if x == seat:
            continue
        quans = g.seats[x].kind_counts[KI_QUAN]
        khuis = g.seats[x].kind_counts[KI_KHUI]
        khaps = popcount32(g.seats[x].khaps)
        for y in range(n):
            if y == x:
                continue
            if quans:
                ts_pay(g, y, x, QUAN_SIDE * quans, PAY_QUAN, -1)
            if khuis:
                ts_pay(g, y, x, KHUI_SIDE * khuis, PAY_KHUI, -1)
            if khaps and y != seat:
                ts_pay(g, y, x, KHAP_SIDE * khaps, PAY_KHAP, -1)
    for x in range(n):
        net[x] = 0
    for k in range(g.npay):
        net[g.pays[k].payer] -= g.pays[k].amount
        net[g.pays[k].payee] += g.pays[k].amount
        e = ts_event(g, h, EV_PAY, g.pays[k].payer, g.pays[k].payee, g.pays[k].amount)
        if e != NULL:
            e.c = g.pays[k].reason
            e.d = g.pays[k].loser
    for x in range(n):
        g.returns[x] = (<double>net[x]) * g.reward_scale
    g.has_returns = True
    ts_end(g)


cdef void ts_pay(TSState *g, int payer, int payee, int amount, int reason, int loser) noexcept nogil:
    cdef TSPay *p
    if g.npay >= TS_MAXPAY:  # (unreachable: a game end pays 3 + 27 at most)
        return
    p = &g.pays[g.npay]
    g.npay += 1
    p.payer = <signed char>payer
    p.payee = <signed char>payee
    p.amount = amount
    p.reason = <signed char>reason
    p.loser = <signed char>loser


cdef void ts_finish_draw(TSState *g, unsigned int *h) noexcept nogil:
    """End the game drawn: no payments (:func:`tusac_env.scoring.finish_draw`)."""
    cdef int x
    g.result = RES_DRAW
    ts_event(g, h, EV_DRAW, -1, g.draw_len, 0)
    g.npay = 0
    for x in range(g.n):
        g.returns[x] = 0.0
    g.has_returns = True
    ts_end(g)


cdef void ts_end(TSState *g) noexcept nogil:
    g.phase = PH_OVER
    g.current = -1
    g.worst_ok = False


# ---------------------------------------------------------------- deal, observation

cdef void ts_deal(TSState *g, sg_pcg64 *rng, unsigned int *h) noexcept nogil:
    """Shuffle and deal a new game: the state ``game.new_state(np.random.default_rng(seed))``
    makes when ``rng`` is ``PCG64(seed)`` (:func:`tusac_env.flow.deal`'s draws: ``integers(n)``
    for a random first player, then the shuffle of the 112 card types); the ring ``h`` (unless
    NULL) restarts with the deal's rows."""
    cdef int j, first
    cdef signed char deck[112]
    first = <int>sg_lemire(sg_pcg64_next32_v, rng, g.n) if g.first_player < 0 else g.first_player
    for j in range(112):
        deck[j] = <signed char>(j // 4)
    sg_shuffle_schar(rng, deck, 112)
    ts_deal_cards(g, first, deck, h)


cdef void ts_deal_cards(TSState *g, int first, const signed char *deck, unsigned int *h) noexcept nogil:
    """Deal the shuffled card types ``deck`` (112) with ``first`` dealt 21 cards and to act
    (:func:`tusac_env.flow.deal` after its draws, and :func:`tusac_env.flow.start`); the ring
    ``h`` (unless NULL) emptied, then given the deal's rows."""
    cdef int n = g.n, s, t, i, j, seat, dealt
    cdef int order[MAXSEAT]
    cdef int cards[4]
    g.first = first
    g.nev = 0
    if h != NULL:
        sg_history_reset(h, TS_HLEN, n)
    for i in range(n):
        order[i] = (first + i) % n
    g.npub = 0
    for s in range(MAXSEAT):
        memset(g.seats[s].private, 0, NT)
        memset(g.seats[s].pub_counts, 0, NT)
        memset(g.seats[s].kind_counts, 0, NKIND)
        g.seats[s].pub_n = 0
    dealt = FIRST_DEAL + HAND_SIZE * (n - 1)
    for j in range(dealt):
        i = 0 if j < FIRST_DEAL else 1 + (j - FIRST_DEAL) // HAND_SIZE
        g.seats[order[i]].private[deck[j]] += 1
    g.draw_len = 112 - dealt
    for j in range(g.draw_len):
        g.draw[j] = deck[dealt + j]
    memset(g.dead, 0, sizeof(g.dead))
    memset(g.exposed, 0, sizeof(g.exposed))
    g.active = -1
    g.active_from = -1
    g.active_how = 0
    g.active_passed = False
    g.discard_worst = True
    g.winner = -1
    g.result = RES_NONE
    g.win_card = -1
    g.win_how = 0
    g.win_from = -1
    g.value = 0
    g.amount = 0
    g.penalized = -1
    g.npay = 0
    g.has_returns = False
    g.claim_kind = -1
    g.claim_seat = -1
    # tusac_env.flow.start: deal sizes, Quans, Khap counts
    for i in range(n):
        ts_event(g, h, EV_DEAL, order[i], FIRST_DEAL if i == 0 else HAND_SIZE, 0)
    for i in range(n):
        seat = order[i]
        for t in range(NT):
            if g.seats[seat].private[t] == 4:
                g.seats[seat].private[t] = 0
                cards[0] = cards[1] = cards[2] = cards[3] = t
                ts_put_public(g, seat, KI_QUAN, cards, 4)
                ts_event(g, h, EV_QUAN, seat, t, 0)
    for s in range(n):
        ts_init_seat(g, s)
    ts_union(g)
    for i in range(n):
        ts_event(g, h, EV_KHAPS, order[i], popcount32(g.seats[order[i]].khaps), 0)
    g.worst_ok = False
    g.current = first
    g.phase = PH_DISCARD
    if g.seats[first].trash == 0:
        ts_finish_win(g, h, first, -1, 0, -1)


cdef void ts_choice(sg_next32_fn next32, void *st, int pop, int k, int *idx) noexcept nogil:
    """``Generator.choice(pop, size=k, replace=False)`` into ``idx``, draw for draw: numpy's
    Floyd sampling (``integers(j + 1)`` for ``j`` from ``pop - k`` up, ``j`` itself when the
    draw was already taken), then its shuffle of the ``k`` picks by ``integers(i + 1)`` swaps."""
    cdef int i, j, q, v, tmp, base = pop - k
    cdef bint taken
    for j in range(base, pop):
        v = <int>sg_lemire(next32, st, j + 1)
        taken = False
        for q in range(j - base):
            if idx[q] == v:
                taken = True
                break
        idx[j - base] = j if taken else v
    for i in range(k - 1, 0, -1):
        q = <int>sg_lemire(next32, st, i + 1)
        tmp = idx[i]
        idx[i] = idx[q]
        idx[q] = tmp


cdef bint ts_deal_hidden(TSState *g, int seat, sg_next32_fn next32, void *st, const int *pool,
                         int hands[MAXSEAT][NT], signed char *rest, int *nrest) noexcept nogil:
    """One try of :func:`tusac_env.rules.deal_hidden` with the same draws: the other seats'
    blocks of their sizes from the unseen counts ``pool``, each with as many Khaps as it holds
    (triples of types picked by :func:`ts_choice`) and no other type three times, in seat
    order from the shuffled rest; what is left (``nrest`` cards) is the draw pile. False when
    this try cannot keep the Khap counts. Writes only ``hands``, ``rest`` and ``nrest``."""
    cdef int avail[NT]
    cdef int cands[NT]
    cdef int picks[NT]
    cdef int s, t, i, j, k, ncand, need, r, w, m = 0
    cdef signed char tmp
    memcpy(avail, pool, NT * sizeof(int))
    memset(hands, 0, MAXSEAT * NT * sizeof(int))
    for s in range(g.n):
        k = popcount32(g.seats[s].khaps)
        if s == seat or k == 0:
            continue
        ncand = 0
        for t in range(NT):
            if avail[t] >= 3:
                cands[ncand] = t
                ncand += 1
        if ncand < k:
            return False
        ts_choice(next32, st, ncand, k, picks)
        for i in range(k):
            t = cands[picks[i]]
            hands[s][t] = 3
            avail[t] -= 3
    # The rest in ascending type order, shuffled with the swaps of ``permutation`` (which
    # shuffles the indices of that list: the same order).
    for t in range(NT):
        for i in range(avail[t]):
            rest[m] = <signed char>t
            m += 1
    for i in range(m - 1, 0, -1):
        j = <int>sg_interval(next32, st, i)
        tmp = rest[i]
        rest[i] = rest[j]
        rest[j] = tmp
    for s in range(g.n):
        if s == seat:
            continue
        need = g.seats[s].size - 3 * popcount32(g.seats[s].khaps)
        w = 0
        for r in range(m):
            t = rest[r]
            if need > 0 and hands[s][t] < 2:  # a third copy would be a Khap never announced
                hands[s][t] += 1
                need -= 1
            else:
                rest[w] = <signed char>t  # kept in order, for the next seat and the pile
                w += 1
        if need:
            return False
        m = w
    nrest[0] = m
    return True


cdef bint ts_redeal_from(TSState *g, int seat, sg_next32_fn next32, void *st) noexcept nogil:
    """:c:func:`ts_redeal` drawing from any 32-bit source (``sg_bitgen_next32`` and a numpy
    ``bitgen_t``: :meth:`Engine.redeal`). True when a deal was found, False when the true
    cards were kept."""
    cdef int pool[NT]
    cdef int hands[MAXSEAT][NT]
    cdef signed char rest[112]
    cdef int s, t, i, tries, nrest = 0
    # determinize keeps the worst-discard cache of the seat to act when it is ``seat``: that
    # block, and what it has seen, are what they were.
    cdef bint worst_ok = g.worst_ok and seat == g.current
    cdef unsigned int worst_mask = g.worst_mask
    ts_unseen(g, seat, pool)
    for tries in range(DETERMINIZE_TRIES):
        if ts_deal_hidden(g, seat, next32, st, pool, hands, rest, &nrest):
            break
    else:
        return False
    for s in range(g.n):
        if s != seat:
            for t in range(NT):
                g.seats[s].private[t] = <unsigned char>hands[s][t]
    g.draw_len = nrest
    for i in range(nrest):
        g.draw[i] = rest[i]
    ts_rebuild(g)
    g.worst_ok = worst_ok
    g.worst_mask = worst_mask
    return True


cdef void ts_redeal(TSState *g, int seat, sg_pcg64 *rng) noexcept nogil:
    """``game.determinize(state, seat, Generator(rng))`` in place, draw for draw: the cards
    ``seat`` has not seen (the other private blocks and the draw pile) re-dealt by up to
    ``DETERMINIZE_TRIES`` tries of :func:`ts_deal_hidden`, keeping every public fact (public
    blocks, dead pile, active card, block sizes, Khap counts); the true cards stay when no try
    succeeds. The caches follow (:c:func:`ts_rebuild`)."""
    ts_redeal_from(g, seat, sg_pcg64_next32_v, rng)


cdef inline int _rel(int s, int v, int n) noexcept nogil:
    """Seat ``s`` relative to observer ``v`` (0: ``v`` itself, then the seats after it)."""
    return s - v + n if s < v else s - v


cdef void ts_observe(TSState *g, int seat, unsigned char *b) noexcept nogil:
    """``seat``'s observation (``game.observe``) into the ``obs_size`` bytes at ``b``.

    Built here from the counts rather than kept per seat and patched by the step (as
    :mod:`tusac_env.observation` does): a step then writes only the state it changes,
    and a state is a third of the bytes. The Khap flags and counts are the
    Khap masks (a Khap broken into a meld stays flagged, as the rules layer keeps it)."""
    cdef const TSLayout *L = &LAYOUT[g.n]
    cdef unsigned int m
    cdef int n = g.n, a = g.active, cur = g.current, r, s
    memset(b, 0, L.size)
    memcpy(b, g.seats[seat].private, NT)  # (the private counts open the vector: checked at load)
    m = g.seats[seat].khaps
    while m:
        b[L.khap + __builtin_ctz(m)] = 1
        m &= m - 1
    for r in range(n):
        s = seat + r if seat + r < n else seat + r - n
        b[L.sizes + r] = g.seats[s].size
        b[L.khc + r] = popcount32(g.seats[s].khaps)
        memcpy(b + L.pub + NT * r, g.seats[s].pub_counts, NT)
        memcpy(b + L.kinds + NKINDS * r, g.seats[s].kind_counts, NKINDS)
    memcpy(b + L.dead, g.dead, NT)
    if a >= 0:
        b[L.active + a] = 1
        b[L.from_ + _rel(g.active_from, seat, n)] = 1
        b[L.how if g.active_how == BY_DISCARD else L.how + 1] = 1
        if g.active_passed:
            b[L.passed] = 1
    b[L.draw] = g.draw_len
    if cur >= 0:
        b[L.current + _rel(cur, seat, n)] = 1
        b[L.phase + g.phase] = 1
        if g.phase == PH_DISCARD and cur == seat:
            m = ts_worst(g)
            while m:
                b[L.worst + __builtin_ctz(m)] = 1
                m &= m - 1
    else:
        if g.winner >= 0:
            b[L.winner + _rel(g.winner, seat, n)] = 1
        if g.result == RES_DRAW:
            b[L.drawn] = 1
    b[L.trash] = g.seats[seat].trash
    if g.claim_seat >= 0:
        b[L.claim + g.claim_kind] = 1
        b[L.claimer + _rel(g.claim_seat, seat, n)] = 1


cdef unsigned long long ts_fill_mask(TSState *g, char *m) noexcept nogil:
    """1 at the legal actions of the ``TS_N_ACTIONS`` bytes at ``m`` (the rest untouched); returns
    their bits (``ts_legal``'s)."""
    cdef unsigned long long legal = ts_legal(g), x = legal
    while x:
        m[__builtin_ctzll(x)] = 1
        x &= x - 1
    return legal


# ---------------------------------------------------------------- structure mode (tusac_env.structure)

ctypedef struct TSSLayout:
    # where tusac_env.structure's block starts in the structure vector of n players (the cards
    # vector's size), the vector's size, and each feature's offset within the block
    int cards, size
    int unseen, trash_types, outs, worst, settled, comp, win, win_outs, waiting, pair, khui_outs
    int pair_threat, khui_threat, pub_value, doubled, stake

ctypedef struct TSALayout:
    # offsets of one row of tusac_env.structure.make_action_spec
    int size
    int kind, card, used, meld_kind, meld_value, trash_after, wins, outs_after, win_outs_after
    int waiting_after, card_outs, card_worst, card_unseen, card_pair_threat, card_khui_threat

cdef TSSLayout SLAYOUT[MAXSEAT + 1]
cdef TSALayout ALAYOUT
cdef int S_CAP = _structure.CAP
cdef int S_MAX_OUTS = _structure.MAX_OUTS
cdef int MELD_KIND_OF[NKIND]   # public kind index -> index in structure.MELD_KINDS (-1: none)


def _fill_structure_layouts():
    """Copy the offsets of the structure and action specs (once, at load)."""
    cdef TSSLayout *L
    for n in (2, 3, 4):
        spec = _structure.make_structure_spec(n)
        L = &SLAYOUT[n]
        L.cards = LAYOUT[n].size
        L.size = spec.size
        off = {name: sl.start - L.cards for name, sl in spec.slices.items()}
        assert off["unseen"] == 0 and spec.size - L.cards <= MAXSOBS
        L.unseen, L.trash_types, L.outs = off["unseen"], off["trash_types"], off["outs"]
        L.worst, L.settled, L.comp = off["worst_types"], off["settled"], off["comp_trash"]
        L.win, L.win_outs, L.waiting = off["win_types"], off["win_outs"], off["waiting"]
        L.pair, L.khui_outs = off["pair_types"], off["khui_outs"]
        L.pair_threat, L.khui_threat = off["pair_threat"], off["khui_threat"]
        L.pub_value, L.doubled, L.stake = off["public_value"], off["doubled"], off["stake"]
    spec = _structure.make_action_spec(4)
    off = {name: sl.start for name, sl in spec.slices.items()}
    A = &ALAYOUT
    A.size = spec.size
    assert spec.size <= MAXAFEAT
    A.kind, A.card, A.used, A.meld_kind = off["kind"], off["card"], off["used"], off["meld_kind"]
    A.meld_value, A.trash_after, A.wins = off["meld_value"], off["trash_after"], off["wins"]
    A.outs_after, A.win_outs_after, A.waiting_after = off["outs_after"], off["win_outs_after"], off["waiting_after"]
    A.card_outs, A.card_worst, A.card_unseen = off["card_outs"], off["card_worst"], off["card_unseen"]
    A.card_pair_threat, A.card_khui_threat = off["card_pair_threat"], off["card_khui_threat"]
    for k in range(NKIND):
        MELD_KIND_OF[k] = -1
    for k, name in enumerate(PUBLIC_KINDS):
        if name in _structure.MELD_KINDS:
            MELD_KIND_OF[k] = _structure.MELD_KINDS.index(name)


_fill_structure_layouts()
for _n in (2, 3, 4):
    assert _hist_py.make_history_spec(_n).size == LAYOUT[_n].size + 4 * TS_HLEN + 1


cdef int ts_history_size(int n) noexcept nogil:
    """Bytes of the history vector of ``n`` players (the cards vector and the event block)."""
    return LAYOUT[n].size + 4 * TS_HLEN + 1


cdef void ts_history(const unsigned int *h, int seat, unsigned char *out) noexcept nogil:
    """``seat``'s event block of the ring ``h`` into ``out``, the bytes after the
    cards vector (:func:`tusac_env.history.history_bytes`; the engine's and the batch's writer)."""
    sg_history_block(h, TS_HLEN, seat, <signed char *> out)


cdef int ts_structure_size(int n) noexcept nogil:
    """Bytes of the structure vector of ``n`` players (the cards vector and the block)."""
    return SLAYOUT[n].size

cdef inline bint _others_khap(TSState *g, int seat) noexcept nogil:
    """Whether a player other than ``seat`` holds a Khap (the Khap counts are public)."""
    cdef int s
    for s in range(g.n):
        if s != seat and g.seats[s].khaps:
            return True
    return False

cdef inline int _cap(int v, int top) noexcept nogil:
    return v if v < top else top

# Byte-spread of an 8-bit mask: byte j of the word = bit j of the mask (flag rows written
# four words at a time instead of a branch per type).
cdef unsigned long long SPREAD8[256]
for _m in range(256):
    SPREAD8[_m] = sum(((_m >> _j) & 1) << (8 * _j) for _j in range(8))
cdef unsigned int NOT_KING = sum(1 << _t for _t in range(NT) if _t % 7 != 0)  # (pair claims skip kings)


cdef inline void _flags(unsigned char *at, unsigned int mask) noexcept nogil:
    """The 28 bytes at ``at``: 1 where ``mask`` has the type's bit, else 0 (word stores)."""
    memcpy(at, &SPREAD8[mask & 255], 8)
    memcpy(at + 8, &SPREAD8[(mask >> 8) & 255], 8)
    memcpy(at + 16, &SPREAD8[(mask >> 16) & 255], 8)
    memcpy(at + 24, &SPREAD8[(mask >> 24) & 255], 4)


# Type masks of 28 count bytes (bit t: byte t equals / is at least v), SSE2 where there is
# SSE2 (every x86-64): two overlapping 16-byte compares instead of a branch per type.
cdef extern from *:
    """
    #if defined(__SSE2__)
    #include <emmintrin.h>
    static inline unsigned int ts_mask_eq(const unsigned char *p, int v) {
        __m128i k = _mm_set1_epi8((char) v);
        unsigned int lo = (unsigned int) _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *) p), k));
        unsigned int hi = (unsigned int) _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *) (p + 12)), k));
        return lo | hi << 12;
    }
    static inline unsigned int ts_mask_ge(const unsigned char *p, int v) {
        __m128i k = _mm_set1_epi8((char) (v - 1));
        unsigned int lo = (unsigned int) _mm_movemask_epi8(_mm_cmpgt_epi8(_mm_loadu_si128((const __m128i *) p), k));
        unsigned int hi = (unsigned int) _mm_movemask_epi8(_mm_cmpgt_epi8(_mm_loadu_si128((const __m128i *) (p + 12)), k));
        return lo | hi << 12;
    }
    #else
    static inline unsigned int ts_mask_eq(const unsigned char *p, int v) {
        unsigned int m = 0; int t;
        for (t = 0; t < 28; t++) m |= (unsigned int) (p[t] == v) << t;
        return m;
    }
    static inline unsigned int ts_mask_ge(const unsigned char *p, int v) {
        unsigned int m = 0; int t;
        for (t = 0; t < 28; t++) m |= (unsigned int) (p[t] >= v) << t;
        return m;
    }
    #endif
    """
    unsigned int ts_mask_eq(const unsigned char *p, int v) nogil
    unsigned int ts_mask_ge(const unsigned char *p, int v) nogil


cdef void ts_structure(TSState *g, int seat, unsigned char *b) noexcept nogil:
    """``seat``'s structure block (:func:`tusac_env.structure.structure_block`) into the row ``b``,
    after its cards part (which :c:func:`ts_observe` writes)."""
    # Built in a local buffer and copied once: stores through the row's char pointer could
    # alias anything, and the compiler would reload the state's fields after each.
    cdef TSSLayout L = SLAYOUT[g.n]
    cdef unsigned char blk[MAXSOBS]     # (MAXSOBS: the block's bytes, checked at load)
    cdef int n = g.n, t, k, s, r, v, low, win_outs = 0, khui_outs = 0
    cdef int unseen[NT]
    cdef int outs[NT]
    cdef int pawn[4]
    cdef const unsigned char *own = g.seats[seat].private
    cdef unsigned int disc = g.seats[seat].disc, win = g.seats[seat].win, m
    cdef unsigned int held = 0, two = 0, khap = 0, u2 = 0, u3 = 0, clean = 0, worst
    cdef bint dbl
    ts_unseen(g, seat, unseen)
    b += L.cards
    for t in range(NT):
        blk[L.unseen + t] = unseen[t]
    two = ts_mask_eq(own, 2)
    khap = ts_mask_eq(own, 3)
    held = (ts_mask_eq(own, 1) | two)
    u2 = ts_mask_ge(blk + L.unseen, 2)
    u3 = ts_mask_eq(blk + L.unseen, 3)
    memset(blk + L.outs, 0, NT)
    ts_pawn_outs(g, own, unseen, pawn)
    m = held
    while m:
        t = __builtin_ctz(m)
        m &= m - 1
        outs[t] = ts_type_outs(g, own, unseen, t, pawn)
        blk[L.outs + t] = _cap(outs[t], S_MAX_OUTS)
    # The worst: the fewest outs among the trash-lowering types (ts_worst's test, on the outs
    # just counted: every such type is held).
    worst = disc
    if popcount32(disc) > 1:
        low = 99
        m = disc
        while m:
            t = __builtin_ctz(m)
            m &= m - 1
            if outs[t] < low:
                low = outs[t]
                worst = 1U << t
            elif outs[t] == low:
                worst |= 1U << t
    for k in range(NCOMP):
        blk[L.comp + k] = g.seats[seat].ctrash[k]
        clean |= COMP_BITS[k] & -(<unsigned int> (g.seats[seat].ctrash[k] == 0))
    m = win
    while m:
        win_outs += unseen[__builtin_ctz(m)]
        m &= m - 1
    m = khap
    while m:
        khui_outs += unseen[__builtin_ctz(m)]
        m &= m - 1
    _flags(blk + L.trash_types, disc)
    _flags(blk + L.worst, worst)
    _flags(blk + L.settled, held & clean)
    _flags(blk + L.win, win)
    _flags(blk + L.pair, two & NOT_KING)
    _flags(blk + L.pair_threat, u2 & NOT_KING if n >= 3 else 0)
    _flags(blk + L.khui_threat, u3 if _others_khap(g, seat) else 0)
    blk[L.win_outs] = _cap(win_outs, S_CAP)
    blk[L.waiting] = ts_is_waiting(g, seat)
    blk[L.khui_outs] = khui_outs
    for r in range(n):
        s = seat + r if seat + r < n else seat + r - n
        v = 0
        dbl = False
        if g.seats[s].pub_n:  # (most seats have no public set for most of a game)
            for k in range(NKINDS):
                v += g.seats[s].kind_counts[k] * KIND_VALUE[k]
            dbl = g.seats[s].kind_counts[KI_QUAN] + g.seats[s].kind_counts[KI_KHUI] > 0
        blk[L.pub_value + r] = _cap(v, S_CAP)
        blk[L.doubled + r] = dbl
        blk[L.stake + r] = _cap((3 + v) * (2 if dbl else 1) + 10, S_CAP)
    memcpy(b, blk, L.size - L.cards)


cdef void _after(TSState *g, int seat, int k, int code, const unsigned char *rest, int *unseen,
                 signed char *row) noexcept nogil:
    """The ``*_after`` facts of ``seat``'s block ``rest`` (component ``k`` now ``code``, the others
    as they are) into ``row``. The trash, win mask and waiting test are the step's own
    (:c:func:`ts_win_and_hot`, :c:func:`ts_is_waiting`), run on seat 0 of a scratch state
    holding just what they read."""
    cdef const TSALayout *A = &ALAYOUT
    cdef TSState t
    cdef int j, win_outs = 0
    cdef unsigned int m
    memcpy(t.seats[0].codes, g.seats[seat].codes, NCOMP)
    memcpy(t.seats[0].ctrash, g.seats[seat].ctrash, NCOMP)
    t.seats[0].codes[k] = code
    t.seats[0].ctrash[k] = COMP_TRASH[k][code]
    t.seats[0].trash = g.seats[seat].trash + COMP_TRASH[k][code] - g.seats[seat].ctrash[k]
    t.seats[0].high = 0
    ts_win_and_hot(&t, 0)
    m = t.seats[0].win
    while m:
        win_outs += unseen[__builtin_ctz(m)]
        m &= m - 1
    row[A.trash_after] = t.seats[0].trash
    row[A.outs_after] = _cap(ts_outs_sum(g, rest, unseen), S_CAP)
    row[A.win_outs_after] = _cap(win_outs, S_CAP)
    row[A.waiting_after] = ts_is_waiting(&t, 0)


cdef void ts_action_features(TSState *g, int seat, signed char *out) noexcept nogil:
    """``seat``'s per-action rows (:func:`tusac_env.structure.action_features`) into the
    ``TS_N_ACTIONS`` rows at ``out`` (zero rows for the illegal actions; all zero unless
    ``seat`` is to act)."""
    cdef const TSALayout *A = &ALAYOUT
    cdef unsigned long long legal
    cdef unsigned int worst = 0
    cdef int action, t, a, k, code, j, n = g.n
    cdef int unseen[NT]
    cdef int pawn[4]
    cdef unsigned char rest[NT]
    cdef signed char *row
    cdef bint others
    memset(out, 0, TS_N_ACTIONS * A.size)
    if g.phase == PH_OVER or g.current != seat:
        return
    legal = ts_legal(g)
    ts_unseen(g, seat, unseen)
    ts_pawn_outs(g, g.seats[seat].private, unseen, pawn)
    others = _others_khap(g, seat)
    if g.phase == PH_DISCARD:
        worst = ts_worst(g)
    while legal:
        action = __builtin_ctzll(legal)
        legal &= legal - 1
        row = out + action * A.size
        if action >= DISCARD0:
            t = action - DISCARD0
            k = COMP_OF[t]
            memcpy(rest, g.seats[seat].private, NT)
            rest[t] -= 1
            row[A.kind + 3] = 1
            row[A.card + t] = 1
            row[A.card_outs] = _cap(ts_type_outs(g, g.seats[seat].private, unseen, t, pawn), S_MAX_OUTS)
            row[A.card_worst] = (worst >> t) & 1
            row[A.card_unseen] = unseen[t]
            row[A.card_pair_threat] = n >= 3 and t % 7 != 0 and unseen[t] >= 2
            row[A.card_khui_threat] = others and unseen[t] == 3
            _after(g, seat, k, g.seats[seat].codes[k] - PLACE[t], rest, unseen, row)
        elif action == HIT or action == PASS:
            row[A.kind + (1 if action == HIT else 2)] = 1
            k = 0
            _after(g, seat, k, g.seats[seat].codes[k], g.seats[seat].private, unseen, row)
        else:
            a = g.active
            k = COMP_OF[a]
            ts_meld_rest(g, seat, action, rest)
            row[A.kind] = 1
            row[A.card + a] = 1
            for j in range(MI_NUSED[a][action]):
                row[A.used + MI_USED[a][action][j]] += 1
            row[A.meld_kind + MELD_KIND_OF[MI_KIND[a][action]]] = 1
            row[A.meld_value] = KIND_VALUE[MI_KIND[a][action]]
            row[A.card_unseen] = unseen[a]
            _after(g, seat, k, g.seats[seat].codes[k] - MI_PLACE[a][action], rest, unseen, row)
            row[A.wins] = row[A.trash_after] == 0


cdef void ts_setup(TSState *g, object config, TSRecord *rec) except *:
    """A state for ``config`` (a :class:`~tusac_env.state.TuSacConfig`): its options (no game
    until a deal or a load); ``rec`` keeps the event record (NULL: none)."""
    cdef int n = config.num_players
    memset(g, 0, sizeof(TSState))
    g.n = n
    g.first_player = -1 if config.first_player == "random" else int(config.first_player)
    g.penalty_rule = bool(config.penalty_rule)
    g.reward_scale = float(config.reward_scale)
    g.rec = rec
    g.obs_size = LAYOUT[n].size
    g.phase = PH_OVER
    g.current = -1
    g.winner = -1


# ---------------------------------------------------------------- the engine

_PAY_REASONS = ("win", "penalty", "quan", "khui", "khap")
_RESULTS = ("", "win", "first_hand_win", "draw")


cdef object _event_tuple(TSEvent *e):
    """The rules layer's event tuple of a C event record."""
    cdef int k = e.kind
    if k == EV_DISCARD or k == EV_QUAN:
        return ("discard" if k == EV_DISCARD else "quan", e.seat, e.a)
    if k == EV_DEAL or k == EV_KHAPS:
        return ("deal" if k == EV_DEAL else "khaps", e.seat, e.a)
    if k == EV_HIT:
        return ("hit", e.seat, e.a, e.b)
    if k == EV_PASS:
        return ("pass", e.seat, e.a)
    if k == EV_MELD:
        return ("meld", e.seat, _KIND_NAMES[e.a], [<int>e.cards[j] for j in range(e.b)])
    if k == EV_CLAIM:
        return ("claim", e.seat, _CLAIM_NAMES[e.a], e.b)
    if k == EV_WIN:
        return ("win", e.seat, e.a, e.b, e.c)
    if k == EV_PENALTY:
        return ("penalty", e.seat, e.a)
    if k == EV_PAY:
        return ("pay", e.seat, e.a, e.b, _pay_reason(e.c, e.d))
    return ("draw", e.a)


cdef object _pay_reason(int reason, int loser):
    return f"penalty for player_{loser}" if reason == PAY_PENALTY else _PAY_REASONS[reason]


cdef class Engine:
    """Tu Sac engine for one game config: ``Engine(game)``, then ``load(state)`` (or ``deal(rng)``).

    See :mod:`setgames.engine` for the protocol; every method answers what the
    rules layer (``game``) answers for the loaded state after the same actions.
    The state is one :c:type:`TSState` stepped by the ``nogil`` functions above;
    the engine keeps the rules layer's Python record (events, payments, returns)
    beside it, filled from the C records after every call.
    """

    def __init__(self, game):
        """An engine for ``game``'s config (no state until :meth:`load`)."""
        self.game = game
        self.config = game.config
        ts_setup(&self.st, game.config, &self.rec)
        self.structure = game.obs == "structure"
        self.history = game.obs == "history"
        sg_history_reset(self.hist, TS_HLEN, self.st.n)
        self.obs_dims[0] = (ts_structure_size(self.st.n) if self.structure else
                            ts_history_size(self.st.n) if self.history else self.st.obs_size)
        assert self.obs_dims[0] == game.obs_spec.size
        self.feat_dims[0] = NUM_ACTIONS
        self.feat_dims[1] = ALAYOUT.size
        self.mask_dims[0] = NUM_ACTIONS
        self.events = []
        self.result = ""
        self.payments = []
        self.returns = []

    # ------------------------------------------------------------ load
    def load(self, state, bint validate=True):
        """Copy the rules-layer ``state`` in (it is neither kept nor changed).

        ``validate=False`` skips ``game.validate`` (about 90% of a search rollout's
        cost): only for a state the rules layer itself just built and nobody edited,
        such as the search's determinized copies; any other state can then crash
        the interpreter.

        Raises:
            ValueError: a state the rules could not produce (``game.validate``),
                refused before anything is copied (the C below trusts its ids).
        """
        cdef TSState *g = &self.st
        cdef int n = g.n
        cdef int s, t, i, j
        cdef int set_cards[4]
        if validate:
            self.game.validate(state)
        if state.num_players != n:
            raise ValueError(f"state has {state.num_players} players, the engine {n}")
        g.first = state.first
        for s in range(n):
            row = state.private[s]
            for t in range(NT):
                x = row[t]
                if not 0 <= x <= 3:  # (checked before the byte takes it)
                    raise ValueError(f"seat {s}'s private counts {list(row)} are not 28 counts in 0..3")
                g.seats[s].private[t] = x
        for t in range(NT):
            g.dead[t] = state.dead[t]
        draw = state.draw
        if len(draw) > 112:
            raise ValueError(f"draw pile of {len(draw)} cards")
        g.draw_len = len(draw)
        for i in range(g.draw_len):
            g.draw[i] = draw[i]
        if sum(len(block) for block in state.public) > MAXPUB:
            raise ValueError(f"{sum(len(block) for block in state.public)} public sets (at most {MAXPUB})")
        g.npub = 0
        for s in range(n):
            g.seats[s].pub_n = 0
            for kind, cards in state.public[s]:
                if not 1 <= len(cards) <= 4 or not all(0 <= c < NT for c in cards):
                    raise ValueError(f"public set {cards!r} of seat {s}")
                for j in range(len(cards)):
                    set_cards[j] = cards[j]
                ts_put_public(g, s, _KIND_NAMES.index(kind), set_cards, len(cards))  # (counts: ts_rebuild's)
        g.active = state.active
        g.active_from = state.active_from
        g.active_how = int(state.active_how)
        g.active_passed = state.active_passed
        g.discard_worst = state.discard_worst
        g.current = state.current
        g.phase = int(state.phase)
        self._end_fields(state)
        self.payments = [list(p) for p in state.payments]
        self.returns = list(state.returns)
        g.has_returns = False
        g.npay = 0
        g.nev = 0
        kind, who = state.last_claim
        g.claim_seat = who
        g.claim_kind = _CLAIM_NAMES.index(kind) if who >= 0 else -1
        # (meld events hold a list: copied, so nothing of the state is shared)
        self.events = [tuple([list(x) if type(x) is list else x for x in e]) for e in state.events]
        if self.history:  # the ring from the loaded record: observe() shows what the rules layer does
            sg_history_reset(self.hist, TS_HLEN, g.n)
            for row in _hist_py.history_rows(self.events):
                sg_history_add(self.hist, TS_HLEN, g.n, sg_event(row[0], row[1], row[2], row[3]))
        ts_rebuild(g)

    def deal(self, rng):
        """Shuffle and deal a new game from ``rng``: the state ``game.new_state(rng)`` makes
        (the same random draws, by the same numpy calls as :func:`tusac_env.flow.deal`), without
        building the rules-layer state (an optional engine method: ``deal(rng)`` is
        ``load(game.new_state(rng))``, about ten times cheaper)."""
        cdef int j
        cdef signed char deck[112]
        fp = self.config.first_player
        first = int(rng.integers(self.st.n)) if fp == "random" else int(fp)
        shuffled = _DECK_TYPES.copy()
        rng.shuffle(shuffled)
        for j in range(112):
            deck[j] = shuffled[j]
        self.events = []
        self.result = ""
        self.payments = []
        self.returns = []
        ts_deal_cards(&self.st, first, deck, self._ring())
        self._flush()

    def redeal(self, seat, rng):
        """Re-deal the cards ``seat`` has not seen in the engine's state, drawing from the numpy
        ``Generator`` ``rng``: the state ``game.determinize(state, seat, rng)`` returns, by the
        same draws (the compiled twin the batch's ``greedy_returns(redeals=k)`` plays on; an
        optional engine method). The event record stays: the re-deal moves hidden cards only.
        Returns False when no deal kept the Khap counts and the true cards stayed, else True.

        Raises:
            ValueError: ``seat`` is not a seat.
            TypeError: ``rng`` is not a ``numpy.random.Generator``.
        """
        cdef int n = self.st.n
        cdef bitgen_t *bg
        cdef int s
        cdef bint dealt
        try:
            s = -1 if type(seat) is bool else _index(seat)
        except (TypeError, OverflowError):
            s = -1
        if not 0 <= s < n:
            raise ValueError(f"seat {seat!r} is not 0..{n - 1}")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, not {type(rng).__name__}")
        bg = <bitgen_t *>PyCapsule_GetPointer(rng.bit_generator.capsule, "BitGenerator")
        with rng.bit_generator.lock, nogil:
            dealt = ts_redeal_from(&self.st, s, sg_bitgen_next32, bg)
        return dealt

    def current_seat(self):
        """Seat to act, -1 once the game is over."""
        return self.st.current

    def legal_actions(self):
        """Sorted legal action ids (a new list)."""
        cdef unsigned long long m = ts_legal(&self.st)
        cdef list out = []
        while m:
            out.append(__builtin_ctzll(m))
            m &= m - 1
        return out

    def mask(self):
        """A new writable int8 array of the action count, 1 at the legal actions."""
        arr = cnp.PyArray_SimpleNew(1, self.mask_dims, cnp.NPY_INT8)
        cdef char *p = <char *>cnp.PyArray_DATA(arr)
        memset(p, 0, NUM_ACTIONS)
        ts_fill_mask(&self.st, p)
        return arr

    # ------------------------------------------------------------ observation
    def observe(self, int seat):
        """``seat``'s observation: a new writable int8 array equal to ``game.observe``."""
        cdef int n = self.st.n
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat!r} is not 0..{n - 1}")
        arr = cnp.PyArray_SimpleNew(1, self.obs_dims, cnp.NPY_INT8)
        ts_observe(&self.st, seat, <unsigned char *>cnp.PyArray_DATA(arr))
        if self.structure:
            ts_structure(&self.st, seat, <unsigned char *>cnp.PyArray_DATA(arr))
        elif self.history:
            ts_history(self.hist, seat, <unsigned char *>cnp.PyArray_DATA(arr) + self.st.obs_size)
        return arr

    def action_features(self, int seat):
        """``seat``'s per-action features: a new int8 array ``(num_actions, F)`` equal to
        ``game.action_features`` (:func:`tusac_env.structure.action_features`)."""
        cdef int n = self.st.n
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat!r} is not 0..{n - 1}")
        arr = cnp.PyArray_SimpleNew(2, self.feat_dims, cnp.NPY_INT8)
        ts_action_features(&self.st, seat, <signed char *>cnp.PyArray_DATA(arr))
        return arr

    # ------------------------------------------------------------ apply
    def apply(self, action):
        """Play ``action``; the per-seat rewards when this ends the game, else None.

        Raises:
            ValueError: ``action`` is not legal now (nothing changes).
        """
        if not (type(action) is int and 0 <= action < NUM_ACTIONS and (ts_legal(&self.st) >> action) & 1):
            self._illegal(action)
        return self._step(action)

    cdef void _illegal(self, action) except *:
        try:
            x = _index(action)
        except TypeError:
            x = -1
        ok = type(action) is not bool and 0 <= x < NUM_ACTIONS and (ts_legal(&self.st) >> x) & 1
        if not ok:
            raise ValueError(f"action {action!r} is not legal here; legal: {self.legal_actions()}")

    cdef object _step(self, int action):
        """Play a legal ``action`` in C, then bring the Python record up to date."""
        cdef int over = ts_apply(&self.st, action, self._ring())
        self._flush()
        return tuple(self.returns) if over else None

    cdef void _flush(self) except *:
        """Append the C events to :attr:`events`; after a game end, take its result,
        payments and returns."""
        cdef TSState *g = &self.st
        cdef int i
        cdef TSPay *p
        for i in range(g.nev):
            self.events.append(_event_tuple(&g.rec.ev[i]))
        g.nev = 0
        if g.has_returns:
            g.has_returns = False
            self.result = _RESULTS[g.result]
            self.payments = [[g.pays[i].payer, g.pays[i].payee, g.pays[i].amount,
                              _pay_reason(g.pays[i].reason, g.pays[i].loser)] for i in range(g.npay)]
            self.returns = [g.returns[i] for i in range(g.n)]

    cdef unsigned int *_ring(self) noexcept:
        """The ring the steps push to: the engine's in the history mode, else none."""
        return self.hist if self.history else NULL

    cdef void _end_fields(self, st) except *:
        """Copy the game-end fields (winner, result, winning card, value, amount, penalty)
        of a rules-layer state (at load)."""
        cdef TSState *g = &self.st
        g.winner = st.winner
        self.result = st.result
        g.result = _RESULTS.index(st.result)
        g.win_card = st.win_card
        g.win_how = int(st.win_how)
        g.win_from = st.win_from
        g.value = st.value
        g.amount = st.amount
        g.penalized = st.penalized

    # ------------------------------------------------------------ rare entry points
    def is_truncated(self):
        """False: Tu Sac ends only by a win or a draw."""
        return False

    def __reduce__(self):
        """Copy and pickle through the rules layer's JSON (:func:`setgames.engine.rebuild`)."""
        return _from_json_state, (type(self), type(self.game), self.game.config_dict(), self.to_json())

    def outcome(self):
        """``game.outcome`` of the engine's state (on a state holding the fields it reads:
        the env asks for it at the end of every game)."""
        cdef TSState *g = &self.st
        st = TuSacState(num_players=g.n, first=g.first, private=[], public=[], dead=[], draw=[],
                        current=g.current, phase=g.phase, winner=g.winner, result=self.result,
                        win_card=g.win_card, win_how=g.win_how, win_from=g.win_from,
                        value=g.value, amount=g.amount, penalized=g.penalized,
                        payments=[list(p) for p in self.payments], returns=list(self.returns))
        return self.game.outcome(st)

    def to_json(self):
        """``game.to_json`` of the engine's state (plain JSON-able data)."""
        cdef TSState *g = &self.st
        cdef int n = g.n
        return {
            "num_players": n,
            "first": g.first,
            "private": [[g.seats[s].private[t] for t in range(NT)] for s in range(n)],
            "public": [[[_KIND_NAMES[ts_pub_kind(g.pub[i])],
                         [ts_pub_card(g.pub[i], j) for j in range(ts_pub_ncards(g.pub[i]))]]
                        for i in range(g.npub) if ts_pub_seat(g.pub[i]) == s] for s in range(n)],
            "dead": [g.dead[t] for t in range(NT)],
            "draw": [g.draw[i] for i in range(g.draw_len)],
            "active": g.active,
            "active_from": g.active_from,
            "active_how": g.active_how,
            "active_passed": bool(g.active_passed),
            "discard_worst": bool(g.discard_worst),
            "current": g.current,
            "phase": g.phase,
            "winner": g.winner,
            "result": self.result,
            "win_card": g.win_card,
            "win_how": g.win_how,
            "win_from": g.win_from,
            "value": g.value,
            "amount": g.amount,
            "penalized": g.penalized,
            "payments": [list(p) for p in self.payments],
            "returns": list(self.returns),
            "last_claim": [_CLAIM_NAMES[g.claim_kind] if g.claim_seat >= 0 else "", g.claim_seat],
            "events": [list(e) for e in self.events],
        }
