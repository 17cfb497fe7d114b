"""examples/python/turn.py, the README's agent turn, against a real serve: its first turn
answers what is there; its second sees what another participant wrote in between, an aside
it may not read as an elision, and not its own first reply; a third has nothing to answer;
after a reinitialization it starts over from the view and its replayed key makes no second
reply; it answers an aside as an aside."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .conftest import Fixture
from .server import REPO_ROOT

SCRIPT = REPO_ROOT / "examples" / "python" / "turn.py"
TRIAGE = {"type": "agent", "id": "triage"}  # a saved state names its participant


def run_turn(fx: Fixture, state: Path) -> tuple[str, str]:
    env = {**os.environ, "TRANSCRIPT_TOKEN": fx.secrets["triage"], "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--url", fx.server.url, "--desk", "eng", "--state", str(state)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, f"turn.py: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout, done.stderr


def saved(state: Path) -> dict[str, object]:
    value = json.loads(state.read_text(encoding="utf-8"))
    assert isinstance(value, dict)
    return value


def test_turn_py(fx: Fixture, tmp_path: Path) -> None:
    ana, op = fx.desk("ana"), fx.desk("operator")
    state = tmp_path / "triage.json"

    ana.post("Deploy #41 is red")
    out, err = run_turn(fx, state)
    assert '<message seq="1" kind="person" id="ana" label="Ana">\nDeploy #41 is red\n</message>' in out
    assert "replied with #2" in err
    assert saved(state) == {"conversation": {"desk": "eng"}, "watermark": 1, "present": [2], "viewer": TRIAGE}
    view = op.view()
    assert [(m.author.id, m.content) for m in view.messages or []] == [
        ("ana", "Deploy #41 is red"),
        ("triage", "echo: Deploy #41 is red"),
    ]

    op.post("between us: freeze on Friday", audience=["person:ana"])  # #3, not triage's
    ana.post("Split it in <two>? Ana's 'plan'")  # #4
    out, err = run_turn(fx, state)
    assert (
        '<message seq="4" kind="person" id="ana" label="Ana">\nSplit it in &lt;two&gt;? Ana\'s \'plan\'\n</message>'
        in out
    )
    assert '<elided from="3" through="3" count="1"' in out and "freeze" not in out
    assert 'seq="2"' not in out and "Deploy" not in out, "its own reply and what turn 1 saw are not news"
    assert "replied with #5" in err
    assert saved(state) == {"conversation": {"desk": "eng"}, "watermark": 4, "present": [5], "viewer": TRIAGE}

    out, err = run_turn(fx, state)
    assert out == "" and "nothing new" in err

    state.write_text('{"conversation":{"desk":"eng","thread":1},"watermark":0,"present":[]}', encoding="utf-8")
    out, err = run_turn(fx, state)
    assert "reinitialize (conversation_changed)" in err and "Split it in" in out and "replied with #5" in err
    assert saved(state) == {"conversation": {"desk": "eng"}, "watermark": 5, "present": [], "viewer": TRIAGE}
    assert op.view().head == 5, "the replayed reply made no row"

    ana.edit(4, "Split it in two?")  # #6: a correction of a row triage saw
    out, err = run_turn(fx, state)
    assert 'corrects="4"' in out and "\nSplit it in two?\n" in out and "nothing new" in err

    aside = ana.post("just you: the runbook is wrong", audience=["agent:triage"])
    out, err = run_turn(fx, state)
    assert f'<message seq="{aside.seq}" kind="person" id="ana" label="Ana" readers="person:ana,agent:triage">' in out
    assert f"replied with #{aside.seq + 1}" in err
    thread = op.view(thread=aside.seq).messages or []
    assert len(thread) == 2 and thread[1].parent == aside.seq and thread[1].audience, "an aside's echo is an aside"


def test_turn_py_errors(fx: Fixture, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json", encoding="utf-8")
    env = {**os.environ, "TRANSCRIPT_TOKEN": fx.secrets["triage"]}
    args = [sys.executable, str(SCRIPT), "--url", fx.server.url, "--desk", "eng", "--state"]
    done = subprocess.run([*args, str(bad)], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1 and "state file" in done.stderr
    env["TRANSCRIPT_TOKEN"] = "not-a-token"
    done = subprocess.run(
        [*args, str(tmp_path / "s.json")], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1 and "401" in done.stderr and "not-a-token" not in done.stderr
    env.pop("TRANSCRIPT_TOKEN")
    done = subprocess.run(
        [*args, str(tmp_path / "s.json")], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2 and "no token" in done.stderr
