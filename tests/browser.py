"""Headless Chromium for the report's tests: a screenshot of a page, and the rendered widths of its
images (read by a probe copy of the page whose script writes them into the title, which
``--dump-dom`` returns)."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PROBE = ("<script>window.addEventListener('load', () => { document.title = 'widths:' + "
         "Array.from(document.querySelectorAll('article img')).map(i => Math.round(i.getBoundingClientRect().width))"
         ".join(','); });</script>")


def chromium() -> str:
    """Chromium's path; the test is skipped without it (failed under CAUSALEVAL_REQUIRE_BROWSER)."""
    browser = shutil.which("chromium")
    if browser is None:
        if os.environ.get("CAUSALEVAL_REQUIRE_BROWSER"):
            pytest.fail("CAUSALEVAL_REQUIRE_BROWSER is set but chromium is not installed")
        pytest.skip("chromium not installed (make test installs it)")
    return browser


def screenshot(page: Path, shot: Path, profile: Path, size: str = "1280,2400") -> subprocess.CompletedProcess:
    """Load ``page`` and save a screenshot; stderr carries the console's messages."""
    shot.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                           f"--window-size={size}", f"--screenshot={shot}", page.as_uri()],
                          capture_output=True, text=True, timeout=120)


def image_widths(page: Path, profile: Path, width: int = 1280) -> list[int]:
    """The rendered widths (CSS pixels) of the images in ``page``'s article at a window ``width`` wide."""
    probe = page.with_name(f".probe-{page.name}")
    probe.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    try:
        done = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},1200",
                               "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
                              capture_output=True, text=True, timeout=120)
    finally:
        probe.unlink()
    found = re.search(r"<title>widths:([0-9,]*)</title>", done.stdout)
    assert found, done.stderr[-2000:]
    return [int(w) for w in found[1].split(",") if w]
