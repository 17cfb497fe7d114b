// Runs every scenario of clients/conformance/ against a real transcript serve: the same
// files the Python client's tests run, so the two clients hold to one contract.
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { Desk, takeTurn, turns, viewTurns, withCorrections, type DeskEvent, type Digest, type Message, type Reply, type State, type Turn } from "../src/index.js";
import { postText } from "../src/mapping.js";
import { within } from "./fixture.js";
import { startServer, token, type Server } from "./server.js";

const dir = fileURLToPath(new URL("../../../conformance/", import.meta.url));

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Step = { do: string; as?: string; expect?: Record<string, Json>; error?: Record<string, Json>; [k: string]: Json | undefined };
interface Scenario {
  name: string;
  serve?: string[];
  participants: Record<string, string>;
  steps: Step[];
}

/** What an agent's turns told it: each row as it last heard of it, and every text it read. */
interface Memory {
  rows: Map<number, { content: string; redacted: boolean }>;
  read: string[];
}

class Run {
  readonly saved = new Map<string, number>();
  readonly states = new Map<string, State>();
  readonly memory = new Map<string, Memory>();
  readonly streams = new Map<string, { events: DeskEvent[]; stop: AbortController; done: Promise<void> }>();
  constructor(
    readonly server: Server,
    readonly secrets: Record<string, string>,
  ) {}

