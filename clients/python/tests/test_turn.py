"""take_turn and atake_turn: a turn posts once, saves only after the post, and a crashed
turn replays the same row; a state of another conversation, or of another participant,
starts over from the view."""

from __future__ import annotations

from pathlib import Path

import pytest

from sharedesk_transcript import ConflictError, models
from sharedesk_transcript.turn import (
    PRESENT_SET_LIMIT,
    News,
    Reply,
    atake_turn,
    initial_state,
    load_state,
    note_present,
    reply_key,
    save_state,
    take_turn,
)

from .conftest import Fixture


def echo(news: News, me: models.Author) -> Reply | None:
    others = [m for m in news.messages if m.author.id != me.id]
    return Reply("echo: " + others[-1].content, answers=others[-1].seq) if others else None


def test_a_turn_posts_once_saves_after_and_a_crash_replays(fx: Fixture) -> None:
    triage, ci = fx.desk("triage"), fx.desk("ci")
    saved: list[models.State] = []
    ci.post("Build 811 failed.")
    first = take_turn(triage, echo, saved.append)
    assert first.reply is not None and saved == [first.state]
    assert first.state.present == [first.reply.seq], "its own reply is noted as seen"
    prompt = ci.post("Build 812 failed.")

    def crash(_: models.State) -> None:
        raise OSError("crash before the save")

    with pytest.raises(OSError, match="crash before the save"):
        take_turn(triage, echo, crash, saved[-1])
    replay = take_turn(triage, echo, saved.append, saved[-1])
    assert prompt.seq in [m.seq for m in replay.news.messages], "the replayed turn brings the same news"
    view = fx.desk("operator").view(window=200)
    echoes = [m for m in view.messages or [] if m.content == "echo: Build 812 failed."]
    assert len(echoes) == 1, "the crashed turn's reply is stored once"
    assert replay.reply is not None and echoes[0].seq == replay.reply.seq
    assert echoes[0].author == models.Author(type="agent", id="triage", label="Triage")

    quiet = take_turn(triage, echo, saved.append, saved[-1])
    assert quiet.news.messages == [] and quiet.reply is None, "the turn's own reply is not news"


async def test_an_async_turn_reinitializes_from_another_conversation(fx: Fixture) -> None:
    ana = fx.desk("ana")
    root = ana.post("Deploy #41 is red")
    saved: list[models.State] = []

    async def decide(news: News, me: models.Author) -> Reply | None:
        return echo(news, me)

    async def save(state: models.State) -> None:
        saved.append(state)

    triage = fx.async_desk("triage")
    channel_state = models.State(conversation=models.Conversation(desk="eng"), watermark=root.seq, present=[])
    turn = await atake_turn(triage, decide, save, channel_state, thread=root.seq)
    assert turn.news.reinitialized == "conversation_changed"
    assert [m.seq for m in turn.news.messages] == [root.seq]
    assert turn.reply is not None and turn.reply.content == "echo: Deploy #41 is red"
    assert saved[-1].conversation == models.Conversation(desk="eng", thread=root.seq)
    assert saved[-1].watermark == root.seq and saved[-1].present == [turn.reply.seq]
    await triage.aclose()


def test_a_turn_without_a_thread_goes_on_in_its_state_s(fx: Fixture) -> None:
    """A turn given a state and no thread goes on in the state's conversation, as the
    TypeScript client's does: a thread's state stays the thread's."""
    ana, triage = fx.desk("ana"), fx.desk("triage")
    root = ana.post("Deploy #42 is red")
    saved: list[models.State] = []

    def in_thread(news: News, me: models.Author) -> Reply | None:
        others = [m for m in news.messages if m.author.id != me.id]
        return Reply("on it", answers=others[-1].seq, parent=root.seq) if others else None

    first = take_turn(triage, in_thread, saved.append, thread=root.seq)
    assert first.reply is not None and first.state.conversation == models.Conversation(desk="eng", thread=root.seq)
    reply = ana.post("Rolled back", parent=root.seq)
    turn = take_turn(triage, in_thread, saved.append, saved[-1])
    assert turn.news.reinitialized is None, "the thread's news, not a start over from the channel"
    assert [m.seq for m in turn.news.messages] == [reply.seq]
    assert saved[-1].conversation == models.Conversation(desk="eng", thread=root.seq)


def test_a_state_file_of_another_participant_starts_the_turn_over(fx: Fixture, tmp_path: Path) -> None:
    ana, triage, review = fx.desk("ana"), fx.desk("triage"), fx.desk("review")
    ana.post("Deploy #41 is red")
    path = tmp_path / "triage.json"
    mine = take_turn(triage, echo, lambda s: save_state(path, s), load_state(path))
    assert mine.reply is not None
    triages = load_state(path)
    assert triages is not None and triages.viewer == models.Author(type="agent", id="triage")
    assert triages.present == [mine.reply.seq], "triage's reply is present in its state"
    news = ana.post("One more thing.")

    saved: list[models.State] = []
    turn = take_turn(review, lambda news, me: None, saved.append, triages)
    assert turn.news.reinitialized == "conversation_changed"
    seen = [m.seq for m in turn.news.messages]
    assert mine.reply.seq in seen and news.seq in seen, "review's turn shows triage's reply and the news"
    assert saved[-1].viewer == models.Author(type="agent", id="review"), "the state review saves names review"


