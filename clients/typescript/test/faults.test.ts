// Errors, retries, timeouts and signals against a real transcript serve behind a fault
// proxy that drops connections and answers, or answers 503 and 429 itself.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { APIConnectionError, APITimeoutError, Desk, InternalServerError, RateLimitError, type DeskOptions } from "../src/index.js";
import { startFake } from "./fake.js";
import { deskFixture, type Fixture } from "./fixture.js";
import { startProxy, type Proxy } from "./proxy.js";

let f: Fixture;
let proxy: Proxy;
before(async () => {
  f = await deskFixture();
  proxy = await startProxy(f.server.url);
});
after(async () => {
  await proxy?.close();
  await f?.server.stop();
});
beforeEach(() => {
  proxy.plan();
  proxy.seen.length = 0;
});

function through(opts: Partial<DeskOptions> = {}): Desk {
  return new Desk({ url: proxy.url, token: f.secrets.triage, desk: "eng", ...opts });
}

async function stored(content: string): Promise<number> {
  const view = await f.desk("operator").view({ window: 500 });
  return (view.messages ?? []).filter((m) => m.content === content).length;
}

test("a keyed post whose answer was dropped is retried and stores one row", async () => {
  proxy.plan({ match: "POST /messages", fault: { kind: "drop-answer" }, times: 1 });
  const row = await through().post({ content: "keyed across a drop", key: "k-drop" });
  assert.equal(row.content, "keyed across a drop");
  assert.deepEqual(proxy.seen.filter((l) => l.endsWith("/messages")), ["POST /v1/desks/eng/messages", "POST /v1/desks/eng/messages"], "sent twice");
  assert.equal(await stored("keyed across a drop"), 1, "stored once");
});

test("a post without a key is never retried: its dropped answer is an APIConnectionError", async () => {
  proxy.plan({ match: "POST /messages", fault: { kind: "drop-answer" }, times: 1 });
  const err = await through().post({ content: "unkeyed across a drop" }).catch((e: unknown) => e);
  assert.ok(err instanceof APIConnectionError && !(err instanceof APITimeoutError), `an APIConnectionError: ${String(err)}`);
  assert.ok(!err.message.includes(f.secrets.triage), "no token in the error");
  assert.equal(proxy.seen.filter((l) => l.endsWith("/messages")).length, 1, "sent once");
  assert.equal(await stored("unkeyed across a drop"), 1, "the server stored it, once");
  proxy.plan({ match: "POST /messages", fault: { kind: "status", status: 429, retryAfter: 0 }, times: 1 });
  await assert.rejects(through().post({ content: "unkeyed and limited" }), RateLimitError);
  assert.equal(proxy.seen.filter((l) => l.endsWith("/messages")).length, 2, "a 429 to an unkeyed post is not retried");
});

test("a write whose key is \"\" is a write without a key: sent without one, and never retried", async () => {
  const mine = await through().post({ content: "to be corrected" });
  const bodies: string[] = [];
  const recording: typeof fetch = async (input, init) => {
    if (input instanceof Request && input.method !== "GET") bodies.push(await input.clone().text());
    return fetch(input, init);
  };
  const desk = through({ fetch: recording });
  proxy.seen.length = 0;
  proxy.plan(
    { match: "POST /messages", fault: { kind: "drop-answer" }, times: 1 },
    { match: "PATCH /messages/" + mine.seq, fault: { kind: "drop-answer" }, times: 1 },
    { match: "DELETE /messages/" + mine.seq, fault: { kind: "drop-answer" }, times: 1 },
  );
  await assert.rejects(desk.post({ content: "empty key across a drop", key: "" }), APIConnectionError);
  await assert.rejects(desk.edit(mine.seq, { content: "corrected across a drop", key: "" }), APIConnectionError);
  await assert.rejects(desk.redact(mine.seq, { key: "" }), APIConnectionError);
  assert.deepEqual(proxy.seen, ["POST /v1/desks/eng/messages", `PATCH /v1/desks/eng/messages/${mine.seq}`, `DELETE /v1/desks/eng/messages/${mine.seq}`], "each sent once");
  assert.equal(bodies.length, 3);
  for (const body of bodies) assert.ok(!("key" in JSON.parse(body || "{}")), `no key in ${body}`);
  assert.equal(await stored("empty key across a drop"), 1, "stored once");
});