  /** ref is a step's value with every "$NAME" the seq saved under NAME. */
  ref(v: Json | undefined): number | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v === "number") return v;
    if (typeof v === "string" && v.startsWith("$")) {
      const seq = this.saved.get(v.slice(1));
      assert.ok(seq !== undefined, `no row saved as ${v.slice(1)}`);
      return seq;
    }
    assert.fail(`not a seq: ${JSON.stringify(v)}`);
  }

  refs(v: Json | undefined): number[] {
    assert.ok(Array.isArray(v), `a list of seqs: ${JSON.stringify(v)}`);
    return v.map((x) => this.ref(x)!);
  }

  desk(step: Step): Desk {
    const who = step.as!;
    const secret = this.secrets[who] ?? "trs_not_a_token_of_this_desk";
    const maxRetries = typeof step.max_retries === "number" ? step.max_retries : undefined;
    return new Desk({ url: this.server.url, token: secret, desk: "eng", ...(maxRetries !== undefined ? { maxRetries } : {}) });
  }

  mem(who: string): Memory {
    let m = this.memory.get(who);
    if (!m) this.memory.set(who, (m = { rows: new Map(), read: [] }));
    return m;
  }

  save(step: Step, row: Message | undefined) {
    if (typeof step.save === "string" && row) this.saved.set(step.save, row.seq);
  }

  async step(step: Step): Promise<void> {
    const e = step.expect ?? {};
    switch (step.do) {
      case "post": {
        const desk = this.desk(step);
        let row: Message | undefined;
        for (let n = 1; n <= (typeof step.repeat === "number" ? step.repeat : 1); n++) {
          const opts: Parameters<Desk["post"]>[0] = { content: String(step.content).replaceAll("{n}", String(n)) };
          if (step.parent !== undefined) opts.parent = this.ref(step.parent)!;
          if (Array.isArray(step.audience)) opts.audience = step.audience.map(String);
          if (typeof step.key === "string") opts.key = step.key;
          row = await desk.post(opts);
        }
        this.save(step, row);
        if (e.seq !== undefined) assert.equal(row?.seq, this.ref(e.seq), "the stored row");
        return;
      }
      case "answer": {
        const row = await postText(this.desk(step), this.ref(step.thread), String(step.content));
        this.save(step, row);
        if (e.posted !== undefined) assert.equal(row !== undefined, e.posted, "whether the answer was posted");
        return;
      }
      case "edit":
        return this.save(step, await this.desk(step).edit(this.ref(step.seq)!, { content: String(step.content) }));
      case "redact":
        return this.save(step, await this.desk(step).redact(this.ref(step.seq)!));
      case "view": {
        const opts: Parameters<Desk["view"]>[0] = {};
        if (step.thread !== undefined) opts.thread = this.ref(step.thread)!;
        if (typeof step.window === "number") opts.window = step.window;
        if (typeof step.view_as === "string") opts.as = step.view_as;
        if (step.digest === true) opts.digest = true;
        const view = await this.desk(step).view(opts);
        if (e.messages !== undefined) assert.deepEqual(view.messages?.map((m) => m.seq) ?? [], this.refs(e.messages), "the view's messages");
        if (e.digest === null) assert.equal(view.digest, undefined, "the view carries no digest");
        else if (e.digest !== undefined) this.digest(view.digest, e.digest as Record<string, Json>);
        this.absent(JSON.stringify(view), e.absent);
        return;
      }
      case "fold": {
        const q = new URLSearchParams();
        const thread = this.ref(step.thread);
        if (thread) q.set("thread", String(thread));
        const fold = async (): Promise<Digest> => {
          for (;;) {
            const res = await fetch(`${this.server.url}/v1/desks/eng/digest?${q}`, { method: "POST", headers: { Authorization: "Bearer " + this.secrets[step.as!] } });
            assert.equal(res.status, 200, "the fold's status");
            const answer = (await res.json()) as { digest?: Digest };
            if (answer.digest) return answer.digest;
            await new Promise((r) => setTimeout(r, 50)); // a background fold overtook this one
          }
        };
        this.digest(await within(30_000, "a fold with a digest", fold()), e);
        return;
      }
      case "search": {
        const hits = await this.desk(step).search(String(step.words));
        if (e.messages !== undefined) assert.deepEqual(hits.messages?.map((m) => m.seq) ?? [], this.refs(e.messages), "the hits");
        return;
      }
      case "delta": {
        const name = String(step.state ?? step.as);
        const state = this.states.get(name) ?? { conversation: { desk: "eng" }, watermark: 0, present: [] };
        const thread = this.ref(step.thread);
        const answer = await this.desk(step).delta(state, thread ? { conversation: { thread }, rendered: true } : { rendered: true });
        if ("reinitialize" in answer) {
          assert.equal(answer.reinitialize, e.reinitialize, "the delta reinitializes");
          return;
        }
        assert.equal(undefined, e.reinitialize, "the delta reinitializes");
        if (e.messages !== undefined) assert.deepEqual(answer.delta.messages?.map((m) => m.seq) ?? [], this.refs(e.messages), "the delta's messages");
        if (e.corrections !== undefined) assert.deepEqual(answer.delta.corrections?.map((m) => m.seq) ?? [], this.refs(e.corrections), "the delta's corrections");
        if (e.turns !== undefined) {
          const desk = this.desk(step);
          this.roles(turns(await desk.whoami(), withCorrections(answer.delta, answer.rendered)), e.turns);
        }
        this.states.set(name, answer.delta.next);
        return;
      }
      case "turn":
        return this.turn(step);
      case "holds": {
        const m = this.mem(step.as!);
        const rows = (e.rows ?? {}) as Record<string, { content?: string; redacted?: boolean }>;
        for (const [r, want] of Object.entries(rows)) {
          const got = m.rows.get(this.ref(r)!);
          assert.ok(got, `${step.as} was told of ${r}`);
          if (want.redacted !== undefined) assert.equal(got.redacted, want.redacted, `${step.as} holds ${r} redacted`);
          if (want.content !== undefined) assert.equal(got.content, want.content, `${step.as} holds ${r}'s content`);
        }
        this.absent(m.read.join("\n"), e.never_read, `${step.as} read`);
        return;
      }
      case "turns": {
        const desk = this.desk(step);
        const thread = this.ref(step.thread);
        const got = await viewTurns(desk, thread);
        const want = await this.serviceTurns(step.as!, thread);
        assert.deepEqual(got.map((t) => [t.role, t.content]), want, `${step.as}'s turns are what the service renders`);
        this.roles(got, e.roles);
        this.absent(got.map((t) => t.content).join("\n"), e.absent);
        if (e.digest !== undefined) assert.equal(isDigest(got[0]), e.digest, "the first turn is the digest's");
        return;
      }
      case "events": {
        const desk = this.desk(step);
        const after = (await desk.info()).head;
        const stop = new AbortController();
        const events: DeskEvent[] = [];
        const done = (async () => {
          for await (const ev of desk.events({ after, signal: stop.signal })) events.push(ev);
        })();
        this.streams.set(String(step.stream), { events, stop, done });
        return;
      }
      case "events_expect": {
        const s = this.streams.get(String(step.stream));
        assert.ok(s, `no stream ${String(step.stream)}`);
        const want = this.refs(step.ids);
        const ids = () => s.events.filter((x) => x.type === "message").map((x) => x.id);
        await within(30_000, `stream ${String(step.stream)}'s events`, (async () => {
          while (ids().length < want.length) await new Promise((r) => setTimeout(r, 20));
        })());
        assert.deepEqual(ids(), want, "each event once, in order");
        return;
      }
      case "kill":
        return this.server.kill();
      case "restart":
        return this.server.restart();
      default:
        assert.fail(`unknown step ${step.do}`);
    }
  }

  async turn(step: Step): Promise<void> {
    const e = step.expect ?? {};
    const who = step.as!;
    const name = String(step.state ?? who);
    const thread = this.ref(step.thread);
    const state = this.states.get(name);
    let saved: State | undefined;
    let service: [string, string][] | undefined;
    let given: Turn[] | undefined;
    const result = await takeTurn(this.desk(step), {
      ...(state ? { state } : {}),
      ...(thread !== undefined ? { thread } : {}),
      decide: async (news, me, _elided, _corrections, input): Promise<Reply | null> => {
        given = input;
        if (e.digest !== undefined) service = await this.serviceTurns(who, thread); // before the reply
        if (step.reply === "ack") {
          const seq = input.filter((t) => t.seq !== undefined).at(-1)?.seq;
          return seq !== undefined ? { content: "ack: noted", answers: seq } : null;
        }
        if (step.reply !== "echo") return null;
        const m = news.filter((x) => !(x.author.type === me.type && (x.author.id ?? x.author.kind) === (me.id ?? me.kind))).at(-1);
        return m ? { content: "echo: " + m.content, answers: m.seq } : null;
      },
      save: (s) => void (saved = s),
    });
    assert.ok(saved, "the turn saved its state");
    this.states.set(name, saved);
    this.save(step, result.reply);
    const m = this.mem(who);
    for (const n of result.news) {
      m.rows.set(n.seq, { content: n.content, redacted: !!n.redacted });
      m.read.push(n.content);
    }
    for (const c of result.corrections) {
      m.rows.set(c.corrects!, { content: c.content, redacted: !!c.redacted });
      m.read.push(c.content);
    }
    if (e.news !== undefined) assert.deepEqual(result.news.map((x) => x.seq), this.refs(e.news), "the turn's news");
    if (e.corrections !== undefined) assert.deepEqual(result.corrections.map((x) => x.seq), this.refs(e.corrections), "the turn's corrections");
    if (e.elided !== undefined) {
      const pairs = (e.elided as Json[]).map((p) => this.refs(p));
      assert.deepEqual(result.elided.map((x) => [x.from, x.through]), pairs, "the turn's elisions");
    }
    if (e.reinitialized !== undefined) assert.equal(result.reinitialized ?? null, e.reinitialized, "the turn's reinitialization");
    assert.deepEqual(given, result.turns, "decide is given the turn's model input");
    this.roles(result.turns, e.turns);
    this.absent(result.turns.map((t) => t.content).join("\n"), e.absent);
    if (e.digest !== undefined) {
      assert.equal(isDigest(result.turns[0]), e.digest, "the turn's first model turn is the digest's");
      assert.equal(result.digest !== undefined, e.digest, "the turn carries the digest");
      if (e.digest) assert.equal(result.turns[0]!.content, result.rendered?.digest, "the digest's turn holds its tag");
      if (result.reinitialized !== undefined) assert.deepEqual(result.turns.map((t) => [t.role, t.content]), service, "a turn from a view is what the service renders");
    }
    if (e.reply === null) assert.equal(result.reply, undefined, "the turn posts no reply");
    else if (e.reply !== undefined) {
      const want = e.reply as Record<string, Json>;
      assert.ok(result.reply, "the turn posts a reply");
      if ("parent" in want) assert.equal(result.reply.parent ?? null, this.ref(want.parent) ?? null, "the reply's parent");
      if ("content" in want) assert.equal(result.reply.content, want.content, "the reply's content");
    }
    if (e.state !== undefined) {
      const want = e.state as Record<string, Json>;
      if ("thread" in want) assert.equal(saved.conversation.thread || null, this.ref(want.thread) ?? null, "the state's thread");
      if ("viewer" in want) {
        const v = saved.viewer;
        assert.equal(v ? v.type + (v.id || v.kind ? ":" + (v.id ?? v.kind) : "") : null, want.viewer, "the state's viewer");
      }
      if ("present" in want) {
        for (const seq of this.refs(want.present)) assert.ok(saved.watermark >= seq || saved.present?.includes(seq), `the state holds ${seq} as seen`);
      }
    }
  }

  /** serviceTurns is what the service renders as who's model input (GET …/model?format=openai&digest=true), role and text. */
  async serviceTurns(who: string, thread: number | undefined): Promise<[string, string][]> {
    const q = new URLSearchParams({ format: "openai", digest: "true" });
    if (thread) q.set("thread", String(thread));
    const res = await fetch(`${this.server.url}/v1/desks/eng/model?${q}`, { headers: { Authorization: "Bearer " + this.secrets[who] } });
    assert.equal(res.status, 200);
    return ((await res.json()) as { role: string; content: string }[]).map((t) => [t.role, t.content]);
  }

  /** digest checks a digest against a step's expectation of it. */
  digest(got: Digest | undefined, want: Record<string, Json>) {
    assert.ok(got, "a digest");
    if (want.through !== undefined) assert.equal(got.through, this.ref(want.through), "the digest's through");
    for (const k of ["rows", "generation", "digester"] as const) if (want[k] !== undefined) assert.equal(got[k], want[k], `the digest's ${k}`);
    for (const w of (want.holds ?? []) as string[]) assert.ok(got.text.includes(w), `the digest holds ${JSON.stringify(w)}`);
    this.absent(got.text, want.absent, "the digest");
  }

  /** roles checks the role of each row's turn. */
  roles(got: { seq?: number; role: string }[], want: Json | undefined) {
    for (const [r, role] of Object.entries((want ?? {}) as Record<string, string>)) {
      const t = got.find((x) => x.seq === this.ref(r));
      assert.ok(t, `a turn for ${r}`);
      assert.equal(t.role, role, `${r}'s turn is the ${role}'s`);
    }
  }

  absent(text: string, words: Json | undefined, what = "the answer") {
    for (const w of (words ?? []) as string[]) assert.ok(!text.includes(w), `${what} holds ${JSON.stringify(w)}`);
  }

  /** run runs one step, checking the error it must raise, if any. */
  async run(i: number, step: Step): Promise<void> {
    const where = `step ${i + 1} (${step.do}${step.as ? " as " + step.as : ""})`;
    if (!step.error) {
      try {
        await this.step(step);
      } catch (err) {
        if (err instanceof Error) err.message = `${where}: ${err.message}`;
        throw err;
      }
      return;
    }
    const err: unknown = await this.step(step).then(
      () => assert.fail(`${where}: want an error, got an answer`),
      (x: unknown) => x,
    );
    const want = step.error;
    assert.ok(err instanceof Error, `${where}: an Error`);
    if (typeof want.class === "string") assert.ok(classNames(err).includes(want.class), `${where}: want a ${want.class}, got ${classNames(err).join(" < ")}: ${err.message}`);
    const p = err as { status?: number; retryAfter?: number };
    if (typeof want.status === "number") assert.equal(p.status, want.status, `${where}: the status`);
    if (typeof want.retry_after_at_least === "number") assert.ok((p.retryAfter ?? 0) >= want.retry_after_at_least, `${where}: Retry-After`);
    for (const secret of Object.values(this.secrets)) assert.ok(!err.message.includes(secret), "no token in an error");
  }

  async close() {
    for (const s of this.streams.values()) s.stop.abort();
    await Promise.all([...this.streams.values()].map((s) => s.done.catch(() => {})));
    await this.server.stop();
  }
}

