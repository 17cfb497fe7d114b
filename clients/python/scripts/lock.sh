#!/usr/bin/env bash
# Writes requirements.lock: every package the tests install (requirements-dev.in, and the
# package with all its extras), pinned, resolved in a new virtual environment.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q -r requirements-dev.in '.[autogen,langchain,openai-agents]'
{
	echo "# Every package the Python client's tests install, pinned: written by scripts/lock.sh"
	echo "# from requirements-dev.in and pyproject.toml's dependencies and extras."
	"$tmp/venv/bin/pip" freeze --exclude sharedesk-transcript --all | grep -v -E '^(pip|setuptools|wheel)=='
} > requirements.lock
echo "wrote requirements.lock ($(grep -c '==' requirements.lock) packages)"
