# cython: language_level=3
"""The arrays a batch hands out: C memory that no Python code can free, move or write.

``cimport`` this file (inline functions, compiled into each game's batch).
:func:`sg_array` allocates zeroed C memory and wraps it in a read-only numpy
array whose base is a capsule that frees the memory when the last array on
it goes. Such an array does not own its data, so ``resize`` (even with
``refcheck=False``) is refused, and its base is no array, so its
``WRITEABLE`` flag cannot be set again: the C step keeps writing through its
own pointer, which stays valid as long as the batch (or any view a caller
kept) holds the array. An array numpy allocated itself would let
``b.obs.resize((1,), refcheck=False)`` free the memory under the C side.
"""

cimport numpy as cnp
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_New
from libc.stdlib cimport calloc, free

cnp.import_array()


cdef inline void _sg_free_capsule(object capsule) noexcept:
    free(PyCapsule_GetPointer(capsule, NULL))


cdef inline cnp.ndarray sg_array(tuple shape, object dtype):
    """A zeroed read-only array of ``shape`` and ``dtype`` on memory the batch's C code
    writes through ``cnp.PyArray_DATA`` (see the module doc)."""
    cdef cnp.npy_intp dims[2]
    cdef int nd = len(shape), k
    cdef size_t count = 1
    cdef int typenum = cnp.dtype(dtype).num
    cdef size_t item = cnp.dtype(dtype).itemsize
    assert 1 <= nd <= 2
    for k in range(nd):
        dims[k] = shape[k]
        count *= <size_t> shape[k]
    cdef void *data = calloc(count if count else 1, item)
    if data == NULL:
        raise MemoryError(f"no memory for a {shape} {cnp.dtype(dtype)} array")
    capsule = PyCapsule_New(data, NULL, _sg_free_capsule)
    cdef cnp.ndarray arr = cnp.PyArray_SimpleNewFromData(nd, dims, typenum, data)
    cnp.set_array_base(arr, capsule)
    cnp.PyArray_CLEARFLAGS(arr, cnp.NPY_ARRAY_WRITEABLE)
    return arr
