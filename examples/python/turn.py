#!/usr/bin/env python3
"""One turn of an agent on a transcript desk, over HTTP, with nothing but the standard library.

    python3 examples/python/turn.py --url http://127.0.0.1:8474 --desk eng \\
        --token "$TOKEN" --state triage.json

A turn:

 1. POST /v1/desks/DESK/delta with the saved state: what is new for this agent since its
    last turn. A missing state file is an agent that has seen nothing.
 2. If the answer is {"reinitialize": REASON}, GET /v1/desks/DESK/view instead and start a
    state at the view's head: {"conversation": {"desk": DESK}, "watermark": HEAD,
    "present": []} (sharing.Initialized).
 3. Decide a reply. Here it is an echo of the newest message someone else wrote; a real
    agent gives the envelopes this script prints to its model.
 4. POST /v1/desks/DESK/messages with the reply.
 5. Note the reply's seq in the next state's present set, so that the next turn does not
    bring the agent's own words back as news, and save the state: only now, once the reply
    is stored.

A turn that fails before step 5 leaves the old state, so running it again brings the same
news and the same reply, which carries a key (the token's ID and the seq it answers): the
service answers a replayed key with the row it stored, not a second one.

The token decides who the agent is; nothing in a request can say otherwise. The secret is
read from --token or, better (a command line shows in ps), from TRANSCRIPT_TOKEN.
Exit status: 0 a turn taken (with or without a reply), 1 the service refused or failed,
2 bad arguments.
"""

import argparse
import hashlib
import html
import json
import os
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

PRESENT_SET_LIMIT = 64  # sharing.PresentSetLimit: the service refuses a state with more


class ServiceError(Exception):
    """The service answered with a problem (RFC 9457), or could not be reached."""


class Client:
    def __init__(self, url, desk, secret):
        self.root = url.rstrip("/") + "/v1/desks"
        self.base = self.root + "/" + urllib.parse.quote(desk, safe="")
        self.secret = secret

    def call(self, method, path, body=None, base=None):
        """Sends one request and returns its JSON answer; a problem raises ServiceError."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request((base or self.base) + path, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.secret)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return json.load(resp)
        except urllib.error.HTTPError as err:
            try:
                problem = json.load(err)
            except ValueError:
                problem = {}
            detail = problem.get("detail") or problem.get("title") or err.reason
            raise ServiceError(f"{method} {path or '/'}: {err.code}: {detail}") from None
        except urllib.error.URLError as err:
            raise ServiceError(f"{method} {path or '/'}: {err.reason}") from None


def token_id(secret):
    """The token's public ID, as token.IDOf computes it: a hash of the secret's SHA-256."""
    digest = hashlib.sha256(secret.encode("utf-8")).digest()
    return "tok_" + hashlib.sha256(digest).hexdigest()[:12]


def load_state(path, desk):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return {"conversation": {"desk": desk}, "watermark": 0, "present": []}


def save_state(path, state):
    """Replaces the state file atomically: a crash leaves the old state or the new."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path), suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(state, f, indent=2)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def note_present(state, seq):
    """sharing.State.NotePresent: remember a row above the watermark as seen."""
    if seq <= state["watermark"] or seq in state["present"]:
        return
    if len(state["present"]) >= PRESENT_SET_LIMIT:
        raise ServiceError(f"the state's present set is full ({PRESENT_SET_LIMIT} rows)")
    state["present"] = sorted(state["present"] + [seq])


def participant(author):
    """An author in the command line's syntax: operator, person:ana, agent:triage, system:ci."""
    ident = author.get("id") or author.get("kind")
    return author["type"] + (":" + ident if ident else "")


KIND_ORDER = {"operator": 0, "person": 1, "agent": 2, "system": 3}


def readers(authors):
    """Participants once each, in the canonical order (kind, then id), as render lists them."""
    names = {participant(a): (KIND_ORDER.get(a["type"], 4), a.get("id") or a.get("kind") or "") for a in authors}
    return sorted(names, key=names.get)


def attr(value):
    return html.escape(str(value), quote=True)


