# cython: language_level=3
"""A tiny thread pool for the batched steps: slots split over threads, no barrier.

``cimport`` this file (``static inline`` C, compiled into the batch that uses
it). ``sg_pool_run(pool, fn, arg, n, chunk)`` runs ``fn(arg, lo, hi)`` over
``[0, n)`` in chunks and returns once every chunk is done. ``sg_aligned_calloc``
allocates a batch's per-slot structs on a cache-line boundary.

The chunks are split into one contiguous range per thread (the caller is
thread 0, worker ``k`` thread ``k``). A thread claims its own range's chunks
from the front, then takes what is left of the others' from their backs. So
on an idle machine every thread steps the same slots on every call, and their
rows (state, observation, mask) stay in its own core's cache: with one shared
counter the slots went to whichever thread claimed first, and at B=8192 about
half the rows a thread touched came from the other core's cache. The caller
never waits for a worker that has not claimed work: on a machine whose cores
are busy with other jobs a late worker costs nothing (an OpenMP ``prange``
waits at its closing barrier for every thread of the team to arrive, which
measured here 10 to 50 times slower than one thread under load): the caller
takes the late worker's range from its back.

After a ``fork`` the child has none of the parent's workers, and the pool's
mutex and condition variable may be held or waited on by threads that do not
exist there (``pthread_cond_destroy`` on such a condition hangs forever). A
``pthread_atfork`` child handler counts the forks; a pool made before the
last fork is *stale*: ``sg_pool_run`` runs everything on the caller,
``sg_pool_free`` frees its memory without touching its threads or locks, and
``sg_pool_stale`` tells the batch to make a new pool for the child.

Each range's counter is one 64-bit word on its own cache line: the call's
generation (16 bits), then the front and back chunk indices (24 bits each).
A worker that wakes late can never claim a chunk of a later call with the
arguments of an earlier one: its compare-and-swap fails once the generation
moved on, and what it reads of a call (function, arguments, range bounds) it
reads after its claim, which the call cannot outlive.

Between calls a worker polls for ``SG_POOL_SPIN_NS`` (yielding its core at
each poll) before it sleeps on the condition variable: a trainer calls ``sample`` and ``step`` (and the check of
the actions before the step) back to back, and waking a sleeping thread took
tens of microseconds, a fifth of a B=8192 step on two threads. The caller
takes the mutex only when a worker sleeps. Without pthreads (Windows) the
pool has no workers and runs everything on the caller.
"""

from libc.stdint cimport int64_t