def test_state_files_and_the_present_set(tmp_path: Path) -> None:
    path = tmp_path / "triage.json"
    assert load_state(path) is None, "no state file: an agent that has seen nothing"
    state = note_present(initial_state("eng", 7), 9)
    save_state(path, state)
    assert load_state(path) == state
    assert list(tmp_path.iterdir()) == [path], "no temporary file is left behind"
    assert note_present(state, 9) is state and note_present(state, 0) is state
    full = models.State(conversation=state.conversation, watermark=0, present=list(range(1, PRESENT_SET_LIMIT + 1)))
    with pytest.raises(ValueError, match="present set is full"):
        note_present(full, 1000)


def test_an_answer_to_an_aside_stays_inside_it(fx: Fixture) -> None:
    op, triage, review = fx.desk("operator"), fx.desk("triage"), fx.desk("review")
    saved: list[models.State] = []
    take_turn(triage, lambda news, me: None, saved.append)
    aside = op.post("PSST triage only: vendor is down", audience=["agent:triage"])
    turn = take_turn(triage, echo, saved.append, saved[-1])
    assert turn.reply is not None and turn.reply.parent == aside.seq, "the echo of an aside is a reply inside it"
    assert "PSST" not in (review.view().model_dump_json() + review.search("vendor down").model_dump_json())


def test_an_answer_to_an_asides_correction_stays_inside_the_aside(fx: Fixture) -> None:
    """A correction keeps the readers of its row: a reply that answers the correction of an
    aside, or the aside a correction of the turn corrects, goes inside that aside."""
    op, triage, review = fx.desk("operator"), fx.desk("triage"), fx.desk("review")
    for newest in (True, False):
        saved: list[models.State] = []
        take_turn(triage, lambda news, me: None, saved.append)
        aside = op.post("PSST triage only: vendor is down", audience=["agent:triage"])
        take_turn(triage, lambda news, me: None, saved.append, saved[-1])
        op.edit(aside.seq, "PSST triage only: vendor is down, and the DB too")

        def answer(news: News, me: models.Author, newest: bool = newest, aside_seq: int = aside.seq) -> Reply:
            return Reply("ack: vendor and DB down", answers=(news.turns[-1].seq or 0) if newest else aside_seq)

        turn = take_turn(triage, answer, saved.append, saved[-1])
        assert len(turn.news.corrections) == 1 and turn.news.corrections[0].audience, "the aside's correction"
        assert turn.reply is not None and turn.reply.parent == aside.seq, f"the reply went elsewhere: {turn.reply}"
        assert "vendor and DB" not in review.view().model_dump_json()


def seen(state: models.State, seq: int) -> bool:
    """Whether a delta from state leaves row seq out: at or below its watermark, or present."""
    return seq <= state.watermark or seq in (state.present or [])


def test_a_turn_run_again_that_decides_another_reply_takes_the_stored_one(fx: Fixture) -> None:
    """A model is not deterministic: the turn run again after a failed save decides another
    answer to the same row. The reply the first run stored is the turn's; nothing more is
    posted."""
    triage = fx.desk("triage")
    asked = fx.desk("ana").post("triage, what is the status?")
    takes: list[str] = []

    def decide(news: News, me: models.Author) -> Reply:
        takes.append(f"status, take {len(takes) + 1}")
        return Reply(takes[-1], answers=asked.seq)

    def crash(_: models.State) -> None:
        raise OSError("crash before the save")

    with pytest.raises(OSError):
        take_turn(triage, decide, crash)
    saved: list[models.State] = []
    again = take_turn(triage, decide, saved.append)
    replies = [m for m in fx.desk("operator").view(window=200).messages or [] if m.content.startswith("status, take")]
    assert [m.content for m in replies] == ["status, take 1"], "the first run's reply, once"
    assert again.reply is not None and again.reply.seq == replies[0].seq
    assert saved == [again.state] and seen(again.state, replies[0].seq), "the saved state has seen the reply"


async def test_an_async_turn_run_again_takes_the_stored_reply_and_keeps_other_conflicts(fx: Fixture) -> None:
    ana = fx.desk("ana")
    saved: list[models.State] = []
    takes: list[str] = []

    async def decide(news: News, me: models.Author) -> Reply | None:
        others = [m for m in news.messages if m.author.id != me.id]
        if not others:
            return None
        takes.append(f"on it, take {len(takes) + 1}")
        return Reply(takes[-1], answers=others[-1].seq)

    async def save(state: models.State) -> None:
        saved.append(state)

    async def crash(_: models.State) -> None:
        raise OSError("crash before the save")

    async with fx.async_desk("triage") as triage:
        await atake_turn(triage, decide, save)
        asked = ana.post("Deploy #43 is red")
        with pytest.raises(OSError):
            await atake_turn(triage, decide, crash, saved[-1])
        again = await atake_turn(triage, decide, save, saved[-1])
        assert again.news.reinitialized is None, "the news is a delta"
        assert again.reply is not None and again.reply.content == "on it, take 1"
        assert saved[-1] == again.state and seen(again.state, again.reply.seq)

        other = ana.post("Deploy #44 is red")
        await triage.post("an answer of another run", key=reply_key(triage, other.seq))
        await atake_turn(triage, quiet, save, saved[-1])
        kept = len(saved)

        async def answer_other(news: News, me: models.Author) -> Reply:
            return Reply("a new answer", answers=other.seq)

        with pytest.raises(ConflictError):
            await atake_turn(triage, answer_other, save, saved[-1])
        assert len(saved) == kept, "a conflict the news cannot explain saves nothing"
    assert asked.seq < other.seq


async def quiet(news: News, me: models.Author) -> None:
    return None
