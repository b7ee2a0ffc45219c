# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Tet Hsi's engine as the compiled search's function table (:mod:`setgames.search._pimc`),
and its inference from the opponent's last turns.

With ``infer`` above 0 the search keeps a re-deal only if the greedy bot, holding the
hand the re-deal gives the opponent, plays the opponent's last ``INFER_TURNS`` turns as
they were played (its ties drawn at random, so a deal is kept with the probability that
greedy would have made those moves with it): re-deals in proportion to how well they
explain what the opponent did, if the opponent plays like greedy. A deal that explains
every turn is rare, so after ``RELAX_AFTER`` refused draws an iteration asks only for
the last turn. ``infer`` is how far the search trusts that model: a deal that does not
explain a turn is still kept with probability ``1 - infer``. The positions where the
turns began come from :func:`tethsi_env.infer.last_turns`.
"""

from libc.string cimport memcpy

from setgames.batch._rng cimport sg_pcg64, sg_pcg64_next32, sg_pcg64_next32_v, sg_pcg64_seed
from setgames.search._pimc cimport SgOps, sg_search_call
from tethsi_env._engine cimport Engine, TState, th_apply, th_legal, th_over, th_redeal, th_returns, u64
from tethsi_env._greedy cimport th_greedy

from setgames.checks import check_int, check_seed
from setgames.search.budget import check_infer
from tethsi_env.infer import last_turns

__all__ = ["DEFAULT_ITERS", "INFERS", "INFER_SPEC", "INFER_TURNS", "RELAX_AFTER", "keeps", "search"]

INFERS = True  # search() takes infer (the bot's infer option)
# The inferring search as a bot, at the budget the strength table measures it with (62.6%
# against greedy, p99 95 ms a decision: docs/guides/strength.md): what the tools offer
# beside the plain search (setgames.search.extra_specs).
INFER_SPEC = "search:infer=1,iters=2048"

cdef enum:
    MAX_TURNS = 4

INFER_TURNS = 2    # the opponent's turns a re-deal must explain (at most MAX_TURNS)
RELAX_AFTER = 32   # refused draws after which an iteration asks only for the last turn

ctypedef struct Turn:
    TState start          # the position where the turn began
    u64 used              # the cards that left the opponent's concealed hand since (public)
    int n                 # the turn's actions
    int actions[4]

ctypedef struct Infer:
    Turn turns[MAX_TURNS]  # the most recent first
    int nturns
    int opp
    int relax              # draws from which only the first turn is asked
    unsigned long long keep   # a deal a turn refutes is kept if a 32-bit draw is >= this

# The search bot's re-deals a decision when no budget is given: Tet Hsi's score against
# greedy rises to 60% at 4,096 (8 ms a decision, p99 64 ms; the curves: docs/guides/strength.md).
DEFAULT_ITERS = 4096


cdef int _seat(const void *st) noexcept nogil:
    cdef const TState *s = <const TState *> st
    return -1 if th_over(s) else s.seat


cdef int _legal(void *st, const void *cfg, int *out) noexcept nogil:
    return th_legal(<const TState *> st, out)


cdef void _apply(void *st, const void *cfg, int action, double *gain) noexcept nogil:
    cdef TState *s = <TState *> st
    cdef float ret[2]
    if th_apply(s, action, NULL):
        th_returns(s, ret)   # Tet Hsi pays only at the end
        gain[0] += ret[0]
        gain[1] += ret[1]


cdef void _redeal(void *st, const void *cfg, int seat, sg_pcg64 *rng) noexcept nogil:
    th_redeal(<TState *> st, seat, rng)


cdef int _policy(void *st, const void *cfg, sg_pcg64 *rng) noexcept nogil:
    return th_greedy(<const TState *> st, sg_pcg64_next32_v, rng)


cdef int _explains(const TState *d, const Turn *t, int opp, sg_pcg64 *rng) noexcept nogil:
    cdef TState w
    cdef int i
    memcpy(&w, &t.start, sizeof(TState))
    # the re-deal's hidden cards, moved back to where the turn began: the opponent's hand
    # and the cards it used from it since, the pile under the cards revealed since
    w.concealed[opp] = d.concealed[opp] | t.used
    for i in range(d.npile):
        w.pile[i] = d.pile[i]
    for i in range(t.n):
        if th_greedy(&w, sg_pcg64_next32_v, rng) != t.actions[i]:
            return 0
        th_apply(&w, t.actions[i], NULL)
    return 1


cdef int _accept(const void *st, const void *cfg, int draw, sg_pcg64 *rng) noexcept nogil:
    cdef const Infer *c = <const Infer *> cfg
    cdef int k, n
    if c == NULL:
        return 1
    n = c.nturns if draw < c.relax else 1
    for k in range(n):
        if not _explains(<const TState *> st, &c.turns[k], c.opp, rng) and sg_pcg64_next32(rng) < c.keep:
            return 0
    return 1


cdef SgOps OPS
OPS.size = sizeof(TState)
OPS.seat = _seat
OPS.legal = _legal
OPS.apply = _apply
OPS.redeal = _redeal
OPS.policy = _policy
OPS.accept = _accept


cdef const SgOps *th_search_ops() noexcept nogil:
    """The table, for the batch's in-C search opponents."""
    return &OPS


