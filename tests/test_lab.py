"""``make lab``: JupyterLab starts (as root too), on 127.0.0.1 with a token, and lists the notebooks."""

import json
import re
import signal
import socket
import subprocess
import sys
import time
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
def lab():
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "causaleval.app.lab", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        first = proc.stdout.readline()
        match = re.fullmatch(rf"JupyterLab: http://127\.0\.0\.1:{port}/lab\?token=(\S+)\n", first)
        assert match, f"unexpected first line {first!r}"
        yield port, match[1]
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_lab_serves_the_notebooks_to_the_token_holder_only(lab):
    port, token = lab
    url = f"http://127.0.0.1:{port}/api/contents"
    deadline = time.monotonic() + 60
    while True:
        try:
            status, body = _get(url, token)
            break
        except (urllib.error.URLError, ConnectionError):
            assert time.monotonic() < deadline, "JupyterLab did not answer within 60 s"
            time.sleep(0.5)
    assert status == 200
    listed = {item["name"] for item in json.loads(body)["content"]}
    assert {p.name for p in paths.NOTEBOOKS.glob("*.ipynb")} <= listed
    assert _get(url, None)[0] == 403
    assert _get(url, token + "x")[0] == 403