cdef extern from *:
    """
    #include <stdint.h>
    #include <stdatomic.h>
    #include <stdlib.h>
    #include <string.h>
    #ifndef _WIN32
    #include <pthread.h>
    #include <sched.h>
    #include <time.h>
    #define SG_HAVE_THREADS 1
    #else
    #define SG_HAVE_THREADS 0
    #endif
    #if defined(__x86_64__) || defined(__i386__)
    #include <immintrin.h>
    #define SG_RELAX() _mm_pause()
    #else
    #define SG_RELAX() atomic_signal_fence(memory_order_seq_cst)
    #endif
    #ifdef _WIN32
    #include <malloc.h>
    #define SG_ALIGNED_ALLOC(size) _aligned_malloc((size), 64)
    #define SG_ALIGNED_FREE(p) _aligned_free(p)
    #else
    #define SG_ALIGNED_ALLOC(size) aligned_alloc(64, (size))
    #define SG_ALIGNED_FREE(p) free(p)
    #endif
    #ifdef __linux__
    #include <sys/mman.h>
    #endif
    #define SG_HUGE_PAGE ((size_t)2 << 20)
    #define SG_HUGE_FROM ((size_t)4 << 20)  /* states this big ask for huge pages */
    #define SG_POOL_MAX 64
    #define SG_POOL_SPIN_NS 100000      /* a worker's spin for the next call before it sleeps */
    #define SG_IDX_BITS 24
    #define SG_IDX_MASK ((UINT64_C(1) << SG_IDX_BITS) - 1)
    #define SG_GEN_MASK 0xFFFFu
    typedef void (*sg_range_fn)(void *, int64_t, int64_t);
    /* generation << 48 | front << 24 | back: range chunks [front, back) are unclaimed.
       One cache line each: the threads claiming from different ranges share nothing. */
    typedef struct { _Atomic uint64_t w; char pad[64 - sizeof(uint64_t)]; } sg_range;
    struct sg_pool;
    typedef struct { struct sg_pool *p; int id; } sg_worker;
    typedef struct sg_pool {
        sg_range ranges[SG_POOL_MAX + 1];
        _Atomic int64_t done;    /* slots finished in this call (the caller polls it: own line) */
        char pad_done[64 - sizeof(int64_t)];
        _Atomic uint32_t pub;    /* the call's generation, published to the workers */
        _Atomic int sleepers;    /* workers waiting on cv */
        _Atomic int stop;
        int nworkers, nranges;
        uint32_t gen;            /* the caller's count of calls */
        unsigned fork_gen;       /* sg_fork_gen when the pool was made */
        sg_range_fn fn;
        void *arg;
        int64_t n, chunk;
        int64_t start[SG_POOL_MAX + 2];   /* range r: chunks start[r] .. start[r + 1] - 1 */
    #if SG_HAVE_THREADS
        pthread_mutex_t mu;
        pthread_cond_t cv;
        pthread_t th[SG_POOL_MAX];
        sg_worker wk[SG_POOL_MAX];
    #endif
    } sg_pool;

    /* One chunk of range r (its index within the range), from the back if asked; -1 when the
       range is empty or the generation is not gen. */
    static inline int64_t sg_pool_claim(sg_pool *p, int r, uint32_t gen, int from_back) {
        _Atomic uint64_t *w = &p->ranges[r].w;
        uint64_t v = atomic_load_explicit(w, memory_order_acquire);
        for (;;) {
            if ((uint32_t)(v >> 48) != (gen & SG_GEN_MASK)) return -1;
            uint64_t front = (v >> SG_IDX_BITS) & SG_IDX_MASK, back = v & SG_IDX_MASK;
            if (front >= back) return -1;
            uint64_t nv = from_back ? v - 1 : v + (UINT64_C(1) << SG_IDX_BITS);
            if (atomic_compare_exchange_weak_explicit(w, &v, nv, memory_order_acq_rel, memory_order_acquire))
                return (int64_t)(from_back ? back - 1 : front);
        }
    }

    /* Thread me's share of call gen: its own range from the front, then the others' from the back. */
    static inline void sg_pool_work(sg_pool *p, uint32_t gen, int me) {
        int nr = p->nranges;
        for (int k = 0; k < nr; k++) {
            int r = (me + k) % nr;
            int64_t c;
            while ((c = sg_pool_claim(p, r, gen, k != 0)) >= 0) {
                /* The chunk is ours: the caller cannot start the next call before it is done,
                   so what we read of the call now is this generation's. */
                int64_t lo = (p->start[r] + c) * p->chunk;
                int64_t hi = lo + p->chunk < p->n ? lo + p->chunk : p->n;
                p->fn(p->arg, lo, hi);
                atomic_fetch_add_explicit(&p->done, hi - lo, memory_order_acq_rel);
            }
        }
    }

    #if SG_HAVE_THREADS
    /* Forks of this process so far, counted in the child (see the module doc). */
    static _Atomic unsigned sg_fork_gen = 0;
    static void sg_on_fork_child(void) { atomic_fetch_add(&sg_fork_gen, 1); }
    static pthread_once_t sg_atfork_once = PTHREAD_ONCE_INIT;
    static void sg_atfork_register(void) { pthread_atfork(NULL, NULL, sg_on_fork_child); }
    #endif

    /* Forks of this process so far (counted from this module's first call; 0 without threads). */
    static inline unsigned sg_fork_count(void) {
    #if SG_HAVE_THREADS
        pthread_once(&sg_atfork_once, sg_atfork_register);
        return atomic_load(&sg_fork_gen);
    #else
        return 0;
    #endif
    }

    /* Whether p was made before a fork of this process (1: its workers are the parent's). */
    static inline int sg_pool_stale(sg_pool *p) {
    #if SG_HAVE_THREADS
        return p != NULL && p->fork_gen != atomic_load(&sg_fork_gen);
    #else
        return 0;
    #endif
    }

    #if SG_HAVE_THREADS
    static inline int64_t sg_now_ns(void) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
    }

    static void *sg_pool_main(void *arg) {
        sg_pool *p = ((sg_worker *)arg)->p;
        int me = ((sg_worker *)arg)->id;
        uint32_t seen = 0, g;
        for (;;) {
            g = atomic_load_explicit(&p->pub, memory_order_acquire);
            if (g == seen) {
                int64_t t0 = sg_now_ns();
                /* sched_yield, not a pause: on a machine busier than its cores the caller (or
                   another job) may be waiting for this core, and a pure spin measured 0.8x of
                   one thread there, against 1.0x for the pool that slept at once. */
                while ((g = atomic_load_explicit(&p->pub, memory_order_acquire)) == seen) {
                    if (atomic_load_explicit(&p->stop, memory_order_relaxed)) return NULL;
                    sched_yield();
                    if (sg_now_ns() - t0 > SG_POOL_SPIN_NS) break;
                }
            }
            if (g == seen) {
                pthread_mutex_lock(&p->mu);
                /* seq_cst both sides: the caller stores pub then reads sleepers; we count
                   ourselves then read pub, so one of us sees the other. */
                atomic_fetch_add(&p->sleepers, 1);
                while ((g = atomic_load(&p->pub)) == seen && !atomic_load(&p->stop))
                    pthread_cond_wait(&p->cv, &p->mu);
                atomic_fetch_sub(&p->sleepers, 1);
                pthread_mutex_unlock(&p->mu);
            }
            if (atomic_load_explicit(&p->stop, memory_order_relaxed)) return NULL;
            seen = g;
            sg_pool_work(p, g, me);
        }
    }
    #endif

    /* A pool of nthreads - 1 workers (the caller is the other thread); NULL if out of memory. */
    static inline sg_pool *sg_pool_new(int nthreads) {
        size_t size = (sizeof(sg_pool) + 63) / 64 * 64;
        sg_pool *p = (sg_pool *)SG_ALIGNED_ALLOC(size);  /* the counters' lines are the pool's own */
        if (!p) return NULL;
        memset(p, 0, size);
        for (int r = 0; r <= SG_POOL_MAX; r++) atomic_init(&p->ranges[r].w, 0);
        atomic_init(&p->done, 0);
        atomic_init(&p->pub, 0);
        atomic_init(&p->sleepers, 0);
        atomic_init(&p->stop, 0);
    #if SG_HAVE_THREADS
        pthread_once(&sg_atfork_once, sg_atfork_register);
        p->fork_gen = atomic_load(&sg_fork_gen);
        pthread_mutex_init(&p->mu, NULL);
        pthread_cond_init(&p->cv, NULL);
        int want = nthreads - 1 < SG_POOL_MAX ? nthreads - 1 : SG_POOL_MAX;
        for (int i = 0; i < want; i++) {
            p->wk[i].p = p;
            p->wk[i].id = i + 1;
            if (pthread_create(&p->th[i], NULL, sg_pool_main, &p->wk[i]) != 0) break;
            p->nworkers++;
        }
    #endif
        p->nranges = p->nworkers + 1;
        return p;
    }

    static inline void sg_pool_free(sg_pool *p) {
        if (!p) return;
    #if SG_HAVE_THREADS
        if (sg_pool_stale(p)) { SG_ALIGNED_FREE(p); return; }  /* the parent's threads and locks */
        pthread_mutex_lock(&p->mu);
        atomic_store(&p->stop, 1);
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        for (int i = 0; i < p->nworkers; i++) pthread_join(p->th[i], NULL);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
    #endif
        SG_ALIGNED_FREE(p);
    }

    /* fn(arg, lo, hi) over [0, n) in chunks, on the caller and the workers; returns when all are done. */
    static inline void sg_pool_run(sg_pool *p, sg_range_fn fn, void *arg, int64_t n, int64_t chunk) {
        if (chunk < 1) chunk = 1;
        if (p == NULL || p->nworkers == 0 || n <= chunk || sg_pool_stale(p)) { fn(arg, 0, n); return; }
        /* A range's indices have 24 bits: a huge batch takes larger chunks (same results: the
           slots are independent). */
        if ((n + chunk - 1) / chunk > (int64_t)SG_IDX_MASK) chunk = (n + (int64_t)SG_IDX_MASK - 1) / (int64_t)SG_IDX_MASK;
        int64_t nchunks = (n + chunk - 1) / chunk;
        int nr = p->nranges;
        uint32_t gen = ++p->gen;
        p->fn = fn; p->arg = arg; p->n = n; p->chunk = chunk;
        for (int r = 0; r <= nr; r++) p->start[r] = nchunks * r / nr;
        atomic_store_explicit(&p->done, 0, memory_order_relaxed);
        for (int r = 0; r < nr; r++) {
            uint64_t len = (uint64_t)(p->start[r + 1] - p->start[r]);
            /* release: a thread that claims from this word sees the fields and done above */
            atomic_store_explicit(&p->ranges[r].w, ((uint64_t)(gen & SG_GEN_MASK) << 48) | len,
                                  memory_order_release);
        }
    #if SG_HAVE_THREADS
        atomic_store(&p->pub, gen);
        if (atomic_load(&p->sleepers) > 0) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_broadcast(&p->cv);
            pthread_mutex_unlock(&p->mu);
        }
    #endif
        sg_pool_work(p, gen, 0);
        for (int k = 1; atomic_load_explicit(&p->done, memory_order_acquire) < n; k++) {
            /* a worker finishes the chunk it claimed: spin a little, then give way */
            SG_RELAX();
    #if SG_HAVE_THREADS
            if ((k & 255) == 0) sched_yield();
    #endif
        }
    }

    /* n zeroed items of size bytes on a 64-byte boundary (NULL if out of memory; free with
       sg_aligned_free): a batch's states, so that a state of whole cache lines starts one. */
    /* On Linux, states of SG_HUGE_FROM bytes or more start on a 2 MiB boundary and ask for
       transparent huge pages (madvise; a hint the kernel may refuse): a batch of 65,536 slots
       of 2.7 KB spans 176 MB, and with 4 KiB pages nearly every slot's step missed the TLB. */
    static inline void *sg_aligned_calloc(size_t n, size_t size) {
        if (size && n > SIZE_MAX / size - SG_HUGE_PAGE) return NULL;
        size_t bytes = (n * size + 63) / 64 * 64;
        void *p;
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (bytes >= SG_HUGE_FROM) {
            bytes = (bytes + SG_HUGE_PAGE - 1) / SG_HUGE_PAGE * SG_HUGE_PAGE;
            p = aligned_alloc(SG_HUGE_PAGE, bytes);
            if (p) madvise(p, bytes, MADV_HUGEPAGE);
        } else
    #endif
        p = SG_ALIGNED_ALLOC(bytes ? bytes : 64);
        if (p) memset(p, 0, bytes);
        return p;
    }
    static inline void sg_aligned_free(void *p) { if (p) SG_ALIGNED_FREE(p); }

    /* *p = min(*p, v), atomically (a pool task's report of the first bad slot). */
    static inline void sg_atomic_min_i64(int64_t *p, int64_t v) {
        int64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
        while (v < cur && !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    }
    """
    ctypedef struct sg_pool:
        int nworkers
    ctypedef void (*sg_range_fn)(void *, int64_t, int64_t) noexcept nogil
    sg_pool *sg_pool_new(int nthreads) noexcept nogil
    void sg_pool_free(sg_pool *p) noexcept nogil
    bint sg_pool_stale(sg_pool *p) noexcept nogil
    unsigned sg_fork_count() noexcept nogil
    void sg_pool_run(sg_pool *p, sg_range_fn fn, void *arg, int64_t n, int64_t chunk) noexcept nogil
    void sg_atomic_min_i64(int64_t *p, int64_t v) noexcept nogil
    void *sg_aligned_calloc(size_t n, size_t size) noexcept nogil
    void sg_aligned_free(void *p) noexcept nogil
