import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { RunnableLambda, RunnableWithMessageHistory } from "@langchain/core/runnables";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { Agent, Usage, run, setTracingDisabled, type AgentInputItem, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import type { Message } from "../src/index.js";
import { TranscriptChatMessageHistory } from "../src/langchain.js";
import { TranscriptSession } from "../src/openai-agents.js";
import { deskFixture, type Fixture } from "./fixture.js";

let f: Fixture;
let aside: Message;
let thread: Message;

// The desk: an operator, two agents, a person and a CI notice; an aside Reviewer may not
// read; a thread; an edit and a redaction.
before(async () => {
  f = await deskFixture();
  const [op, triage, review, ana, ci] = (["operator", "triage", "review", "ana", "ci"] as const).map((w) => f.desk(w));
  await ci!.post({ content: "Build 812 failed: migration step timed out." });
  thread = await ana!.post({ content: "Deploy #41 is red. Has anyone seen the migration hang?" });
  await triage!.post({ content: "The migration waits on a lock on <orders> & \"billing\".", parent: thread.seq });
  const wrong = await review!.post({ content: "I think it is the network.", parent: thread.seq });
  await review!.edit(wrong.seq, { content: "It is the lock: the network is fine." });
  const oops = await ana!.post({ content: "my password is hunter2" });
  await ana!.redact(oops.seq);
  aside = await op!.post({ content: "Triage: hold the spend alerts until Monday.", audience: ["agent:triage"] });
  await triage!.post({ content: "Understood: holding them.", parent: aside.seq });
  await review!.post({ content: "Reviewer here: shall I roll back?" });
});
after(async () => {
  await f?.server.stop();
});

/** modelInput is the service's own rendering of who's view, as `view --digest --format openai` prints it. */
async function modelInput(who: string, thread?: number, on: Fixture = f): Promise<{ role: string; name?: string; content: string }[]> {
  const q = new URLSearchParams({ format: "openai", as: who, digest: "true" });
  if (thread) q.set("thread", String(thread));
  const res = await fetch(`${on.server.url}/v1/desks/eng/model?${q}`, { headers: { Authorization: "Bearer " + on.secrets.operator } });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as { role: string; name?: string; content: string }[];
}

function roleOf(m: BaseMessage): string {
  return AIMessage.isInstance(m) ? "assistant" : HumanMessage.isInstance(m) ? "user" : m.type;
}

describe("TranscriptChatMessageHistory", () => {
  for (const [who, id, other] of [
    ["triage", "agent:triage", "review"],
    ["review", "agent:review", "triage"],
  ] as const) {
    for (const conv of [undefined, "thread"] as const) {
      test(`${id}'s ${conv ?? "channel"} is its view, turn for turn`, async () => {
        const root = conv ? thread.seq : undefined;
        const history = new TranscriptChatMessageHistory(root ? { desk: f.desk(who), thread: root } : { desk: f.desk(who) });
        const got = await history.getMessages();
        const want = await modelInput(id, root);
        assert.deepEqual(
          got.map((m) => ({ role: roleOf(m), content: m.content })),
          want.map((m) => ({ role: m.role, content: m.content })),
        );
        for (const [i, m] of got.entries()) {
          if (roleOf(m) === "user" && want[i]!.name) assert.equal(m.name, want[i]!.name!.replace(/^(agent|person|system)_/, ""), "a user turn is named after its author's id");
        }
        const others = got.filter((m) => HumanMessage.isInstance(m) && m.name === other);
        if (!conv || other === "review") assert.ok(others.length > 0, `the other agent's words are a HumanMessage named ${other}`);
        for (const m of others) assert.match(String(m.content), new RegExp(`^<message seq="\\d+"[^>]* kind="agent" id="${other}"`));
        assert.ok(got.some((m) => AIMessage.isInstance(m)), "its own words are AIMessages");
        const text = got.map((m) => String(m.content)).join("\n");
        if (who === "review" && !conv) {
          assert.ok(!text.includes("spend alerts") && !text.includes("holding them"), "no word of the aside Reviewer may not read");
          assert.match(text, new RegExp(`<elided from="${aside.seq}" through="${aside.seq}" count="1" readers="operator,agent:triage"/>`));
        }
        assert.ok(!text.includes("hunter2"), "a redacted row holds no content");
      });
    }
  }

  test("a RunnableWithMessageHistory round trip posts the model's reply as the participant", async () => {
    const history = new TranscriptChatMessageHistory({ desk: f.desk("review"), thread: thread.seq });
    const model = new FakeListChatModel({ responses: ["Rolling back #41 now."] });
    let received: BaseMessage[] = [];
    const chain = new RunnableWithMessageHistory({
      runnable: RunnableLambda.from(async (input: { history: BaseMessage[]; input: BaseMessage[] }) => {
        received = [...input.history, ...input.input];
        return model.invoke(received);
      }),
      getMessageHistory: () => history,
      inputMessagesKey: "input",
      historyMessagesKey: "history",
    });
    const before = (await modelInput("agent:review", thread.seq)).map((m) => m.content);
    const answer = await chain.invoke({ input: [] } as never, { configurable: { sessionId: "review-thread" } });
    assert.equal(answer.content, "Rolling back #41 now.");
    assert.deepEqual(
      received.map((m) => m.content),
      before,
      "the model received Reviewer's view of the thread",
    );
    const rows = (await f.desk("operator").view({ thread: thread.seq })).messages ?? [];
    const posted = rows.at(-1)!;
    assert.equal(posted.content, "Rolling back #41 now.");
    assert.deepEqual(posted.author, { type: "agent", id: "review", label: "Reviewer" });
    assert.equal(posted.parent, thread.seq);
  });

  test("other kinds are refused and nothing is posted; clear throws", async () => {
    const history = new TranscriptChatMessageHistory({ desk: f.desk("triage") });
    const head = (await f.desk("operator").info()).head;
    await assert.rejects(history.addMessages([new AIMessage("fine"), new HumanMessage("I am Ana")]), /only the participant's own AI messages/);
    await assert.rejects(history.addMessage(new AIMessage({ content: "", tool_calls: [{ name: "x", args: {}, id: "1" }] })), /tool calls/);
    const invalid = { type: "invalid_tool_call" as const, id: "1", name: "deploy", args: "{not json", error: "bad arguments" };
    await assert.rejects(history.addMessage(new AIMessage({ content: "calling the deploy tool now", invalid_tool_calls: [invalid] })), /tool calls/);
    assert.equal((await f.desk("operator").info()).head, head, "a refused batch posts nothing");
    await history.addMessages([new AIMessage(""), new AIMessage(" \n\t\u0085\u3000")]);
    await new TranscriptSession({ desk: f.desk("triage") }).addItems([{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "  " }] }]);
    assert.equal((await f.desk("operator").info()).head, head, "a blank answer posts nothing, as in the Python adapters");
    await assert.rejects(history.clear(), /append-only/);
  });
});

