import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { APITimeoutError, Desk, ProblemError, RateLimitError, takeTurn, type Message, type State } from "../src/index.js";
import { deskFixture, type Fixture } from "./fixture.js";
import { startServer, token } from "./server.js";

let f: Fixture;
before(async () => {
  f = await deskFixture();
});
after(async () => {
  await f?.server.stop();
});

async function refused(p: Promise<unknown>, status: number, type?: string): Promise<ProblemError> {
  const err = await p.then(
    () => assert.fail(`want a ${status} problem, got an answer`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ProblemError, `want a ProblemError, got ${String(err)}`);
  assert.equal(err.status, status, err.message);
  if (type) assert.match(err.type, new RegExp(type));
  assert.ok(err.title !== "", "a problem has a title");
  for (const secret of Object.values(f.secrets)) assert.ok(!err.message.includes(secret), "no token in an error");
  return err;
}

describe("Desk", () => {
  test("whoami and info name the token's participant and the desk's head", async () => {
    const triage = f.desk("triage");
    assert.deepEqual(await triage.whoami(), { type: "agent", id: "triage", label: "Triage" });
    const info = await triage.info();
    assert.equal(info.name, "eng");
    assert.equal(typeof info.head, "number");
    await assert.rejects(f.desk("triage", "other").whoami(), /the token is not for desk other/);

    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests++;
      return fetch(input, init);
    };
    const kept = new Desk({ url: f.server.url, token: f.secrets.triage, desk: "eng", fetch: counting });
    await kept.whoami();
    await kept.whoami();
    assert.equal(requests, 1, "the participant is asked for once");
    const bad = new Desk({ url: f.server.url, token: "not-a-token", desk: "eng", fetch: counting });
    await assert.rejects(bad.whoami(), ProblemError);
    await assert.rejects(bad.whoami(), ProblemError);
    assert.equal(requests, 3, "a failed answer is not kept");

    // Two calls share one request: aborting the first ends it alone, and the second answers.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow: typeof fetch = async (input, init) => {
      requests++;
      await held;
      return fetch(input, init);
    };
    const shared = new Desk({ url: f.server.url, token: f.secrets.triage, desk: "eng", fetch: slow });
    const caller = new AbortController();
    const first = shared.whoami({ signal: caller.signal });
    const second = shared.whoami();
    caller.abort(new Error("the first caller gave up"));
    release();
    await assert.rejects(first, /the first caller gave up/);
    assert.deepEqual(await second, { type: "agent", id: "triage", label: "Triage" });
    assert.equal(requests, 4, "the two calls made one request");

    // A call with a timeout of its own does not wait out another's request: it makes its
    // own, which its timeout bounds.
    let releaseSlow = () => {};
    const heldSlow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const hanging: typeof fetch = async (input, init) => {
      const signal = input instanceof Request ? input.signal : init?.signal;
      await Promise.race([heldSlow, new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)))]);
      return fetch(input, init);
    };
    const patient = new Desk({ url: f.server.url, token: f.secrets.triage, desk: "eng", maxRetries: 0, fetch: hanging });
    const long = patient.whoami();
    await assert.rejects(patient.whoami({ timeout: 50 }), APITimeoutError);
    releaseSlow();
    assert.deepEqual(await long, { type: "agent", id: "triage", label: "Triage" });

    // A caller whose signal aborted before it asked is refused at once, and the shared
    // request's failure, which no caller then waits for, is no unhandled rejection.
    const failing = new Desk({ url: f.server.url, token: f.secrets.triage, desk: "eng", maxRetries: 0, fetch: () => Promise.reject(new TypeError("fetch failed")) });
    const gaveUp = new AbortController();
    gaveUp.abort(new Error("gave up before asking"));
    await assert.rejects(failing.whoami({ signal: gaveUp.signal }), /gave up before asking/);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the shared request fails meanwhile
  });

  test("post, view, threads, edit, redact and search", async () => {
    const ana = f.desk("ana");
    const triage = f.desk("triage");
    const root = await ana.post({ content: "Deploy #41 is red: the migration hangs." });
    assert.equal(root.content, "Deploy #41 is red: the migration hangs.");
    assert.deepEqual(root.author, { type: "person", id: "ana", label: "Ana" });
    const reply = await triage.post({ content: "Looking at the migration lock.", parent: root.seq, key: "k1" });
    assert.equal(reply.parent, root.seq);
    const again = await triage.post({ content: "Looking at the migration lock.", parent: root.seq, key: "k1" });
    assert.equal(again.seq, reply.seq, "a replayed key answers the stored row");

    const view = await triage.view({ thread: root.seq });
    assert.deepEqual(view.messages?.map((m) => m.seq), [root.seq, reply.seq]);
    const channel = await ana.view({ window: 1 });
    assert.equal(channel.messages?.length, 1);

    const threads = await ana.threads({ limit: 5 });
    assert.ok(threads.threads?.some((t) => t.root.seq === root.seq && t.replies === 1));

    const edit = await triage.edit(reply.seq, { content: "Looking at the migration's lock on orders." });
    assert.equal(edit.corrects, reply.seq);
    const hits = await ana.search("orders lock");
    assert.deepEqual(hits.messages?.map((m) => m.seq), [reply.seq]);
    assert.equal(hits.messages?.[0]?.content, "Looking at the migration's lock on orders.");
    assert.equal(hits.next, 0);
    const inThread = await ana.search("migration", { thread: root.seq, limit: 1 });
    assert.equal(inThread.messages?.length, 1);
    assert.ok(inThread.next > 0, "a full page names the bound of older hits");

    const redaction = await ana.redact(root.seq);
    assert.equal(redaction.corrects, root.seq);
    const after = await triage.view({ thread: root.seq });
    assert.equal(after.messages?.[0]?.redacted, true);
    assert.equal(after.messages?.[0]?.content, "");
    assert.deepEqual((await ana.search("deploy red")).messages, [], "a redacted row is found by nothing");

    const op = f.desk("operator");
    const asAna = await op.view({ as: "person:ana", thread: root.seq });
    assert.deepEqual(asAna.messages?.map((m) => m.seq), [root.seq, reply.seq]);
  });

  test("an aside is read by its readers only", async () => {
    const op = f.desk("operator");
    const aside = await op.post({ content: "Hold the spend alerts until Monday.", audience: ["agent:triage"] });
    assert.deepEqual(aside.audience, [{ type: "agent", id: "triage" }]);
    const seen = (await f.desk("triage").view()).messages?.map((m) => m.seq) ?? [];
    assert.ok(seen.includes(aside.seq));
    const review = await f.desk("review").view();
    assert.ok(!(review.messages ?? []).some((m) => m.seq === aside.seq));
    assert.ok((review.elided ?? []).some((e) => e.from <= aside.seq && aside.seq <= e.through));
    assert.deepEqual((await f.desk("review").search("spend alerts")).messages, []);
  });

  test("delta: news since a state, then nothing, then a reinitialization", async () => {
    const review = f.desk("review");
    const start: State = { conversation: { desk: "eng" }, watermark: 0, present: [] };
    const first = await review.delta(start);
    assert.ok("delta" in first);
    const next = first.delta.next;
    const quiet = await review.delta(next);
    assert.ok("delta" in quiet);
    assert.deepEqual(quiet.delta.messages ?? [], []);
    const posted = await f.desk("ana").post({ content: "The migration runs at 22:00." });
    const news = await review.delta(next);
    assert.ok("delta" in news);
    assert.deepEqual(news.delta.messages?.map((m) => m.seq), [posted.seq]);
    const changed = await review.delta(next, { conversation: { thread: posted.seq } });
    assert.deepEqual(changed, { reinitialize: "conversation_changed" });
  });

  test("delta: a state belongs to the participant it was read for", async () => {
    const review = f.desk("review");
    const first = await review.delta({ conversation: { desk: "eng" }, watermark: 0, present: [] });
    assert.ok("delta" in first);
    const next = first.delta.next;
    assert.deepEqual(next.viewer, { type: "agent", id: "review" }, "a delta's next names its participant");
    const reply = await review.post({ content: "Reviewing now." });
    const reviews: State = { ...next, present: [reply.seq] };
    const news = await f.desk("ana").post({ content: "Thanks." });
    assert.deepEqual(await f.desk("triage").delta(reviews), { reinitialize: "conversation_changed" }, "another participant's delta from it starts over");
    const own = await review.delta(reviews);
    assert.ok("delta" in own);
    assert.deepEqual(own.delta.messages?.map((m) => m.seq), [news.seq], "its own participant goes on from it");
  });

  test("every problem the client can meet is a ProblemError", async () => {
    const triage = f.desk("triage");
    await refused(triage.view({ window: -1 }), 400);
    await refused(triage.search("  ,, "), 400);
    await refused(new Desk({ url: f.server.url, token: "not-a-token", desk: "eng" }).view(), 401);
    await refused(triage.view({ as: "person:ana" }), 403);
    await refused(triage.view({ thread: 999_999 }), 404);
    await refused(f.desk("triage", "other").view(), 404);
    const anas = await f.desk("ana").post({ content: "Ana's own words." });
    await refused(triage.redact(anas.seq), 403);
    await refused(triage.edit(anas.seq, { content: "not mine" }), 403);
    const row = await triage.post({ content: "keyed", key: "k-conflict" });
    await refused(triage.post({ content: "another", key: "k-conflict" }), 409, "key-conflict");
    await triage.redact(row.seq);
    await refused(triage.edit(row.seq, { content: "too late" }), 409);
    await refused(triage.post({ content: "x".repeat(2 << 20) }), 413);
    await refused(triage.post({ content: "to nobody", audience: [] }), 400);
    await refused(triage.post({ content: "to a stranger", audience: ["robot:x"] }), 400);
  });

  test("blank content is refused: 400 blank, for a post, a reply and an edit, and nothing is stored", async () => {
    const triage = f.desk("triage");
    const head = (await triage.info()).head;
    for (const content of ["", "   ", "\n\t "]) {
      const err = await refused(triage.post({ content }), 400, "blank$");
      assert.match(err.detail, /blank/);
      assert.ok(!/sqlitestore|pgstore|posting:|transcript:/.test(err.detail), `the detail names a package: ${err.detail}`);
    }
    const root = await triage.post({ content: "a root to reply to" });
    await refused(triage.post({ content: "  ", parent: root.seq }), 400, "blank$");
    await refused(triage.edit(root.seq, { content: " " }), 400, "blank$");
    assert.equal((await triage.info()).head, root.seq, "the refused posts stored nothing");
    assert.ok(head < root.seq);
  });

  test("429 with Retry-After past the token's rate", async () => {
    const limited = await startServer({ flags: ["--rate", "0.5", "--burst", "1"] });
    try {
      const secret = await token(limited.db, "eng", "agent:triage");
      const desk = new Desk({ url: limited.url, token: secret, desk: "eng", maxRetries: 0 });
      await desk.view();
      const err = await refused(desk.view(), 429);
      assert.ok(err instanceof RateLimitError, "a 429 is a RateLimitError");
      assert.ok((err.retryAfter ?? 0) >= 1, "Retry-After is read");
      const view = await desk.view({ maxRetries: 2 });
      assert.ok(view.head >= 0, "a read retried after the Retry-After is answered");
    } finally {
      await limited.stop();
    }
  });
});

