"""The numerical environment the kit computes in, the same on every machine.

OpenBLAS picks its kernels from the processor at load time, XLA compiles for the instruction
set it finds, and both split work over as many threads as they see. The floats they return
differ in the last bits between, say, an AVX2 and an AVX-512 machine; a bootstrap or a trained
sampler turns those bits into other graphs, counts and p-values. So every process of the kit
runs with one fixed environment (:data:`VARIABLES`), set by :func:`apply` before numpy or jax
is first imported (``import causaleval`` calls it first thing; the CLI, the kit's Jupyter
kernel, papermill, nbval, joblib and Dask workers inherit it):

* ``OPENBLAS_CORETYPE=Haswell``: OpenBLAS's AVX2/FMA kernels, which every x86-64 processor with
  AVX2 and FMA runs, and which made the committed outputs;
* one thread for OpenBLAS, OpenMP and MKL (``*_NUM_THREADS=1``): a reduction split over threads
  sums in another order; the kit's trials already run in parallel processes;
* XLA capped at AVX2, with its own portable approximations of exp, log, tanh and the like instead
  of the processor's (``--xla_cpu_enable_platform_dependent_math=false``: measured, BCD Nets'
  samples on one processor change with it), 256-bit vectors, one Eigen thread, and no YNNPACK or
  XNNPACK fusions (:data:`XLA`, added to a user's own ``XLA_FLAGS``, replacing any of these the
  user set);
* every XLA dot on the CPU compiled as a call to that pinned OpenBLAS (:func:`pin_jax`, when a JAX
  method starts; :mod:`causaleval.xla_dots`): XLA otherwise hands dots to Eigen with oneDNN's sgemm,
  or to YNNPACK, which pick their kernels and blocking from the processor when the program runs,
  past ``--xla_cpu_max_isa``; on an AVX-512 processor a transposed or batched dot then sums in
  another order than on an AVX2 one (measured against ``qemu-x86_64 -cpu Haswell``), and DiBS,
  BCD Nets and DAG-GFlowNet trained to other graphs;
* numba compiling for the ``haswell`` target with that target's own features
  (``NUMBA_CPU_NAME=haswell``, ``NUMBA_CPU_FEATURES`` empty);
* numpy's own loops without their AVX-512 versions (``NPY_DISABLE_CPU_FEATURES``, numpy 2.4's names
  of its dispatch targets above AVX2): on an AVX-512 processor numpy's float64 ``exp``, ``log``,
  ``power``, ``log1p``, ``expm1`` and ``arctan2`` otherwise return other last bits than on an AVX2
  one (measured on numpy 2.4.6; the AVX2 side under ``qemu-x86_64 -cpu Haswell``), which moved
  studies 2, 4 and 5 in the last digits.

Other variables a machine sets (``OPENBLAS_L2_SIZE``, a vendor BLAS's own) are kept.

A processor the pin cannot cover (no AVX2 and FMA, or not x86-64, e.g. ARM) keeps its native
kernels: the kit runs, and says once per command that outputs may differ from the committed ones
in the last digits (``causaleval check-figures`` then tells whether any decision changed).
``CAUSALEVAL_NUMERICS=native`` turns the pin off on purpose (for speed on many cores), with the
same one-line note. Every provenance file records what was in force (:func:`describe`).

This module imports only the standard library at import: it must run before numpy (:func:`pin_jax`
imports jax when it is called).
"""

from __future__ import annotations

import os
import platform
import re
import sys
import warnings
from typing import Any

#: the environment every kit process computes in, on a processor the pin covers
VARIABLES = {
    "OPENBLAS_CORETYPE": "Haswell",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_CPU_NAME": "haswell",
    "NUMBA_CPU_FEATURES": "",
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
}
#: the XLA flags the kit sets, by name (a user's value of any of them is replaced)
XLA = {"--xla_cpu_max_isa": "AVX2", "--xla_cpu_enable_platform_dependent_math": "false",
       "--xla_cpu_prefer_vector_width": "256", "--xla_cpu_multi_thread_eigen": "false",
       "--xla_cpu_experimental_ynn_fusion_type": "", "--xla_cpu_experimental_xnn_fusion_type": ""}
#: the processor features the pinned kernels need (``/proc/cpuinfo`` names)
NEEDED = ("avx", "avx2", "fma", "bmi1", "bmi2", "movbe", "f16c", "popcnt")
SWITCH = "CAUSALEVAL_NUMERICS"
_NOTED = "CAUSALEVAL_NUMERICS_NOTED"  # set once the note was given, so child processes do not repeat it
_JAX_PINNED = False  # set by pin_jax once XLA's dots are lowered to the pinned OpenBLAS in this process


class NumericsWarning(UserWarning):
    """Outputs may differ from the committed ones in the last digits (see :mod:`causaleval.numenv`)."""


def cpu_flags(cpuinfo: str = "/proc/cpuinfo") -> set[str] | None:
    """The processor's feature flags from Linux's ``/proc/cpuinfo``; None where it cannot be read."""
    try:
        with open(cpuinfo) as handle:
            for line in handle:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        return None
    return None


def uncovered(machine: str | None = None, flags: set[str] | None = None) -> str | None:
    """Why the pin cannot run here (a sentence), or None on an x86-64 processor with every
    feature of :data:`NEEDED`."""
    machine = machine or platform.machine()
    if machine.lower() not in ("x86_64", "amd64"):
        return f"the processor is {machine}, not x86-64"
    flags = cpu_flags() if flags is None else flags
    if flags is None:
        return "the processor's features cannot be read (no /proc/cpuinfo)"
    missing = [f for f in NEEDED if f not in flags]
    return f"the processor lacks {', '.join(missing)}" if missing else None


