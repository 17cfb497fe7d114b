"""The package as a user installs it: an sdist and a wheel built with ``python -m build``,
the wheel installed into a new virtual environment outside the checkout, and a program there
that uses it against a real transcript serve. Offline: the package's dependencies come from
the tests' own environment, never from an index."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

from .conftest import Fixture

PACKAGE = Path(__file__).resolve().parents[1]


def run(*args: str | Path, cwd: Path) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"{' '.join(map(str, args))}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_wheel_installs_into_a_new_environment_and_works(fx: Fixture, tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, PACKAGE, cwd=tmp_path)
    wheels = list(dist.glob("sharedesk_transcript-*.whl"))
    assert len(wheels) == 1 and list(dist.glob("sharedesk_transcript-*.tar.gz")), (
        f"an sdist and a wheel: {list(dist.iterdir())}"
    )
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert "sharedesk_transcript/py.typed" in names and "sharedesk_transcript/models.py" in names
    assert not [n for n in names if n.startswith("tests/")], "no tests in the wheel"

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path).strip())
    run(python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", wheels[0], cwd=tmp_path)
    # The dependencies, offline: the tests' environment's, after the new environment's own.
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")

    project = tmp_path / "project"
    project.mkdir()
    (project / "smoke.py").write_text(
        textwrap.dedent(
            """
            import sys
            import sharedesk_transcript
            from sharedesk_transcript import APIConnectionError, Desk, RateLimitError
            from sharedesk_transcript.turn import Reply, take_turn

            assert sharedesk_transcript.__file__.startswith(sys.prefix), sharedesk_transcript.__file__
            with Desk(sys.argv[1], token=sys.argv[2], desk="eng") as desk:
                row = desk.post("from the wheel")
                turn = take_turn(desk, lambda news, me: None, lambda state: None)
                print(row.seq, [m.content for m in desk.view().messages or []], turn.state.watermark)
            """
        ),
        encoding="utf-8",
    )
    out = run(python, "smoke.py", fx.server.url, fx.secrets["triage"], cwd=project)
    assert out.strip() == "1 ['from the wheel'] 1", out