describe("takeTurn", () => {
  test("a turn posts once, saves after the post, and a crashed turn replays the same row", async () => {
    const ci = f.desk("ci");
    const triage = f.desk("triage");
    let saved: State | undefined;
    const echo = (news: { seq: number; content: string; author: { type: string; id?: string } }[]) => {
      const m = news.filter((x) => x.author.id !== "triage").at(-1);
      return m ? { content: "echo: " + m.content, answers: m.seq } : null;
    };
    const first = await takeTurn(triage, { decide: echo, save: (s) => void (saved = s) });
    assert.ok(saved && first.reply, "the first turn replies and saves");
    const prompt = await ci.post({ content: "Build 812 failed." });

    let stored: number | undefined;
    await assert.rejects(
      takeTurn(triage, {
        state: saved,
        decide: echo,
        save: () => {
          throw new Error("crash before the save");
        },
      }).catch((e: unknown) => {
        throw e;
      }),
      /crash before the save/,
    );
    const replay = await takeTurn(triage, {
      state: saved,
      decide: (news) => {
        assert.ok(news.some((m) => m.seq === prompt.seq), "the replayed turn brings the same news");
        return echo(news);
      },
      save: (s) => void (saved = s),
    });
    stored = replay.reply?.seq;
    const view = await f.desk("operator").view({ window: 200 });
    const echoes = (view.messages ?? []).filter((m) => m.content === "echo: Build 812 failed.");
    assert.equal(echoes.length, 1, "the crashed turn's reply is stored once");
    assert.equal(echoes[0]?.seq, stored);
    assert.deepEqual(echoes[0]?.author, { type: "agent", id: "triage", label: "Triage" });
    assert.ok(saved && (saved.watermark >= stored! || saved.present?.includes(stored!)), "the saved state holds the reply as seen");

    const quiet = await takeTurn(triage, { state: saved, decide: echo, save: (s) => void (saved = s) });
    assert.deepEqual(quiet.news, [], "the turn's own reply is not news");
  });

  test("a turn run again after a failed save takes the reply its first run stored, though the model answers otherwise", async () => {
    const triage = f.desk("triage");
    let start: State | undefined;
    await takeTurn(triage, { decide: () => null, save: (s) => void (start = s) });
    const asked = await f.desk("ana").post({ content: "triage, what is the status?" });
    let takes = 0;
    const decide = () => ({ content: `status answer, take ${++takes}`, answers: asked.seq }); // a model is not deterministic
    const crash = () => {
      throw new Error("the host crashed before saving");
    };
    await assert.rejects(takeTurn(triage, { state: start, decide, save: crash }), /crashed/);
    for (const state of [start, undefined]) {
      let saved: State | undefined;
      const again = await takeTurn(triage, { state, decide, save: (s) => void (saved = s) });
      assert.ok(again.reply, `${state ? "from a state" : "from a view"}: the turn has its reply`);
      assert.equal(again.reply.content, "status answer, take 1", "the first run's reply is the turn's");
      assert.ok(saved && (saved.watermark >= again.reply.seq || saved.present?.includes(again.reply.seq)), "the saved state holds the reply as seen");
    }
    const answers = ((await f.desk("operator").view({ window: 500 })).messages ?? []).filter((m) => m.content.startsWith("status answer"));
    assert.deepEqual(answers.map((m) => m.content), ["status answer, take 1"], "the new answers are not posted");
  });

  test("a state saved for one participant starts another's turn over, and is never its news", async () => {
    const triage = f.desk("triage");
    const review = f.desk("review");
    let triages: State | undefined;
    const mine = await takeTurn(triage, { decide: (news) => ({ content: "triage looks", answers: news.at(-1)?.seq ?? 0 }), save: (s) => void (triages = s) });
    assert.ok(triages && mine.reply, "triage's turn replies and saves");
    assert.deepEqual(triages.viewer, { type: "agent", id: "triage" }, "the saved state names triage");
    assert.ok(triages.present?.includes(mine.reply.seq), "triage's reply is present in its state");
    const news = await f.desk("ana").post({ content: "One more thing." });

    let reviews: State | undefined;
    const turn = await takeTurn(review, { state: triages, decide: () => null, save: (s) => void (reviews = s) });
    assert.equal(turn.reinitialized, "conversation_changed");
    const seen = turn.news.map((m) => m.seq);
    assert.ok(seen.includes(mine.reply.seq) && seen.includes(news.seq), `review's turn shows triage's reply and the news: ${seen.join(",")}`);
    assert.deepEqual(reviews?.viewer, { type: "agent", id: "review" }, "the state review saves names review");
  });
});

