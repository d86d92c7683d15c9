"""Same numbers on every machine (causaleval.numenv): the kit's numerical environment overrides
the BLAS kernel, threads, XLA instruction set and numba target a machine or a user's shell gives a
process, before numpy starts; provenance records it; a late import is said in one line."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from causaleval import numenv, paths, report
from committed import committed_figures

PROBE = Path(__file__).with_name("numerics_probe.py")
COVERED = numenv.uncovered() is None
needs_pin = pytest.mark.skipif(not COVERED, reason=f"the pin does not apply on this processor: {numenv.uncovered()}")
# what another machine or a user's shell may hold: other OpenBLAS kernels (Sandybridge and Prescott
# run on every x86-64 processor), threads, an XLA instruction-set ceiling and threading, numba's target
FOREIGN = {
    "sandybridge": {"OPENBLAS_CORETYPE": "Sandybridge", "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2",
                    "XLA_FLAGS": "--xla_cpu_max_isa=SSE4_2 --xla_cpu_multi_thread_eigen=true",
                    "NUMBA_CPU_NAME": "generic",
                    "NPY_DISABLE_CPU_FEATURES": ""},
    "prescott": {"OPENBLAS_CORETYPE": "Prescott"},
}


def _clean_env(**extra: str) -> dict[str, str]:
    """This environment less everything the kit pins (as a fresh shell has it), plus ``extra``."""
    env = {k: v for k, v in os.environ.items()
           if k not in {*numenv.VARIABLES, "XLA_FLAGS", numenv.SWITCH, "CAUSALEVAL_NUMERICS_NOTED",
                        "JAX_COMPILATION_CACHE_DIR"}}
    return env | extra


def _probe(env: dict[str, str], *flags: str) -> dict:
    done = subprocess.run([sys.executable, str(PROBE), *flags], env=env, capture_output=True, text=True,
                          timeout=600, cwd=PROBE.parent.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


#: numerics_probe.numpy_loops on numpy 2.4.6's AVX2 loops (measured under ``qemu-x86_64 -cpu Haswell``;
#: the pinned kit gives the same on an AVX-512 processor, the unpinned numpy there other last bits)
AVX2_LOOPS = {"exp": "d38802ffa42fedd8", "log": "510126c1a2a48495", "power": "8a8aca14b23b7b99",
              "log1p": "e202bb36f9bbe468", "expm1": "54450e721aff3fb4", "arctan2": "d3db1410ba58ff7a"}


@pytest.fixture(scope="module")
def reference() -> dict:
    """The probe in a fresh shell's environment, with the JAX methods and a Dask worker."""
    return _probe(_clean_env(), "--jax", "--dask")


@needs_pin
def test_other_kernels_in_the_environment_give_the_same_numbers(reference):
    pinned = {"blas": ["Haswell"], "numba": "haswell", "threads": [1],
              "xla": numenv.pinned_xla_flags("")}
    assert reference["main"] == pinned and reference["workers"] == [pinned, pinned] and reference["dask"] == [pinned]
    for name, env in FOREIGN.items():
        flags = ("--jax", "--dask") if name == "sandybridge" else ()
        got = _probe(_clean_env(**env), *flags)
        xla = env.get("XLA_FLAGS", "")
        assert got["main"]["blas"] == ["Haswell"], name  # the kernel the environment asked for was overridden
        if name == "sandybridge":
            assert got == reference, name
        else:
            assert got == {k: v for k, v in reference.items() if k not in ("dag_gflownet", "dibs", "dask")}, name
        assert xla == "" or got["main"]["xla"] == pinned["xla"]


@needs_pin
def test_numpys_own_loops_are_the_avx2_ones_on_every_processor(reference):
    """numpy dispatches exp, log, power and the like to AVX-512 loops where the processor has them,
    with other last bits; the pin turns them off, so a kit process computes the AVX2 values."""
    import numpy as np

    if np.__version__ != "2.4.6":
        pytest.skip(f"AVX2_LOOPS were measured on numpy 2.4.6 (constraints.txt); this is {np.__version__}")
    assert reference["numpy_loops"] == AVX2_LOOPS


@needs_pin
def test_the_probe_tells_other_kernels_apart(reference):
    """The control: with the pin turned off, the Sandybridge kernel runs and bootstrap GES's
    posterior changes, so the test above compares outputs that depend on the kernel."""
    native = _probe(_clean_env(CAUSALEVAL_NUMERICS="native", OPENBLAS_CORETYPE="Sandybridge"))
    assert native["main"]["blas"] == ["Sandybridge"]
    assert native["bootstrap_ges"] != reference["bootstrap_ges"]