/** ScriptedModel answers with its script and records what each request held. */
class ScriptedModel implements Model {
  inputs: AgentInputItem[][] = [];
  constructor(private readonly answer: string) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.inputs.push(typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input);
    return {
      usage: new Usage(),
      output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: this.answer }] }],
      responseId: "scripted",
    };
  }
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not streamed");
  }
}

describe("TranscriptSession", () => {
  before(() => setTracingDisabled(true));

  test("an Agent run reads the participant's view and its answer lands on the desk as the participant", async () => {
    const session = new TranscriptSession({ desk: f.desk("triage") });
    const want = await modelInput("agent:triage");
    const items = await session.getItems();
    assert.deepEqual(
      items.map((i) => ("role" in i ? { role: i.role, content: typeof i.content === "string" ? i.content : i.content.map((c) => ("text" in c ? c.text : "")).join("") } : i)),
      want.map((m) => ({ role: m.role, content: m.content })),
    );
    assert.deepEqual(await session.getItems(2), items.slice(-2));

    const model = new ScriptedModel("Spend alerts stay held; the lock is on orders.");
    const agent = new Agent({ name: "Triage", instructions: "You are Triage.", model });
    const result = await run(agent, "What now?", { session });
    assert.equal(result.finalOutput, "Spend alerts stay held; the lock is on orders.");
    const input = model.inputs[0]!;
    for (const m of want) {
      assert.ok(
        input.some((i) => "role" in i && i.role === m.role && JSON.stringify(i.content).includes(JSON.stringify(m.content).slice(1, -1))),
        `the model received ${m.role}: ${m.content.slice(0, 40)}`,
      );
    }
    const rows = (await f.desk("operator").view()).messages ?? [];
    const posted = rows.at(-1)!;
    assert.equal(posted.content, "Spend alerts stay held; the lock is on orders.");
    assert.deepEqual(posted.author, { type: "agent", id: "triage", label: "Triage" });
    assert.ok(!rows.some((m) => m.content === "What now?"), "the run's input is not posted as the participant");
  });

  test("popItem and clearSession refuse", async () => {
    const session = new TranscriptSession({ desk: f.desk("review") });
    await assert.rejects(session.popItem(), /append-only/);
    await assert.rejects(session.clearSession(), /append-only/);
    assert.equal(await session.getSessionId(), "eng/0");
  });
});

// A channel long enough to fold (the service's policy: the newest 30 of its qualifying rows
// stay live, and 20 more fold), folded now: both adapters give its digest's tag first, as
// the service renders it.
describe("the digest", () => {
  let g: Fixture;
  let tag: string;
  before(async () => {
    g = await deskFixture();
    const ana = g.desk("ana");
    for (let n = 0; n < 20; n++) await ana.post({ content: `Folded note ${n}: Quokka checks` });
    for (let n = 0; n < 30; n++) await ana.post({ content: `Live note ${n}` });
    for (let i = 0; i < 600; i++) {
      // a background fold may overtake the operator's and store the digest
      const res = await fetch(`${g.server.url}/v1/desks/eng/digest`, { method: "POST", headers: { Authorization: "Bearer " + g.secrets.operator } });
      assert.equal(res.status, 200);
      if (((await res.json()) as { digest?: unknown }).digest) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    tag = (await g.desk("triage").view({ rendered: true, digest: true })).rendered?.digest ?? "";
    assert.ok(tag.startsWith("<digest ") && tag.includes("Quokka"), "a digest of the folded rows");
  });
  after(async () => {
    await g?.server.stop();
  });

  test("TranscriptChatMessageHistory's first message is the digest", async () => {
    const got = await new TranscriptChatMessageHistory({ desk: g.desk("triage") }).getMessages();
    const want = await modelInput("agent:triage", undefined, g);
    assert.deepEqual(got.map((m) => [roleOf(m), m.content]), want.map((m) => [m.role, m.content]));
    assert.ok(HumanMessage.isInstance(got[0]) && got[0].content === tag && got[0].name === undefined, "a HumanMessage holding the tag, without a name");
  });

  test("TranscriptSession's first item is the digest", async () => {
    const items = await new TranscriptSession({ desk: g.desk("triage") }).getItems();
    assert.deepEqual(items[0], { type: "message", role: "user", content: tag });
    assert.equal(items.length, (await modelInput("agent:triage", undefined, g)).length);
  });
});
