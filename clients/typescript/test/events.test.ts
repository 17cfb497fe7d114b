import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { Desk, NotAnEventStreamError, ProblemError, type DeskEvent } from "../src/index.js";
import { usableRetryAfterMs } from "../src/problem.js";
import { retryDelay } from "../src/request.js";
import { engDesks, messageEvent, startFake } from "./fake.js";
import { deskFixture, within, type Fixture } from "./fixture.js";
import { generateTypes } from "./generate.js";

let f: Fixture;
before(async () => {
  f = await deskFixture();
});
after(async () => {
  await f?.server.stop();
});

test("the checked-in types are the served OpenAPI document's", async () => {
  const document = await (await fetch(f.server.url + "/openapi.json")).text();
  const checkedIn = await readFile(fileURLToPath(new URL("../../src/openapi.ts", import.meta.url)), "utf8");
  assert.ok(checkedIn === (await generateTypes(document)), "src/openapi.ts differs from what transcript serve serves at /openapi.json: run `npm run generate`");
});

test("events resume through a killed and restarted server: each event once, in order, none of the participant's own", async () => {
  const ana = f.desk("ana");
  const triage = f.desk("triage");
  const start = (await ana.info()).head;
  const stop = new AbortController();
  const got: DeskEvent[] = [];
  const total = 12;
  const reading = (async () => {
    for await (const ev of triage.events({ after: start, signal: stop.signal })) {
      got.push(ev);
      if (got.filter((e) => e.type === "message").length === total) stop.abort();
    }
  })();
  try {
    const want: number[] = [];
    const own: number[] = [];
    const post = async (i: number) => {
      want.push((await ana.post({ content: `row ${i}` })).seq);
      own.push((await triage.post({ content: `own ${i}` })).seq);
    };
    for (let i = 0; i < 4; i++) await post(i);
    await within(10_000, "the first rows", waitFor(() => got.length >= 2));
    await f.server.kill();
    // Appends continue while the server is down, by another process on the same file.
    for (let i = 4; i < 8; i++) {
      want.push(Number(await appendAs("person:ana", `row ${i}`)));
    }
    await f.server.restart();
    for (let i = 8; i < total; i++) await post(i);
    await within(30_000, "every event after the restart", reading);
    const seqs = got.filter((e) => e.type === "message").map((e) => e.id);
    assert.deepEqual(seqs, want, "each event once, in order");
    assert.ok(!got.some((e) => own.includes(e.id)), "none of the participant's own rows");
    for (const e of got) if (e.type === "message") assert.equal(e.data.seq, e.id);
  } finally {
    stop.abort(); // a failed assertion must not leave the stream retrying forever
    await reading.catch(() => {});
  }
});

test("events end quietly when the signal aborts, and throw for 401 and 404", async () => {
  const stop = new AbortController();
  const it = f.desk("review").events({ signal: stop.signal });
  const next = it.next();
  setTimeout(() => stop.abort(), 200);
  assert.deepEqual(await within(5_000, "the end on abort", next), { done: true, value: undefined });

  const bad = new Desk({ url: f.server.url, token: "nope", desk: "eng" });
  await assert.rejects(within(5_000, "401", bad.events({ after: 0 }).next()), (e: unknown) => e instanceof ProblemError && e.status === 401);
  await assert.rejects(within(5_000, "404", f.desk("review").events({ thread: 999_999 }).next()), (e: unknown) => e instanceof ProblemError && e.status === 404);
});

test("events end after a reinitialize", async () => {
  const head = (await f.desk("review").info()).head;
  const it = f.desk("review").events({ after: head + 1000 });
  const first = await within(5_000, "the reinitialize", it.next());
  assert.equal(first.value?.type, "reinitialize");
  assert.deepEqual(await within(5_000, "the end", it.next()), { done: true, value: undefined });
});

async function waitFor(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
}

async function appendAs(who: string, content: string): Promise<string> {
  const { transcript } = await import("./server.js");
  const out = await transcript(["append", "--db", f.server.db, "--desk", "eng", "--create", "--as", who, "--", content]);
  const seq = /\d+/.exec(out);
  if (!seq) throw new Error("append printed no seq: " + out);
  return seq[0];
}