test("reads are retried after a dropped connection and a 503, up to maxRetries", async () => {
  proxy.plan({ match: "GET /view", fault: { kind: "drop-request" }, times: 1 }, { match: "GET /view", fault: { kind: "status", status: 503, retryAfter: 0 }, times: 1 });
  const view = await through().view();
  assert.ok(Array.isArray(view.messages ?? []));
  assert.equal(proxy.seen.length, 3, "two failures, then the answer");

  proxy.seen.length = 0;
  proxy.plan({ match: "GET /view", fault: { kind: "status", status: 503, retryAfter: 0 }, times: 5 });
  const err = await through({ maxRetries: 1 }).view().catch((e: unknown) => e);
  assert.ok(err instanceof InternalServerError && err.status === 503, String(err));
  assert.equal(proxy.seen.length, 2, "maxRetries 1: two tries");

  proxy.seen.length = 0;
  proxy.plan({ match: "GET /view", fault: { kind: "drop-request" }, times: 5 });
  await assert.rejects(through().view({ maxRetries: 0 }), APIConnectionError);
  assert.equal(proxy.seen.length, 1, "a call's maxRetries wins over the Desk's");
});

test("a call past its timeout is an APITimeoutError; an aborted signal ends it with its reason, untried again", async () => {
  proxy.plan({ match: "GET /view", fault: { kind: "hold", ms: 1_500 }, times: 5 });
  const err = await through({ maxRetries: 0 }).view({ timeout: 100 }).catch((e: unknown) => e);
  assert.ok(err instanceof APITimeoutError && err instanceof APIConnectionError, String(err));
  await assert.rejects(through({ maxRetries: 0, timeout: 100 }).view(), APITimeoutError, "the Desk's timeout");

  proxy.seen.length = 0;
  const stop = new AbortController();
  const reason = new Error("the caller stopped");
  const call = through().view({ signal: stop.signal });
  while (proxy.seen.length === 0) await new Promise((r) => setTimeout(r, 10)); // the proxy holds the answer
  stop.abort(reason);
  await assert.rejects(call, (e: unknown) => e === reason);
  assert.equal(proxy.seen.length, 1, "an aborted call is not retried");
  await assert.rejects(through().view({ signal: AbortSignal.abort(reason) }), (e: unknown) => e === reason, "an aborted signal sends nothing");
});

test("an empty or malformed token is refused when the Desk is made", () => {
  for (const token of ["", " ", "trs_abc def", "trs_\n", "trs_é"]) {
    assert.throws(() => new Desk({ url: proxy.url, token, desk: "eng" }), (e: unknown) => e instanceof TypeError && /token/.test(e.message) && (!token.trim() || !e.message.includes(token.trim())));
  }
  assert.equal(proxy.seen.length, 0, "nothing was sent");
});

for (const [what, body] of [["an empty 200", ""], ["a 200 of JSON null", "null"], ["a 200 of a JSON array", "[]"]]) test(`${what} is an APIConnectionError for every call that expects an answer`, async () => {
  const srv = await startFake((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(body!.length) });
    res.end(body);
  });
  try {
    const desk = new Desk({ url: srv.url, token: "secret-token", desk: "eng", maxRetries: 0 });
    const calls: Record<string, () => Promise<unknown>> = {
      info: () => desk.info(),
      whoami: () => desk.whoami(),
      view: () => desk.view(),
      delta: () => desk.delta({ conversation: { desk: "eng" }, watermark: 0 }),
      threads: () => desk.threads(),
      search: () => desk.search("vendor"),
      post: () => desk.post({ content: "hello" }),
      edit: () => desk.edit(1, { content: "hello" }),
      redact: () => desk.redact(1),
    };
    for (const [name, call] of Object.entries(calls)) {
      const err = await call().then(
        (v) => v,
        (e: unknown) => e,
      );
      assert.ok(err instanceof APIConnectionError, `${name}: ${String(err)}`);
    }
  } finally {
    await srv.close();
  }
});

test("a timeout of Infinity, or longer than a timer holds, is no timeout", async () => {
  const srv = await startFake((_req, res) => {
    setTimeout(() => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ head: 0, messages: [], partial: false, reads: 0, scanned: 0 }));
    }, 50);
  });
  try {
    const endless = new Desk({ url: srv.url, token: "secret-token", desk: "eng", maxRetries: 0, timeout: Infinity });
    assert.equal((await endless.view()).head, 0, "the Desk's Infinity");
    const desk = new Desk({ url: srv.url, token: "secret-token", desk: "eng", maxRetries: 0 });
    for (const timeout of [Infinity, 2 ** 31, Number.MAX_SAFE_INTEGER]) assert.equal((await desk.view({ timeout })).head, 0, `a call's ${timeout}`);
  } finally {
    await srv.close();
  }
});
