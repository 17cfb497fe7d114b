"""The tests' transcript serve: built from this checkout (or TRANSCRIPT_BIN), on SQLite in a
temporary directory, listening on loopback only, stopped when the tests end."""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
_LISTENING = re.compile(r"listening on http://127\.0\.0\.1:(\d+)")
_built: str | None = None


def _die_with_parent() -> None:
    """Asks Linux to kill the server when the test process dies, so none outlives a run."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def binary() -> str:
    """The transcript command: TRANSCRIPT_BIN, or one built once per test run."""
    global _built
    if os.environ.get("TRANSCRIPT_BIN"):
        return os.environ["TRANSCRIPT_BIN"]
    if _built is None:
        out = tempfile.mkdtemp(prefix="transcript-bin-")
        bin_path = os.path.join(out, "transcript")
        subprocess.run(["go", "build", "-o", bin_path, "./cmd/transcript"], cwd=REPO_ROOT, check=True, timeout=300)
        _built = bin_path
    return _built


def remove_built() -> None:
    """Removes the binary binary() built, if it built one."""
    if _built is not None:
        shutil.rmtree(os.path.dirname(_built), ignore_errors=True)


def transcript(*args: str, stdin: str | None = None) -> str:
    """Runs one command of the CLI and returns its standard output."""
    done = subprocess.run([binary(), *args], input=stdin, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"transcript {args[0]}: exit {done.returncode}: {done.stderr}")
    return done.stdout


class Server:
    """A transcript serve process on a SQLite database in its own directory."""

    def __init__(self, flags: list[str] | None = None) -> None:
        self.dir = tempfile.mkdtemp(prefix="transcript-py-")
        self.db = os.path.join(self.dir, "transcript.db")
        self.flags = ["--rate", "inf"] if flags is None else flags
        self.port = 0
        self.stderr = ""
        self._proc: subprocess.Popen[str] | None = None
        self._launch("127.0.0.1:0")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def token(self, desk: str, participant: str) -> str:
        """Makes a token for participant on desk and returns its secret."""
        return transcript("token", "add", "--db", self.db, "--desk", desk, "--create", "--as", participant).strip()

    def _launch(self, addr: str) -> None:
        proc = subprocess.Popen(
            [binary(), "serve", "--db", self.db, "--addr", addr, *self.flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_die_with_parent if os.name == "posix" else None,
        )
        assert proc.stderr is not None
        found: list[int] = []
        ready = threading.Event()

        def drain() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                self.stderr += line
                m = _LISTENING.search(line)
                if m and not found:
                    found.append(int(m.group(1)))
                    ready.set()
            ready.set()

        threading.Thread(target=drain, daemon=True).start()
        if not ready.wait(30) or not found:
            proc.kill()
            proc.wait(10)
            raise RuntimeError(f"serve did not listen within 30 s: {self.stderr}")
        self._proc = proc
        self.port = found[0]

    def kill(self) -> None:
        """Stops the process at once (SIGKILL), as a crash would."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait(10)

    def restart(self) -> None:
        """Starts the server again on the same port and database."""
        deadline = time.monotonic() + 20
        while True:
            try:
                self._launch(f"127.0.0.1:{self.port}")
                return
            except RuntimeError:
                if time.monotonic() > deadline:  # the port may take a moment to be free again
                    raise
                time.sleep(0.2)

    def stop(self) -> None:
        """Ends the server (SIGTERM, then SIGKILL after 10 s) and removes its files."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)
