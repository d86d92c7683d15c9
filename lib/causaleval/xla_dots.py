"""XLA's dots on the CPU as a call to the pinned OpenBLAS: the same bits on every x86-64 processor.

XLA hands a ``dot_general`` to Eigen with oneDNN's sgemm, or to YNNPACK, which pick their kernels
and blocking from the processor when the program runs, past ``--xla_cpu_max_isa``: on an AVX-512
processor a transposed or batched dot sums in another order than on an AVX2 one (measured against
``qemu-x86_64 -cpu Haswell``), and DiBS, BCD Nets and DAG-GFlowNet trained to other graphs.
:func:`lower` compiles each floating-point dot instead as

* XLA's own transposes and reshapes to ``x[b, i, k]`` and ``y[b, k, j]`` (batch, free and
  contracted axes; code XLA emits itself, the same under the kit's instruction-set cap), then
* one call (XLA's typed FFI, :func:`register`) of a numba-compiled handler that runs, for each
  ``b``, ``out[b] = x[b] @ y[b]`` through numba's ``np.dot``, that is scipy's OpenBLAS
  (``scipy.linalg.cython_blas``: ``sgemm``/``dgemm``, or ``gemv`` when ``i`` or ``j`` is 1),
  pinned like numpy's (``OPENBLAS_CORETYPE=Haswell``, one thread, :mod:`causaleval.numenv`):
  its kernel and blocking, and so its order of summation, are fixed by the core type, not by
  the processor. Dimensions past OpenBLAS's 32-bit integers are refused when the dot is traced.

Half-precision dots are computed in float32 and rounded back, as XLA does on the CPU. Integer,
boolean and complex dots are compiled as XLA's own loops (:func:`_dot_as_loops`: a product and a
sum over ``k``, in a fixed order); an integer dot is exact in any order. The handler reads XLA's
FFI structures (``xla/ffi/api/c_api.h``, API 0.3: the call frame, its argument and result
buffers, and the metadata query XLA makes when the handler is registered) as arrays of 64-bit
words. Measured in ``benchmarks/bench_xla_dots.py``.

Imported by :func:`causaleval.numenv.pin_jax` only (it imports numba and numpy, after the kit's
numerical environment is in force).
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

import numba
import numpy as np
from numba import carray, types
from numba.extending import intrinsic

TARGET = "causaleval_pinned_dot"
_FFI_MINOR = 3  # the XLA FFI API version (0.3) whose structures the handler reads
_F64 = 12  # XLA_FFI_DataType of float64 (the other dots the handler gets are float32)
_BLAS_INT = 2**31  # OpenBLAS's (LP64) dimensions are 32-bit integers
_REGISTERED = False


def register() -> None:
    """Register the handler with XLA as the CPU FFI target :data:`TARGET` (once per process)."""
    global _REGISTERED
    if not _REGISTERED:
        import jax

        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
        jax.ffi.register_ffi_target(TARGET, new(_handler.address, b"xla._CUSTOM_CALL_TARGET", None),
                                    platform="cpu")
        _REGISTERED = True


def lower(x: Any, y: Any, *, dimension_numbers: Any, preferred_element_type: Any = None, **_: Any) -> Any:
    """``lax.dot_general(x, y)`` for :func:`jax.interpreters.mlir.lower_fun`: a floating-point dot
    as the pinned OpenBLAS call (module notes), any other as :func:`_dot_as_loops`."""
    import jax
    import jax.numpy as jnp

    dtype = jnp.dtype(preferred_element_type or jnp.result_type(x, y))
    if not jnp.issubdtype(dtype, jnp.floating):
        return _dot_as_loops(x, y, dimension_numbers=dimension_numbers, preferred_element_type=dtype)
    work = jnp.float64 if dtype == jnp.float64 else jnp.float32
    x, y, (nb, ni, _) = _arranged(x, y, dimension_numbers, work)
    shape = x.shape[:nb + ni] + y.shape[nb + len(dimension_numbers[0][1]):]
    b, i, j = math.prod(x.shape[:nb]), math.prod(x.shape[nb:nb + ni]), math.prod(shape[nb + ni:])
    k = math.prod(x.shape[nb + ni:])
    if min(b, i, j, k) == 0:
        return jnp.zeros(shape, dtype)
    if max(i, j, k) >= _BLAS_INT:
        raise ValueError(f"dot_general of shapes {x.shape} and {y.shape}: a product of {i} x {k} by {k} x {j} "
                         f"per batch; the pinned OpenBLAS takes dimensions below 2**31 (split the product)")
    out = jax.ffi.ffi_call(TARGET, jax.ShapeDtypeStruct((b, i, j), work))(x.reshape(b, i, k), y.reshape(b, k, j))
    return out.reshape(shape).astype(dtype)


def _arranged(x: Any, y: Any, dimension_numbers: Any, dtype: Any) -> tuple[Any, Any, tuple[int, int, int]]:
    """``x`` as ``(batch, free, contracted)`` axes and ``y`` as ``(batch, contracted, free)``, in
    ``dtype``; with the numbers of batch, free ``x`` and free ``y`` axes."""
    import jax.numpy as jnp

    (x_sum, y_sum), (x_batch, y_batch) = dimension_numbers
    x_free = [a for a in range(x.ndim) if a not in x_sum and a not in x_batch]
    y_free = [a for a in range(y.ndim) if a not in y_sum and a not in y_batch]
    x = jnp.transpose(x, (*x_batch, *x_free, *x_sum)).astype(dtype)
    y = jnp.transpose(y, (*y_batch, *y_sum, *y_free)).astype(dtype)
    return x, y, (len(x_batch), len(x_free), len(y_free))


def _dot_as_loops(x: Any, y: Any, *, dimension_numbers: Any, preferred_element_type: Any) -> Any:
    """``out[b, i, j] = sum_k x[b, i, k] * y[b, k, j]`` as a product and a sum XLA compiles
    itself (the product fused into the sum), summed over ``k`` in the order XLA's code fixes."""
    x, y, (nb, ni, nj) = _arranged(x, y, dimension_numbers, preferred_element_type)
    ns = x.ndim - nb - ni
    product = x.reshape(x.shape + (1,) * nj) * y.reshape(y.shape[:nb] + (1,) * ni + y.shape[nb:])
    return product.sum(axis=tuple(range(nb + ni, nb + ni + ns))).astype(preferred_element_type)