cdef bint _context(Engine engine, Infer *ctx, double infer, int turns_back) except -1:
    """Fill ``ctx`` from ``engine``'s record (the last ``turns_back`` turns); False when there
    is no turn to infer from."""
    cdef Engine scratch
    cdef Turn *t
    seat = engine.st.seat
    turns = last_turns(engine._game, engine._state(True), seat, turns_back)
    if not turns:
        return False
    scratch = Engine(engine._game)
    for k, turn in enumerate(turns):
        t = &ctx.turns[k]
        scratch.load(turn.start)
        memcpy(&t.start, &scratch.st, sizeof(TState))
        t.used = turn.used
        t.n = len(turn.actions)
        for i, a in enumerate(turn.actions):
            t.actions[i] = a
    ctx.nturns = len(turns)
    ctx.opp = seat ^ 1
    ctx.relax = RELAX_AFTER
    ctx.keep = <unsigned long long> (infer * 4294967296.0)  # 1 - infer of the draws reach it
    return True


def keeps(Engine engine, Engine deal, int draws, seed=0, infer=1.0, turns=1):
    """How many of ``draws`` tests keep ``deal`` (``engine``'s position with its seat's hidden
    cards re-dealt) as an explanation of the opponent's last ``turns`` turns, each test's ties
    and trust drawn from one generator seeded by ``seed``; None when there is no turn to infer
    from. Kept / draws estimates the probability the search keeps that deal with at an
    iteration's first draw (tests, research)."""
    cdef Infer ctx
    cdef sg_pcg64 rng
    cdef int k, n = 0
    if th_over(&engine.st) or not _context(engine, &ctx, check_infer(infer),
                                           check_int("turns", turns, 1, MAX_TURNS)):
        return None
    sg_pcg64_seed(&rng, check_seed(seed))
    for k in range(draws):
        n += _accept(&deal.st, &ctx, 0, &rng)
    return n


def search(Engine engine, iters=None, ms=None, seed=0, z=1.0, infer=0.0, turns=None):
    """Search ``engine``'s position for its seat to act (:mod:`setgames.search._pimc`):
    ``(action, legal, values, iters, elapsed_ms)``. ``iters`` re-deals and/or ``ms``
    milliseconds; ``seed`` (0..2**63-1) seeds the re-deals and the play-outs' ties; ``z``: how
    many standard errors a move must beat the greedy move by; ``infer`` (0 to 1): how far to
    trust that the opponent played its last ``turns`` turns (default ``INFER_TURNS``) as
    greedy would (the module doc)."""
    cdef Infer ctx
    infer = check_infer(infer)
    back = check_int("turns", INFER_TURNS if turns is None else turns, 1, MAX_TURNS)
    if infer == 0 or th_over(&engine.st) or not _context(engine, &ctx, infer, back):
        return sg_search_call(&OPS, &engine.st, NULL, iters, ms, seed, z)
    return sg_search_call(&OPS, &engine.st, &ctx, iters, ms, seed, z)