/** isDigest is whether t is the conversation's digest: a user turn of no row and no name, holding the service's digest tag. */
function isDigest(t: Turn | undefined): boolean {
  return t !== undefined && t.role === "user" && t.seq === undefined && t.name === undefined && t.content.startsWith("<digest ");
}

/** classNames is err's class and every class it derives from, nearest first. */
function classNames(err: object): string[] {
  const out: string[] = [];
  for (let p = Object.getPrototypeOf(err); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) out.push(p.constructor.name);
  return out;
}

const files = (await readdir(dir)).filter((f) => f.endsWith(".json")).sort();

describe("conformance", () => {
  test("the scenarios are there", () => assert.ok(files.length >= 5, `scenario files in ${dir}: ${files.join(", ")}`));
  for (const file of files) {
    test(file, async () => {
      const scenario = JSON.parse(await readFile(join(dir, file), "utf8")) as Scenario;
      const server = await startServer(scenario.serve ? { flags: scenario.serve } : {});
      const secrets: Record<string, string> = {};
      for (const [who, p] of Object.entries(scenario.participants)) secrets[who] = await token(server.db, "eng", p);
      const run = new Run(server, secrets);
      try {
        for (const [i, step] of scenario.steps.entries()) await run.run(i, step);
      } finally {
        await run.close();
      }
    });
  }
});