@needs_pin
def test_the_kits_kernel_fixes_the_environment_before_the_first_cell():
    from jupyter_client.manager import start_new_kernel

    from causaleval.app.kernel import NAME, ensure_kernelspec

    ensure_kernelspec()
    km, kc = start_new_kernel(kernel_name=NAME, env=_clean_env(**FOREIGN["sandybridge"]))
    try:
        code = ("import numpy, os, threadpoolctl; print([i['architecture'] for i in threadpoolctl.threadpool_info()], "
                "os.environ['XLA_FLAGS'])")
        lines = []
        kc.execute_interactive(code, output_hook=lambda msg: lines.append(msg["content"].get("text", "")), timeout=120)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert "".join(lines).strip() == f"['Haswell'] {numenv.pinned_xla_flags('')}"


@needs_pin
@pytest.mark.parametrize("x_shape, y_shape, numbers, spec", [
    ((5, 3), (3, 4), (((1,), (0,)), ((), ())), "ik,kj->ij"),
    ((3, 5), (3, 4), (((0,), (0,)), ((), ())), "ki,kj->ij"),  # transposed, as autodiff writes it
    ((2, 5, 3, 4), (4, 2, 3, 6), (((2, 3), (2, 0)), ((0,), (1,))), "bikl,lbkj->bij"),  # batched, two sums
    ((5,), (4,), (((), ()), ((), ())), "i,j->ij"),  # no sum: the outer product
    ((7, 5), (5,), (((1,), (0,)), ((), ())), "ik,k->i"),
    ((0, 3), (3, 4), (((1,), (0,)), ((), ())), "ik,kj->ij"),  # an empty operand
])
def test_xlas_dots_are_compiled_as_calls_of_the_pinned_blas(x_shape, y_shape, numbers, spec):
    """numenv.pin_jax: a float dot compiles to the kit's FFI call (causaleval.xla_dots), not to a
    library XLA picks (Eigen with oneDNN, YNNPACK, XNNPACK pick their kernels from the processor),
    and gives the dot's values, in float32 and in bfloat16; an integer dot stays exact."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    from causaleval.bayes.posteriors import optional_modules
    from causaleval.xla_dots import TARGET

    optional_modules("a JAX method", "jax")
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=x_shape).astype(np.float32), rng.normal(size=y_shape).astype(np.float32)
    dot = jax.jit(lambda a, b: lax.dot_general(a, b, numbers))
    compiled = dot.lower(x, y).compile().as_text()
    assert not [op for op in (" dot(", "ynn_fusion", "xnn_fusion") if op in compiled], compiled
    assert (f'custom_call_target="{TARGET}"' in compiled) == bool(x.size), compiled
    expected = np.einsum(spec, x.astype(float), y.astype(float))
    np.testing.assert_allclose(dot(x, y), expected, rtol=1e-5, atol=1e-5)
    half = dot(jnp.asarray(x, jnp.bfloat16), jnp.asarray(y, jnp.bfloat16))
    assert half.dtype == jnp.bfloat16
    np.testing.assert_allclose(np.asarray(half, np.float32), expected, rtol=0.05, atol=0.1)
    counts = np.arange(12, dtype=np.int32).reshape(3, 4)
    whole = jax.jit(lambda a: a @ a.T)(counts)
    assert whole.dtype == np.int32 and whole.tolist() == (counts @ counts.T).tolist()
    small = (counts % 3).astype(np.int8)  # XLA's loops keep the narrow type (their sum is cast back)
    narrow = jax.jit(lambda a: a @ a.T)(small)
    assert narrow.dtype == np.int8 and narrow.tolist() == (small @ small.T).tolist()


@needs_pin
def test_a_dot_past_the_blas_integers_is_refused_when_traced():
    import jax
    import numpy as np
    from jax import lax

    from causaleval.bayes.posteriors import optional_modules

    optional_modules("a JAX method", "jax")
    tall = jax.ShapeDtypeStruct((2**31, 2), np.float32)
    with pytest.raises(ValueError, match=r"2147483648 x 2 by 2 x 3 per batch; .*below 2\*\*31"):
        jax.jit(lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())))).lower(
            tall, jax.ShapeDtypeStruct((2, 3), np.float32))


@needs_pin
def test_a_kit_jax_method_pins_the_dots_when_it_imports_jax():
    """In a fresh process (another test of this one may have pinned already): not pinned after
    ``import causaleval`` alone, pinned once a kit method imports JAX (optional_modules)."""
    code = ("import causaleval; from causaleval import numenv; "
            "from causaleval.bayes.posteriors import optional_modules; "
            "before = numenv._JAX_PINNED; optional_modules('a JAX method', 'jax'); print(before, numenv._JAX_PINNED)")
    done = subprocess.run([sys.executable, "-c", code], env=_clean_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["False", "True"]


QEMU = shutil.which("qemu-x86_64")


@needs_pin
@pytest.mark.skipif(QEMU is None, reason="qemu-x86_64 (Debian's qemu-user; make system-packages installs it) is "
                                         "not installed: no emulated AVX2 processor to compare this one with")
def test_xlas_dots_give_the_same_bits_on_an_emulated_avx2_processor():
    """The JAX methods' dots (plain, transposed, batched, an MLP's gradient) here and on an AVX2
    processor emulated by ``qemu-x86_64 -cpu Haswell``: on an AVX-512 processor the transposed and
    batched ones differed before numenv.pin_jax, and DiBS, BCD Nets and DAG-GFlowNet trained to
    other graphs."""
    native = _probe(_clean_env(), "--dots")
    emulated = subprocess.run([QEMU, "-cpu", "Haswell", sys.executable, str(PROBE), "--dots"], env=_clean_env(),
                              capture_output=True, text=True, timeout=900, cwd=PROBE.parent.parent)
    assert emulated.returncode == 0, emulated.stderr[-3000:]
    assert json.loads(emulated.stdout.strip().splitlines()[-1]) == native


def test_a_late_import_is_said_in_one_line():
    code = "import numpy, causaleval"
    late = subprocess.run([sys.executable, "-c", code], env=_clean_env(OPENBLAS_CORETYPE="Prescott"),
                          capture_output=True, text=True, timeout=300)
    assert late.returncode == 0
    said = [line for line in late.stderr.splitlines() if "NumericsWarning" in line]
    assert len(said) == 1 and "numpy, numba or jax was imported before causaleval" in said[0]
    assert "OPENBLAS_CORETYPE=Prescott" in said[0]
    first = subprocess.run([sys.executable, "-c", "import causaleval, numpy"],
                           env=_clean_env(OPENBLAS_CORETYPE="Prescott"), capture_output=True, text=True, timeout=300)
    assert first.returncode == 0 and "NumericsWarning" not in first.stderr


def test_an_uncovered_processor_is_said_once_per_command():
    code = ("import causaleval, subprocess, sys; "
            "subprocess.run([sys.executable, '-c', 'import causaleval'], check=True)")
    done = subprocess.run([sys.executable, "-c", code], env=_clean_env(CAUSALEVAL_NUMERICS="native"),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0
    said = [line for line in done.stderr.splitlines() if "NumericsWarning" in line]
    assert len(said) == 1 and "CAUSALEVAL_NUMERICS=native" in said[0] and "check-figures" in said[0]


def test_xla_flags_of_the_user_are_kept_and_the_kits_replace_theirs():
    flags = "--xla_dump_to=/tmp/x --xla_cpu_max_isa=AVX512 --xla_cpu_multi_thread_eigen=true"
    assert numenv.pinned_xla_flags(flags) == (
        "--xla_dump_to=/tmp/x --xla_cpu_max_isa=AVX2 --xla_cpu_enable_platform_dependent_math=false "
        "--xla_cpu_prefer_vector_width=256 --xla_cpu_multi_thread_eigen=false "
        "--xla_cpu_experimental_ynn_fusion_type= --xla_cpu_experimental_xnn_fusion_type=")
    assert "max_isa" not in numenv.pinned_xla_flags(flags, cap_isa=False)


@pytest.mark.parametrize("machine, flags, why", [
    ("x86_64", set(numenv.NEEDED) | {"sse4_2"}, None),
    ("x86_64", set(numenv.NEEDED) - {"avx2", "fma"}, "the processor lacks avx2, fma"),
    ("aarch64", set(), "the processor is aarch64, not x86-64"),
])
def test_which_processors_the_pin_covers(machine, flags, why):
    assert numenv.uncovered(machine, flags) == why


def test_an_uncovered_processor_keeps_its_kernels_but_not_its_threads(monkeypatch):
    monkeypatch.setattr(numenv, "uncovered", lambda: "the processor lacks avx2")
    wanted, why = numenv.target({})
    assert why == "the processor lacks avx2" and "OPENBLAS_CORETYPE" not in wanted and "NUMBA_CPU_NAME" not in wanted
    assert wanted["OPENBLAS_NUM_THREADS"] == "1" and "--xla_cpu_multi_thread_eigen=false" in wanted["XLA_FLAGS"]


def test_a_misspelt_switch_is_refused_by_name():
    with pytest.raises(ValueError, match="CAUSALEVAL_NUMERICS='natve': expected 'pinned'"):
        numenv.target({"CAUSALEVAL_NUMERICS": "natve"})


def test_provenance_names_the_numerical_environment():
    numerics = report.provenance("asia_mag_nced", {})["numerics"]
    assert numerics["pinned"] is COVERED and numerics["environment"]["XLA_FLAGS"].endswith(
        "--xla_cpu_experimental_xnn_fusion_type=")
    assert numerics["xla_dots"] == ("pinned OpenBLAS (causaleval.xla_dots)" if COVERED else "XLA's own kernels")
    blas = [lib for lib in numerics["libraries"] if lib["user_api"] == "blas"]
    assert blas and all(lib["num_threads"] == 1 for lib in blas)
    if COVERED:
        assert {lib["architecture"] for lib in blas} == {"Haswell"}


@needs_pin
def test_provenance_does_not_claim_a_pin_that_did_not_take(monkeypatch):
    """A process where numpy came before causaleval runs its own BLAS kernel: provenance says so."""
    import threadpoolctl

    loaded = [{"user_api": "blas", "internal_api": "openblas", "prefix": "libscipy_openblas", "version": "0.3.30",
               "architecture": "SkylakeX", "threading_layer": "pthreads", "num_threads": 2}]
    monkeypatch.setattr(threadpoolctl, "threadpool_info", lambda: loaded)
    numerics = numenv.describe()
    assert numerics["pinned"] is False
    assert numerics["not_pinned_because"].startswith("openblas 0.3.30 runs SkylakeX with 2 thread(s), not the pinned")


@pytest.mark.skipif(not COVERED, reason="the pin does not apply on this processor: XLA's dots stay XLA's own")
def test_provenance_says_the_dots_run_on_an_openblas_not_pinned_when_numpy_came_first():
    code = ("import json, numpy, causaleval, warnings\nfrom causaleval import numenv\n"
            "print(json.dumps({k: numenv.describe()[k] for k in ('pinned', 'xla_dots')}))")
    env = {k: v for k, v in os.environ.items() if k not in numenv.VARIABLES and k != "XLA_FLAGS"}
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", code], env=env, capture_output=True, text=True,
                          check=True)
    # numpy's OpenBLAS chose its kernel before causaleval set it (unless it is Haswell's)
    seen = json.loads(done.stdout)
    assert seen["xla_dots"] == (("pinned OpenBLAS" if seen["pinned"] else "OpenBLAS, not pinned")
                                + " (causaleval.xla_dots)")


def _committed_figures() -> list[str]:
    listed = committed_figures()
    if listed is None:
        pytest.skip("not a git checkout of the kit: the committed outputs cannot be told from a user's")
    return listed


def test_every_committed_output_was_made_in_the_kits_numerical_environment():
    """The committed figures/ are what a user on another processor regenerates only if they were made
    pinned: each output has a provenance stamp, and each stamp records the pin in force (the kit's
    variables and XLA flags, every BLAS on the pinned kernel with one thread, XLA's dots on it)."""
    files = _committed_figures()
    stamps = [f for f in files if f.endswith(".provenance.json")]
    outputs = [f for f in files if f not in stamps and Path(f).name not in ("README.md", ".gitignore")]
    bases = {s[: -len(".provenance.json")] for s in stamps}
    assert not [o for o in outputs
                if re.sub(r"\.(csv\.gz|[^./]+)$", "", o) not in bases], "outputs without a provenance stamp"
    expected = {**numenv.VARIABLES, "XLA_FLAGS": numenv.pinned_xla_flags("", cap_isa=True)}
    astray = {}
    for stamp in stamps:
        numerics = json.loads((paths.ROOT / stamp).read_text())["numerics"]
        problems = [what for what, bad in [
            ("not pinned", not numerics["pinned"]),
            ("environment", numerics["environment"] != expected),
            ("BLAS kernel", any(lib["user_api"] == "blas" and lib["architecture"] != expected["OPENBLAS_CORETYPE"]
                                for lib in numerics["libraries"])),
            ("threads", any(lib["num_threads"] != 1 for lib in numerics["libraries"])),
            ("XLA's dots", numerics["xla_dots"] != "pinned OpenBLAS (causaleval.xla_dots)")] if bad]
        if problems:
            astray[stamp] = problems
    assert not astray, f"{len(astray)} of {len(stamps)} stamps: {dict(list(astray.items())[:5])}"