@intrinsic
def _pointer(typingctx: Any, address: Any) -> Any:
    """The 64-bit integer ``address`` as a pointer numba's ``carray`` reads."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.inttoptr(args[0], context.get_value_type(types.voidptr))

    return types.voidptr(types.int64), codegen


@numba.njit(cache=True)
def _products(xs: int, ys: int, outs: int, b: int, i: int, k: int, j: int, dtype: Any) -> None:
    """``out[n] = x[n] @ y[n]`` for each ``n < b`` (OpenBLAS's gemm through numba's ``np.dot``)."""
    x = carray(_pointer(xs), (b, i, k), dtype)
    y = carray(_pointer(ys), (b, k, j), dtype)
    out = carray(_pointer(outs), (b, i, j), dtype)
    for n in range(b):
        np.dot(x[n], y[n], out[n])


@numba.cfunc(types.int64(types.int64), cache=True)
def _handler(frame: int) -> int:
    """The FFI handler XLA calls (``XLA_FFI_Error* handler(XLA_FFI_CallFrame*)``; 0 is success).

    Words of the call frame: 1 its extension, 9 the argument buffers, 14 the result buffers; of a
    buffer: 2 its data type, 3 its data, 5 its dimensions. A frame whose first extension is the
    metadata one (type 1) asks for the FFI version the handler was written for (0.3) and its
    traits (none), and computes nothing; any other frame computes, as XLA's C++ helper does."""
    words = carray(_pointer(frame), (15,), np.int64)
    if words[1] != 0:
        extension = carray(_pointer(words[1]), (4,), np.int64)
        if extension[1] & 0xFFFFFFFF == 1:
            metadata = carray(_pointer(extension[3]), (6,), np.int64)
            halves = carray(_pointer(extension[3]), (12,), np.int32)
            metadata[1], metadata[2], metadata[5] = 24, 0, 0  # api_version's size and extension; no state
            halves[6], halves[7], halves[8] = 0, _FFI_MINOR, 0  # major, minor, traits
            return 0
    args = carray(_pointer(words[9]), (2,), np.int64)
    result = carray(_pointer(carray(_pointer(words[14]), (1,), np.int64)[0]), (6,), np.int64)
    x = carray(_pointer(args[0]), (6,), np.int64)
    y = carray(_pointer(args[1]), (6,), np.int64)
    x_dims = carray(_pointer(x[5]), (3,), np.int64)
    j = carray(_pointer(y[5]), (3,), np.int64)[2]
    if x[2] & 0xFFFFFFFF == _F64:
        _products(x[3], y[3], result[3], x_dims[0], x_dims[1], x_dims[2], j, np.float64)
    else:
        _products(x[3], y[3], result[3], x_dims[0], x_dims[1], x_dims[2], j, np.float32)
    return 0
