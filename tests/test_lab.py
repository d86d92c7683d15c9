"""``causaleval lab`` (``make lab``): JupyterLab starts (as root too), on 127.0.0.1 with a token, prints
its URL only once it answers, opens the kit's notebooks and the user's studies, and stops with its
kernels on Ctrl-C."""

import json
import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from causaleval import paths


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, token: str | None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, b""


@pytest.fixture
def lab(tmp_path):
    port = _free_port()
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "09_mine.ipynb").write_text("{}")
    # SIGINT back to its default in the child: a test run started in the background (``make test &``)
    # inherits SIGINT ignored, and Python then installs no Ctrl-C handler, so the lab could not be stopped
    proc = subprocess.Popen([sys.executable, "-m", "causaleval", "lab", "--port", str(port)], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        first = proc.stdout.readline()
        match = re.fullmatch(rf"JupyterLab: http://127\.0\.0\.1:{port}/lab\?token=(\S+)\n", first)
        assert match, f"unexpected first line {first!r}"
        yield port, match[1], proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_lab_serves_the_kit_and_the_users_notebooks_to_the_token_holder_only(lab):
    port, token, proc = lab
    url = f"http://127.0.0.1:{port}/api/contents"
    status, body = _get(url, token)  # the URL is printed once the server answers: no waiting here
    assert status == 200
    assert {item["name"] for item in json.loads(body)["content"]} == {"kit", "studies"}
    kit = {item["name"] for item in json.loads(_get(f"{url}/kit", token)[1])["content"]}
    assert {p.name for p in paths.NOTEBOOKS.glob("*.ipynb")} <= kit
    mine = {item["name"] for item in json.loads(_get(f"{url}/studies", token)[1])["content"]}
    assert "09_mine.ipynb" in mine
    assert _get(url, None)[0] == 403
    assert _get(url, token + "x")[0] == 403
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=90) == 130  # generous: under make test the other worker may hold both cores
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        _get(url, token)