describe("takeTurn's contract", () => {
  test("a turn reports the corrections of rows it was shown, and answers an aside inside it", async () => {
    const g = await deskFixture();
    try {
      const [op, ana, triage, review] = [g.desk("operator"), g.desk("ana"), g.desk("triage"), g.desk("review")];
      const echo = (news: Message[], me: { id?: string }) => {
        const m = news.filter((x) => x.author.id !== me.id).at(-1);
        return m ? { content: "echo: " + m.content, answers: m.seq } : null;
      };
      const shown = await ana.post({ content: "The vendor is up." });
      let tState: State | undefined;
      let rState: State | undefined;
      await takeTurn(triage, { decide: () => null, save: (s) => void (tState = s) });
      await takeTurn(review, { decide: () => null, save: (s) => void (rState = s) });
      const aside = await op.post({ content: "PSST triage only: vendor is down", audience: ["agent:triage"] });
      const edit = await ana.edit(shown.seq, { content: "The vendor is down." });
      const turn = await takeTurn(triage, { state: tState, decide: echo, save: (s) => void (tState = s) });
      assert.deepEqual(turn.corrections.map((c) => c.seq), [edit.seq], "the edit is reported");
      assert.equal(turn.reply?.parent, aside.seq, "the echo of the aside is a reply inside it");
      const redaction = await op.redact(shown.seq);
      const later = await takeTurn(review, { state: rState, decide: () => null, save: (s) => void (rState = s) });
      assert.deepEqual(later.corrections.map((c) => [c.seq, c.corrects, c.redacted]), [[redaction.seq, shown.seq, true]], "the redaction reaches review");
      assert.ok(!JSON.stringify(later).includes("PSST"), "review never reads the aside nor its echo");
      const searched = await review.search("vendor down");
      assert.ok(!(searched.messages ?? []).some((m) => m.content.includes("PSST")), "nor finds it");
    } finally {
      await g.server.stop();
    }
  });

  test("a turn that answers an aside's correction, or the aside a correction corrects, replies inside the aside", async () => {
    for (const newest of [true, false]) {
      const g = await deskFixture();
      try {
        const [op, triage, review] = [g.desk("operator"), g.desk("triage"), g.desk("review")];
        let state: State | undefined;
        await takeTurn(triage, { decide: () => null, save: (s) => void (state = s) });
        const aside = await op.post({ content: "PSST triage only: vendor is down", audience: ["agent:triage"] });
        await takeTurn(triage, { state, decide: () => null, save: (s) => void (state = s) });
        await op.edit(aside.seq, { content: "PSST triage only: vendor is down, and the DB too" });
        const turn = await takeTurn(triage, {
          state,
          decide: (_news, _me, _elided, _corrections, turns) => ({ content: "ack: vendor and DB down", answers: newest ? turns.at(-1)!.seq! : aside.seq }),
          save: (s) => void (state = s),
        });
        assert.equal(turn.corrections.length, 1, "the turn holds the aside's correction");
        assert.equal(turn.reply?.parent, aside.seq, `the reply went elsewhere: ${JSON.stringify(turn.reply)}`);
        assert.ok(!JSON.stringify(await review.view()).includes("vendor and DB"), "another agent reads the reply");
      } finally {
        await g.server.stop();
      }
    }
  });
});
