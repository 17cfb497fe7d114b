// The mapping every framework adapter shares: a participant's view as model turns, exactly
// as `transcript view --digest --format openai` renders it. The conversation's digest, when
// it has one, is the first user turn, holding the service's digest tag; the participant's
// own words are the assistant's, verbatim; everyone else's are user turns holding the
// message in the envelope the service rendered, which says who wrote it and which no
// content can forge; elisions are user turns holding the service's tag. The escaping is the
// service's alone: this module maps roles and names, never text.
import type { Desk } from "./desk.js";
import { ProblemError } from "./problem.js";
import type { Author, Delta, Message, Rendered } from "./types.js";

/** One model turn of a participant's view. */
export interface Turn {
  role: "user" | "assistant";
  /** A user turn's author: its id, a system notice's kind, or "operator"; absent on elisions and assistant turns. */
  name?: string;
  content: string;
  /** The row the turn renders; absent for an elision and for the digest. */
  seq?: number;
}

/** A view, or a delta's rows, with the service's rendered text of each (asked for with rendered: true) and a view's digest's tag (with digest: true). */
export interface RenderedRows {
  messages?: Message[] | null;
  elided?: { from: number }[] | null;
  rendered?: Rendered;
}

/** authorName is the name a framework message carries for author: its id, a notice's kind, or "operator". */
export function authorName(a: Author): string {
  return a.id || a.kind || a.type;
}

/** sameAuthor reports whether a and b are one participant: type and id (a notice's kind); labels play no part. */
export function sameAuthor(a: Author, b: Author): boolean {
  return a.type === b.type && (a.id || a.kind || "") === (b.id || b.kind || "");
}

/**
 * turns is rows for viewer, one turn per message and per elision, in sequence order: the
 * viewer's own messages (neither a correction nor redacted) as assistant turns, verbatim;
 * every other message as a user turn holding its rendered envelope; each elision as a user
 * turn holding its rendered tag. When the rows carry a rendered digest, a user turn holding
 * its tag comes first. It throws when rows carry no rendered text.
 */
export function turns(viewer: Author, rows: RenderedRows): Turn[] {
  const messages = rows.messages ?? [];
  const elided = rows.elided ?? [];
  const texts = rows.rendered;
  if (!texts || (texts.messages ?? []).length !== messages.length || (texts.elided ?? []).length !== elided.length) {
    throw new Error("transcript: rows without the service's rendered text: read them with rendered: true");
  }
  const out: Turn[] = texts.digest ? [{ role: "user", content: texts.digest }] : [];
  let j = 0;
  const pushElisionsBefore = (seq: number) => {
    for (; j < elided.length && elided[j]!.from < seq; j++) out.push({ role: "user", content: texts.elided![j]! });
  };
  for (const [i, m] of messages.entries()) {
    pushElisionsBefore(m.seq);
    if (sameAuthor(viewer, m.author) && !m.corrects && !m.redacted) out.push({ role: "assistant", content: m.content, seq: m.seq });
    else out.push({ role: "user", name: authorName(m.author), content: texts.messages![i]!, seq: m.seq });
  }
  pushElisionsBefore(Infinity);
  return out;
}

/**
 * withCorrections is a delta's messages and corrections as one list of rows in sequence
 * order, each with its rendered text, for turns: a correction is a user turn in its envelope,
 * even the viewer's own.
 */
export function withCorrections(delta: Delta, rendered: Rendered | undefined): RenderedRows {
  const rows = [
    ...(delta.messages ?? []).map((m, i) => ({ m, text: rendered?.messages?.[i] })),
    ...(delta.corrections ?? []).map((m, i) => ({ m, text: rendered?.corrections?.[i] })),
  ].sort((a, b) => a.m.seq - b.m.seq);
  const texts = rows.map((r) => r.text);
  const out: RenderedRows = { messages: rows.map((r) => r.m), elided: delta.elided ?? [] };
  if (rendered && texts.every((t) => t !== undefined)) out.rendered = { messages: texts as string[], elided: rendered.elided ?? [] };
  return out;
}

/**
 * viewTurns is the participant's view of the channel, or of a thread, as model turns: the
 * conversation's digest first, when it has one below the window, as `view --digest
 * --format openai` renders it.
 */
export async function viewTurns(desk: Desk, thread?: number): Promise<Turn[]> {
  const [me, view] = await Promise.all([desk.whoami(), desk.view({ thread, rendered: true, digest: true })]);
  return turns(me, view);
}

/** blankProblem is the type of the service's refusal of blank content. */
const blankProblem = "tag:sharedesk.dev,2025:problem:blank";

/**
 * postText posts content as the participant in the conversation (thread: its root; absent:
 * the channel), as every memory adapter posts a model's answer, and returns the stored row;
 * content the service refuses as blank (an empty answer) posts nothing, and is undefined.
 * What is blank is the service's to say.
 */
export async function postText(desk: Desk, thread: number | undefined, content: string): Promise<Message | undefined> {
  try {
    return await desk.post(thread ? { content, parent: thread } : { content });
  } catch (err) {
    if (err instanceof ProblemError && err.type === blankProblem) return undefined;
    throw err;
  }
}
