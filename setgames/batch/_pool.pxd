# cython: language_level=3
"""A tiny thread pool for the batched steps: slots split over threads, no barrier.

``cimport`` this file (``static inline`` C, compiled into the batch that uses
it). ``sg_pool_run(pool, fn, arg, n, chunk)`` runs ``fn(arg, lo, hi)`` over
``[0, n)`` in chunks: the calling thread and the pool's workers claim chunks
from one atomic counter, and the call returns once every chunk is done. The
caller never waits for a worker that has not claimed work, so on a machine
whose cores are busy with other jobs a late worker costs nothing (an OpenMP
``prange`` waits at its closing barrier for every thread of the team to
arrive, which measured here 10 to 50 times slower than one thread under
load), and after a ``fork`` (no workers in the child) the caller does
everything itself. The claim counter carries the step's generation in its
high 32 bits, so a worker that wakes late can never claim a chunk of a later
step with the arguments of an earlier one. Without pthreads (Windows) the
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
    #define SG_HAVE_THREADS 1
    #else
    #define SG_HAVE_THREADS 0
    #endif
    #define SG_POOL_MAX 64
    typedef void (*sg_range_fn)(void *, int64_t, int64_t);
    typedef struct sg_pool {
        int nworkers;
        sg_range_fn fn;
        void *arg;
        int64_t n, chunk;
        _Atomic uint64_t next;   /* generation << 32 | next slot to claim */
        _Atomic int64_t done;    /* slots finished in this generation */
        uint32_t gen;
        int stop;
    #if SG_HAVE_THREADS
        pthread_mutex_t mu;
        pthread_cond_t cv;
        pthread_t th[SG_POOL_MAX];
    #endif
    } sg_pool;

    static inline void sg_pool_work(sg_pool *p, uint32_t gen) {
        for (;;) {
            uint64_t v = atomic_load_explicit(&p->next, memory_order_acquire);
            if ((uint32_t)(v >> 32) != gen) return;
            int64_t lo = (int64_t)(v & 0xFFFFFFFFu);
            int64_t n = p->n, chunk = p->chunk;
            if (lo >= n) return;
            if (!atomic_compare_exchange_weak_explicit(&p->next, &v, v + (uint64_t)chunk,
                                                       memory_order_acq_rel, memory_order_acquire))
                continue;
            /* The chunk is ours: the caller cannot start the next step before it is done,
               so fn, arg and n are this generation's. */
            int64_t hi = lo + p->chunk < p->n ? lo + p->chunk : p->n;
            p->fn(p->arg, lo, hi);
            atomic_fetch_add_explicit(&p->done, hi - lo, memory_order_acq_rel);
        }
    }

    #if SG_HAVE_THREADS
    static void *sg_pool_main(void *arg) {
        sg_pool *p = (sg_pool *)arg;
        uint32_t seen = 0;
        for (;;) {
            pthread_mutex_lock(&p->mu);
            while (p->gen == seen && !p->stop) pthread_cond_wait(&p->cv, &p->mu);
            if (p->stop) { pthread_mutex_unlock(&p->mu); return NULL; }
            seen = p->gen;
            pthread_mutex_unlock(&p->mu);
            sg_pool_work(p, seen);
        }
    }
    #endif

    /* A pool of nthreads - 1 workers (the caller is the other thread); NULL if out of memory. */
    static inline sg_pool *sg_pool_new(int nthreads) {
        sg_pool *p = (sg_pool *)calloc(1, sizeof(sg_pool));
        if (!p) return NULL;
        atomic_init(&p->next, 0);
        atomic_init(&p->done, 0);
    #if SG_HAVE_THREADS
        pthread_mutex_init(&p->mu, NULL);
        pthread_cond_init(&p->cv, NULL);
        int want = nthreads - 1 < SG_POOL_MAX ? nthreads - 1 : SG_POOL_MAX;
        for (int i = 0; i < want; i++) {
            if (pthread_create(&p->th[i], NULL, sg_pool_main, p) != 0) break;
            p->nworkers++;
        }
    #endif
        return p;
    }

    static inline void sg_pool_free(sg_pool *p) {
        if (!p) return;
    #if SG_HAVE_THREADS
        pthread_mutex_lock(&p->mu);
        p->stop = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        for (int i = 0; i < p->nworkers; i++) pthread_join(p->th[i], NULL);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
    #endif
        free(p);
    }

    /* fn(arg, lo, hi) over [0, n) in chunks, on the caller and the workers; returns when all are done. */
    static inline void sg_pool_run(sg_pool *p, sg_range_fn fn, void *arg, int64_t n, int64_t chunk) {
        if (chunk < 1) chunk = 1;
        if (p == NULL || p->nworkers == 0 || n <= chunk) { fn(arg, 0, n); return; }
        uint32_t gen;
        p->fn = fn; p->arg = arg; p->n = n; p->chunk = chunk;
        atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    #if SG_HAVE_THREADS
        pthread_mutex_lock(&p->mu);
        gen = ++p->gen;
        atomic_store_explicit(&p->next, (uint64_t)gen << 32, memory_order_release);
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    #else
        gen = ++p->gen;
        atomic_store_explicit(&p->next, (uint64_t)gen << 32, memory_order_release);
    #endif
        sg_pool_work(p, gen);
        while (atomic_load_explicit(&p->done, memory_order_acquire) < n) {
    #if SG_HAVE_THREADS
            sched_yield();  /* a worker finishes the chunk it claimed */
    #endif
        }
    }
    """
    ctypedef struct sg_pool:
        int nworkers
    ctypedef void (*sg_range_fn)(void *, int64_t, int64_t) noexcept nogil
    sg_pool *sg_pool_new(int nthreads) noexcept nogil
    void sg_pool_free(sg_pool *p) noexcept nogil
    void sg_pool_run(sg_pool *p, sg_range_fn fn, void *arg, int64_t n, int64_t chunk) noexcept nogil