test("a full server's 503 is waited out as its Retry-After asks, then the stream starts", async () => {
  const g = await deskFixture({ flags: ["--rate", "inf", "--max-total-streams", "1"] });
  const first = new AbortController();
  const second = new AbortController();
  try {
    const head = (await g.desk("ana").info()).head;
    const holding = (async () => {
      for await (const _ of g.desk("review").events({ after: head, signal: first.signal }));
    })();
    await new Promise((r) => setTimeout(r, 300)); // the first stream holds the server's one
    const refused = await fetch(`${g.server.url}/v1/desks/eng/events`, { headers: { Authorization: "Bearer " + g.secrets.triage } });
    assert.equal(refused.status, 503);
    assert.ok(Number(refused.headers.get("Retry-After")) >= 1, "the 503 says when to try again");
    await refused.body?.cancel();

    const got: DeskEvent[] = [];
    let attempts = 0;
    const counting: typeof fetch = (input, init) => {
      if (String(input).includes("/events")) attempts++;
      return fetch(input, init);
    };
    const triage = new Desk({ url: g.server.url, token: g.secrets.triage, desk: "eng", fetch: counting });
    const waiting = (async () => {
      for await (const ev of triage.events({ after: head, signal: second.signal })) {
        got.push(ev);
        second.abort();
      }
    })();
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(attempts, 1, "no second attempt before the Retry-After (at least a second)");
    first.abort();
    await within(5_000, "the first stream's end", holding);
    const posted = await g.desk("ana").post({ content: "after the wait" });
    await within(20_000, "the second stream's event", waiting);
    assert.deepEqual(got.map((e) => e.id), [posted.seq]);
  } finally {
    first.abort();
    second.abort();
    await g.server.stop();
  }
});

test("events wait out a 429's Retry-After and then stream, rather than throwing", async () => {
  const { startServer, token } = await import("./server.js");
  const limited = await startServer({ flags: ["--rate", "1", "--burst", "1"] });
  const stop = new AbortController();
  try {
    const ana = new Desk({ url: limited.url, token: await token(limited.db, "eng", "person:ana"), desk: "eng" });
    const triage = new Desk({ url: limited.url, token: await token(limited.db, "eng", "agent:triage"), desk: "eng" });
    const row = await ana.post({ content: "before the stream" });
    await triage.view(); // spends triage's burst: the stream's first connect meets a 429
    const it = triage.events({ after: 0, signal: stop.signal });
    const first = await within(15_000, "the first event after the 429", it.next());
    assert.equal(first.value?.type, "message");
    assert.equal(first.value?.id, row.seq);
  } finally {
    stop.abort();
    await limited.stop();
  }
});

test("a 200 that is not an event stream (a proxy's page) is thrown, not reconnected to", async () => {
  let requests = 0;
  const proxy: typeof fetch = () => {
    requests++;
    return Promise.resolve(new Response("<html>Sign in to the proxy</html>", { status: 200, headers: { "Content-Type": "text/html; charset=utf-8" } }));
  };
  const desk = new Desk({ url: "http://127.0.0.1:9", token: "t", desk: "eng", fetch: proxy });
  const it = desk.events({ after: 0 });
  await assert.rejects(within(5_000, "the stream's refusal", it.next()), (err: unknown) => {
    assert.ok(err instanceof NotAnEventStreamError, String(err));
    assert.match((err as Error).message, /text\/html/);
    return true;
  });
  assert.equal(requests, 1, "no reconnection");
});