def envelope(m):
    """The message as render.Envelope shows it to a model: who wrote it, inside the tag."""
    a = m["author"]
    tag = f'<message seq="{m["seq"]}"'
    if m.get("parent"):
        tag += f' parent="{m["parent"]}"'
    tag += f' kind="{attr(a["type"])}"'
    ident = a.get("id") or a.get("kind")
    if ident:
        tag += f' id="{attr(ident)}"'
    if a.get("label"):
        tag += f' label="{attr(a["label"])}"'
    if m.get("audience"):  # an aside: its author, the audience and nobody else read it
        tag += f' readers="{attr(",".join(readers([a] + m["audience"])))}"'
    return tag + ">\n" + html.escape(m["content"], quote=False) + "\n</message>"


def elision(e):
    names = ",".join(readers(e["readers"]))
    return f'<elided from="{e["from"]}" through="{e["through"]}" count="{e["count"]}" readers="{attr(names)}"/>'


def identity(author):
    """An author's identity: its type and id (a system notice's kind); labels change."""
    return (author["type"], author.get("id") or author.get("kind"))


def decide(news, me, own_key_prefix):
    """The agent's model, here an echo: a reply to the newest message someone else wrote (me
    is the token's participant, as GET /v1/desks says), or None. The reply carries a key, so
    a retried turn gets the stored reply back. An echo of an aside replies to it, so that it
    is an aside for the same readers, never a copy in the open channel."""
    others = [m for m in news if identity(m["author"]) != identity(me)]
    if not others:
        return None
    m = others[-1]
    reply = {"content": "echo: " + m["content"], "key": own_key_prefix + str(m["seq"])}
    if m.get("audience"):
        reply["parent"] = m["seq"]
    return reply


def take_turn(client, desk, state_path, secret, out):
    me = client.call("GET", "", base=client.root)["desks"][0]["as"]  # who the token says we are
    state = load_state(state_path, desk)
    answer = client.call("POST", "/delta", {"state": state})
    if "reinitialize" in answer:
        print(f"reinitialize ({answer['reinitialize']}): starting over from the view", file=sys.stderr)
        view = client.call("GET", "/view")
        news, elided = view["messages"], view.get("elided") or []
        next_state = {"conversation": {"desk": desk}, "watermark": view["head"], "present": []}
    else:
        delta = answer["delta"]
        news, elided, next_state = delta["messages"], delta.get("elided") or [], delta["next"]

    shown = [(m["seq"], envelope(m)) for m in news] + [(e["from"], elision(e)) for e in elided]
    for _, text in sorted(shown, key=lambda item: item[0]):
        print(text, file=out)

    reply = decide(news, me, f"turn.py:{token_id(secret)}:")
    if reply is None:
        print("nothing new to answer", file=sys.stderr)
    else:
        stored = client.call("POST", "/messages", reply)
        note_present(next_state, stored["seq"])
        print(f"replied with #{stored['seq']}", file=sys.stderr)
    save_state(state_path, next_state)  # only now: the reply is stored


def main():
    parser = argparse.ArgumentParser(description="Take one turn of an agent on a transcript desk.")
    parser.add_argument("--url", default="http://127.0.0.1:8474", help="the service (transcript serve)")
    parser.add_argument("--desk", required=True, help="the desk: the token's")
    parser.add_argument("--token", default=os.environ.get("TRANSCRIPT_TOKEN"),
                        help="the token's secret (default: $TRANSCRIPT_TOKEN)")
    parser.add_argument("--state", required=True, help="the agent's state file (JSON), created on the first turn")
    args = parser.parse_args()
    if not args.token:
        parser.error("no token: give --token or set TRANSCRIPT_TOKEN (transcript token add prints one)")
    try:
        take_turn(Client(args.url, args.desk, args.token), args.desk, args.state, args.token, sys.stdout)
    except ServiceError as err:
        print(f"turn.py: {err}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as err:  # the state file: unreadable, not JSON, not writable
        print(f"turn.py: state file {args.state}: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
