#!/usr/bin/env python3
"""One turn of an agent on a transcript desk, with the sharedesk-transcript package
(pip install ./clients/python):

    python examples/python/turn.py --url http://127.0.0.1:8474 --desk eng --state triage.json

The turn asks what is new since the saved state (a missing state file is an agent that has
seen nothing, and it, like a state of another conversation, starts over from the view, after
the conversation's digest when it has one), prints it as the agent's model would read it,
each message in an envelope naming its author, replies with an echo of the newest message
someone else wrote, and saves the next state only once the reply is stored. A turn that
fails before the save runs again from the old state: the same news, and the same reply,
whose key the service answers with the row it stored, not a second one. An echo of an aside
replies to it, so that it is an aside for the same readers.

The token decides who the agent is: TRANSCRIPT_TOKEN, or --token (a command line shows in
ps). Exit status: 0 a turn taken (with or without a reply), 1 the service refused or could
not be reached, or the state file failed, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import os
import sys

from sharedesk_transcript import APIConnectionError, Desk, ProblemError, models
from sharedesk_transcript.turn import News, Reply, load_state, save_state, take_turn


class StateFileError(Exception):
    """The next state could not be saved."""


def echo(news: News, me: models.Author) -> Reply | None:
    """The agent's model, here an echo of the newest message another participant wrote."""
    others = [m for m in news.messages if (m.author.type, m.author.id, m.author.kind) != (me.type, me.id, me.kind)]
    if not others:
        return None
    m = others[-1]
    return Reply("echo: " + m.content, answers=m.seq)  # an echo of an aside is posted inside it


def show(news: News) -> None:
    """Prints the news oldest first: the conversation's digest when the turn started from a
    view and it has one, then messages and corrections in the envelopes the service
    rendered, elisions as its tags."""
    r = news.rendered or models.Rendered(messages=[], elided=[])
    if r.digest:
        print(r.digest)
    shown = list(
        zip(
            [m.seq for m in news.messages + news.corrections],
            [*(r.messages or []), *(r.corrections or [])],
            strict=True,
        )
    )
    shown += list(zip([e.from_ for e in news.elided], r.elided or [], strict=True))
    for _, text in sorted(shown, key=lambda item: item[0]):
        print(text)


def main() -> int:
    parser = argparse.ArgumentParser(description="Take one turn of an agent on a transcript desk.")
    parser.add_argument("--url", default="http://127.0.0.1:8474", help="the service (transcript serve)")
    parser.add_argument("--desk", required=True, help="the desk: the token's")
    parser.add_argument("--token", default=os.environ.get("TRANSCRIPT_TOKEN"), help="default: $TRANSCRIPT_TOKEN")
    parser.add_argument("--state", required=True, help="the agent's state file (JSON), created on the first turn")
    args = parser.parse_args()
    if not args.token:
        parser.error("no token: set TRANSCRIPT_TOKEN or give --token (transcript token add prints one)")
    try:
        state = load_state(args.state)
    except (OSError, ValueError) as err:  # unreadable, or not a state
        print(f"turn.py: state file {args.state}: {err}", file=sys.stderr)
        return 1

    def save(next_state: models.State) -> None:
        try:
            save_state(args.state, next_state)
        except OSError as err:
            raise StateFileError(f"state file {args.state}: {err}") from err

    try:
        with Desk(args.url, token=args.token, desk=args.desk) as desk:
            turn = take_turn(desk, echo, save, state, thread=0)  # the channel's agent
    except (ProblemError, APIConnectionError, StateFileError, ValueError) as err:
        print(f"turn.py: {err}", file=sys.stderr)
        return 1
    if turn.news.reinitialized:
        print(f"reinitialize ({turn.news.reinitialized}): started over from the view", file=sys.stderr)
    show(turn.news)
    print(f"replied with #{turn.reply.seq}" if turn.reply else "nothing new to answer", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