def pinned_xla_flags(flags: str, cap_isa: bool = True) -> str:
    """``flags`` with the kit's XLA settings (:data:`XLA`; the instruction-set cap only with
    ``cap_isa``) in place of any the user set."""
    names = "|".join(re.escape(name) for name in XLA)
    kept = [f for f in flags.split() if not re.match(rf"^(?:{names})(?:=|$)", f)]
    ours = {name: value for name, value in XLA.items() if cap_isa or name != "--xla_cpu_max_isa"}
    return " ".join([*kept, *(f"{name}={value}" for name, value in ours.items())])


def target(environ: dict[str, str] | os._Environ[str] | None = None) -> tuple[dict[str, str], str | None]:
    """The variables the kit sets in ``environ`` (default ``os.environ``) and, when it cannot pin
    all of them, why (the one-line note). Threads and XLA's threads are fixed everywhere; the
    kernels and instruction sets only where :func:`uncovered` is None."""
    environ = os.environ if environ is None else environ
    if environ.get(SWITCH, "pinned") == "native":
        return {}, f"{SWITCH}=native: the BLAS, XLA and numba kernels are this processor's own"
    if environ.get(SWITCH, "pinned") != "pinned":
        raise ValueError(f"{SWITCH}={environ[SWITCH]!r}: expected 'pinned' (the default) or 'native'")
    why = uncovered()
    wanted = {name: value for name, value in VARIABLES.items() if not why or name.endswith("_THREADS")}
    # the cap is a ceiling, harmless below AVX2; XLA knows no x86 instruction sets elsewhere
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    wanted["XLA_FLAGS"] = pinned_xla_flags(environ.get("XLA_FLAGS", ""), cap_isa=x86)
    return wanted, why


def apply() -> None:
    """Set the kit's numerical environment in ``os.environ`` (idempotent). Warns once
    (:class:`NumericsWarning`) when the pin cannot cover this processor, and when numpy or jax
    was imported before with other settings, so this process computes with other kernels."""
    wanted, why = target()
    loaded = {"OPENBLAS": "numpy", "OMP": "numpy", "MKL": "numpy", "NPY": "numpy", "NUMBA": "numba", "XLA": "jax"}
    late = [f"{name}={os.environ.get(name, '(unset)')}" for name, value in wanted.items()
            if os.environ.get(name) != value and loaded[name.split("_")[0]] in sys.modules]
    os.environ.update(wanted)
    if late:
        warnings.warn(f"numpy, numba or jax was imported before causaleval, with {', '.join(late)}: this process "
                      "computes with other kernels than the kit's, so its outputs may differ from the committed ones "
                      "in the last digits; import causaleval first, or use the kit's kernel 'causaleval'",
                      NumericsWarning, stacklevel=3)
    if why and not os.environ.get(_NOTED):
        os.environ[_NOTED] = "1"
        warnings.warn(f"{why}, so the kit's numerical pin does not apply: outputs may differ from the committed "
                      "ones in the last digits; `causaleval check-figures` tells whether any decision changed",
                      NumericsWarning, stacklevel=3)


def pin_jax() -> bool:
    """Compile every floating-point XLA dot on the CPU in this process as a call to the pinned
    OpenBLAS (:mod:`causaleval.xla_dots`), where the pin applies; idempotent. True when the dots
    are so compiled. The kit calls it before a JAX method compiles anything; a user's own JAX code
    calls it once before its first ``jit``."""
    global _JAX_PINNED
    if not _JAX_PINNED and target()[1] is None:
        from jax import lax
        from jax.interpreters import mlir

        from causaleval import xla_dots

        xla_dots.register()
        mlir.register_lowering(lax.dot_general_p, mlir.lower_fun(xla_dots.lower, multiple_results=False),
                               platform="cpu")
        _JAX_PINNED = True
    return _JAX_PINNED


def describe() -> dict[str, Any]:
    """What was in force in this process, for provenance: whether the pin applies and took (or why
    not: a loaded BLAS without the pinned kernel or with more threads says the pin did not take),
    the processor, each loaded BLAS/OpenMP library with its kernel and threads (threadpoolctl),
    the variables of :data:`VARIABLES` and ``XLA_FLAGS``, and what XLA's dots run on the CPU
    (``xla_dots``: where the pin applies, OpenBLAS in every process that runs a kit JAX method,
    :func:`pin_jax`; "pinned" when that OpenBLAS runs the pinned kernel, else "not pinned")."""
    from threadpoolctl import threadpool_info

    why = target()[1]
    lowered = why is None  # pin_jax sends the dots to OpenBLAS whether or not its variables took
    libraries = [{key: info.get(key) for key in ("user_api", "internal_api", "prefix", "version",
                                                 "architecture", "threading_layer", "num_threads")}
                 for info in threadpool_info()]
    astray = [f"{lib['internal_api']} {lib['version']} runs {lib['architecture']} with {lib['num_threads']} thread(s)"
              for lib in libraries if lib["user_api"] == "blas"
              and (lib["architecture"] != VARIABLES["OPENBLAS_CORETYPE"] or lib["num_threads"] != 1)]
    if why is None and astray:  # numpy came before causaleval in this process: the variables did not take
        why = f"{'; '.join(astray)}, not the pinned kernel with 1 thread (numpy was imported before causaleval)"
    return {
        "pinned": why is None,
        "not_pinned_because": why,
        "processor": platform.machine(),
        "libraries": sorted(libraries, key=lambda lib: (str(lib["prefix"]), str(lib["version"]))),
        "environment": {name: os.environ.get(name) for name in [*VARIABLES, "XLA_FLAGS"]},
        "xla_dots": (("pinned OpenBLAS" if why is None else "OpenBLAS, not pinned") + " (causaleval.xla_dots)"
                     if lowered else "XLA's own kernels"),
    }