test("a Retry-After of 0, or of over a minute, is no wait: the backoff decides, for streams as for requests", () => {
  assert.equal(usableRetryAfterMs(2), 2_000);
  assert.equal(usableRetryAfterMs(60), 60_000);
  for (const seconds of [0, 61, undefined]) assert.equal(usableRetryAfterMs(seconds), undefined, `Retry-After ${String(seconds)}`);
  const refused = (seconds: number) => new ProblemError("GET view", { status: 503 }, 503, seconds);
  assert.equal(retryDelay(refused(2), 0), 2_000);
  for (const seconds of [0, 3600]) {
    const wait = retryDelay(refused(seconds), 0);
    assert.ok(wait >= 375 && wait <= 500, `Retry-After ${seconds}: the first backoff, not ${wait} ms`);
  }
});

test("a head lookup refused for good is thrown at once: a desk the token is not for, a 401", async () => {
  const stop = new AbortController();
  try {
    const elsewhere = f.desk("review", "nope").events({ signal: stop.signal });
    await assert.rejects(within(5_000, "the refusal of a desk the token is not for", elsewhere.next()), /the token is not for desk nope/);
    const unknown = new Desk({ url: f.server.url, token: "nope", desk: "eng" }).events({ signal: stop.signal });
    await assert.rejects(within(5_000, "the 401 of the head lookup", unknown.next()), (e: unknown) => e instanceof ProblemError && e.status === 401);
  } finally {
    stop.abort();
  }
});

test("a head lookup that gets no answer, a 503 or a 429 is waited out as a dropped stream is, then the stream starts", async () => {
  let lookups = 0;
  const srv = await startFake((req, res) => {
    if (req.url === "/v1/desks") {
      lookups++;
      if (lookups === 1) return void req.socket.destroy();
      if (lookups <= 3) {
        const status = lookups === 2 ? 503 : 429;
        res.writeHead(status, { "Content-Type": "application/problem+json", "Retry-After": "1" });
        return void res.end(JSON.stringify({ type: "about:blank", status, title: "Busy" }));
      }
      res.writeHead(200, { "Content-Type": "application/json" });
      return void res.end(engDesks);
    }
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    res.write(messageEvent(4));
  });
  const stop = new AbortController();
  try {
    const it = new Desk({ url: srv.url, token: "secret-token", desk: "eng" }).events({ signal: stop.signal });
    const first = await within(15_000, "the first event", it.next());
    assert.equal(first.value?.id, 4);
    assert.equal(lookups, 4, "three failed lookups, then the head");
    assert.deepEqual(srv.seen.filter((l) => l.includes("/events")).length, 1, "the stream starts once the head is known");
  } finally {
    stop.abort();
    await srv.close();
  }
});

test("a 408 on the stream reconnects, as a 429 or a 5xx does", async () => {
  let streams = 0;
  const srv = await startFake((_req, res) => {
    streams++;
    if (streams === 1) {
      res.writeHead(408, { "Content-Type": "application/problem+json" });
      return void res.end(JSON.stringify({ type: "about:blank", status: 408, title: "Request Timeout" }));
    }
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    res.write(messageEvent(4));
  });
  const stop = new AbortController();
  try {
    const it = new Desk({ url: srv.url, token: "secret-token", desk: "eng" }).events({ after: 3, signal: stop.signal });
    const first = await within(10_000, "the first event after the 408", it.next());
    assert.equal(first.value?.id, 4);
    assert.equal(streams, 2);
  } finally {
    stop.abort();
    await srv.close();
  }
});

test("a stream silent for longer than readTimeout is given up and resumed from the last event id", async () => {
  const resumedFrom: string[] = [];
  const srv = await startFake((req, res) => {
    resumedFrom.push(String(req.headers["last-event-id"]));
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    if (resumedFrom.length === 1) return void res.write(messageEvent(4)); // then silence, as a connection dropped without a FIN
    res.write(messageEvent(5));
  });
  const stop = new AbortController();
  try {
    const it = new Desk({ url: srv.url, token: "secret-token", desk: "eng" }).events({ after: 3, readTimeout: 300, signal: stop.signal });
    assert.equal((await within(5_000, "the first event", it.next())).value?.id, 4);
    assert.equal((await within(5_000, "the event after the silence", it.next())).value?.id, 5);
    assert.deepEqual(resumedFrom, ["3", "4"]);
  } finally {
    stop.abort();
    await srv.close();
  }
});
