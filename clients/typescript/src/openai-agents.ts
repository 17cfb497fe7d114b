// The desk as an OpenAI Agents SDK session: one conversation as one participant reads it.
import type { AgentInputItem, Session } from "@openai/agents";
import type { Desk } from "./desk.js";
import { postText, viewTurns } from "./mapping.js";

export interface TranscriptSessionOptions {
  desk: Desk;
  /** A thread's root: the session is the thread; absent: the channel. */
  thread?: number;
}

/**
 * TranscriptSession is a participant's view of one conversation of a desk (the channel, or
 * a thread) as an Agents SDK session: its own rows as assistant messages, verbatim; every
 * other row as a user message holding the row in an envelope that names its author; rows it
 * may not read as the elision text that stands for them; the conversation's digest, when it
 * has one below the view, first, as a user message holding the digest's tag. The
 * participant is the token's.
 *
 * addItems posts the text of each completed assistant message, the agent's answer, as the
 * participant, in the session's conversation. It posts nothing else: the run's input is the
 * caller's, not a row, and tool calls and reasoning stay in the run. popItem and
 * clearSession throw: a desk is append-only.
 */
export class TranscriptSession implements Session {
  readonly desk: Desk;
  readonly thread?: number;

  constructor(opts: TranscriptSessionOptions) {
    this.desk = opts.desk;
    if (opts.thread) this.thread = opts.thread;
  }

  async getSessionId(): Promise<string> {
    return `${this.desk.name}/${this.thread ?? 0}`;
  }

  /** getItems is the view as input items, oldest first; with limit, the newest limit of them. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const items: AgentInputItem[] = (await viewTurns(this.desk, this.thread)).map((t) =>
      t.role === "assistant"
        ? { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: t.content }] }
        : { type: "message", role: "user", content: t.content },
    );
    return limit !== undefined && limit >= 0 ? items.slice(Math.max(0, items.length - limit)) : items;
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    for (const item of items) {
      if (!("role" in item) || item.role !== "assistant" || item.status !== "completed") continue;
      const text = item.content.map((c) => (c.type === "output_text" ? c.text : "")).join("");
      await postText(this.desk, this.thread, text);
    }
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    throw new Error("transcript: a desk is append-only; a session item cannot be removed");
  }

  async clearSession(): Promise<void> {
    throw new Error("transcript: a desk is append-only; its session cannot be cleared");
  }
}
