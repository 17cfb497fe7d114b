// The desk as LangChain.js chat history: one conversation as one participant reads it.
import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { Desk } from "./desk.js";
import { postText, viewTurns } from "./mapping.js";

export interface TranscriptChatMessageHistoryOptions {
  desk: Desk;
  /** A thread's root: the history is the thread; absent: the channel. */
  thread?: number;
}

/**
 * TranscriptChatMessageHistory is a participant's view of one conversation of a desk (the
 * channel, or a thread) as LangChain messages: its own rows as AIMessage, verbatim; every
 * other row as a HumanMessage holding the row in an envelope that names its author, with
 * name set to the author's id (a notice's kind, "operator" for the operator); rows it may
 * not read as the elision text that stands for them; the conversation's digest, when it has
 * one below the view, first, as a HumanMessage holding the digest's tag, without a name.
 * The participant is the token's.
 *
 * addMessage posts an AIMessage with text content and no tool calls (valid or invalid) as
 * the participant, in the history's conversation; every other message is refused, since the
 * desk's other rows are written by their own authors. clear throws: a desk is append-only.
 */
export class TranscriptChatMessageHistory extends BaseListChatMessageHistory {
  lc_namespace = ["sharedesk", "transcript", "langchain"];
  readonly desk: Desk;
  readonly thread?: number;

  constructor(opts: TranscriptChatMessageHistoryOptions) {
    super();
    this.desk = opts.desk;
    if (opts.thread) this.thread = opts.thread;
  }

  async getMessages(): Promise<BaseMessage[]> {
    return (await viewTurns(this.desk, this.thread)).map((t) =>
      t.role === "assistant" ? new AIMessage({ content: t.content }) : new HumanMessage(t.name ? { content: t.content, name: t.name } : { content: t.content }),
    );
  }

  async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message]);
  }

  /** addMessages posts each message, in order, after checking them all: a refusal posts none. */
  async addMessages(messages: BaseMessage[]): Promise<void> {
    const contents = messages.map(postable);
    for (const content of contents) await postText(this.desk, this.thread, content);
  }

  async clear(): Promise<void> {
    throw new Error("transcript: a desk is append-only; its history cannot be cleared");
  }
}

/** postable is message's text if the participant may post it: an AIMessage's, without tool calls, valid or invalid. */
function postable(message: BaseMessage): string {
  if (!AIMessage.isInstance(message)) throw new Error(`transcript: only the participant's own AI messages are posted, not a ${message.type} message: other rows are written by their authors`);
  if ((message.tool_calls?.length ?? 0) > 0 || (message.invalid_tool_calls?.length ?? 0) > 0) throw new Error("transcript: an AI message with tool calls is not posted to a desk");
  if (typeof message.content !== "string") throw new Error("transcript: only an AI message with text content is posted");
  return message.content;
}
