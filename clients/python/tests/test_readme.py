"""The main README's Python example runs as written: against the test's server in place of
127.0.0.1:8474, importing the installed package, as a project that installed it does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from .conftest import Fixture
from .server import REPO_ROOT


def test_the_readme_from_python_example_runs(fx: Fixture, tmp_path: Path) -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### From Python", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "README.md has a ```python block under From Python"
    code = found.group(1)
    assert '"http://127.0.0.1:8474"' in code
    script = tmp_path / "readme_example.py"
    script.write_text(code.replace('"http://127.0.0.1:8474"', repr(fx.server.url)), encoding="utf-8")
    fx.desk("ana").post("Deploy #41 is red.")
    env = {**os.environ, "TRANSCRIPT_TOKEN": fx.secrets["triage"]}
    proc = subprocess.Popen(
        [sys.executable, str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        deadline = time.monotonic() + 20
        while not any(line.startswith("posted #") for line in lines):
            assert time.monotonic() < deadline, f"the example did not post: {lines}"
            line = proc.stdout.readline()
            assert line, f"the example exited: {proc.stderr.read() if proc.stderr else ''}"
            lines.append(line)
        fx.desk("ana").post("The migration runs at 22:00.")
        out, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
    finally:
        proc.kill()
        proc.wait(10)
    text = "".join(lines) + out
    assert re.search(r"#\d+ ana: Deploy #41 is red\.", text), text
    assert re.search(r"#\d+ ana: The migration runs at 22:00\.", text), text
