import type { Desk } from "./desk.js";
import { sameAuthor, turns, withCorrections, type Turn } from "./mapping.js";
import { ConflictError } from "./problem.js";
import type { Author, Digest, Elision, Message, Rendered, State } from "./types.js";

/** The most rows a state's present set holds: the service refuses a state with more. */
export const presentSetLimit = 64;

/** A reply a turn posts: as a post's body, and the seq of the row it answers (its key's part). */
export interface Reply {
  content: string;
  parent?: number;
  audience?: string[];
  /** The row this reply answers; the post's key is derived from it and the token. */
  answers: number;
}

/** The reason a turn gives for starting from a view when it had no state: the agent's first turn. */
export const firstRead = "first_read";

export interface TurnOptions {
  /** The state the last committed turn saved; absent: an agent that has seen nothing, whose turn starts from a view. */
  state?: State;
  /**
   * Where the turn happens: a thread's root, or 0 for the channel; absent: the state's
   * conversation (the channel without a state). A state of another conversation starts the
   * turn over from this one's view, and the state saved is this conversation's.
   */
  thread?: number;
  /**
   * The caller's decision: the news (oldest first), who the participant is, the elisions,
   * the corrections (edits and redactions of rows it was shown), and the turn's model input
   * (TurnResult.turns); null: no reply.
   */
  decide(news: Message[], me: Author, elided: Elision[], corrections: Message[], turns: Turn[]): Reply | null | Promise<Reply | null>;
  /** Commits the next state. Called only once the reply, if any, is stored. */
  save(next: State): void | Promise<void>;
}

export interface TurnResult {
  /** The messages new to the participant, oldest first. */
  news: Message[];
  /** The edits and redactions of rows the participant was shown before: its to apply. */
  corrections: Message[];
  /** Runs of rows the participant may not read, in their place. */
  elided: Elision[];
  /** The service's text of the digest, when the turn has one, and of each of news, corrections and elided, in their order, as the participant's model reads them. */
  rendered?: Rendered;
  /**
   * The conversation's digest below the view, when the turn started from a view and the
   * conversation has one; rendered.digest is its tag. A delta is news and carries none.
   */
  digest?: Digest;
  /**
   * The turn's model input: the conversation's digest first, when the turn has one, as a
   * user turn holding its tag, then news, corrections and elisions in sequence order, as
   * turns() maps them (the text is the service's).
   */
  turns: Turn[];
  /**
   * Why the turn started from a view: "first_read" (firstRead) on a turn without a state,
   * else the reason the state could not give a delta.
   */
  reinitialized?: string;
  /** The stored reply, if the turn posted one. */
  reply?: Message;
  state: State;
}

/**
 * takeTurn takes one turn of the participant: what is new since opts.state (a delta; without
 * a state, or on reinitialization, the view with the conversation's digest, and a state at
 * its head that records that digest, so that the service starts the turn over from a view
 * (digest_corrected) once a row it stands for is edited or redacted), the caller's decision
 * on it and its model input, the reply posted
 * with a key of the token and the row it answers, and the next state saved — only after the
 * reply is stored. A turn that fails before the save runs again from the old state: the
 * same news, and the same key, which the service answers with the row it stored, never a
 * second one. When decide answers otherwise this time, the service refuses the new reply
 * (ConflictError): the reply the earlier run stored, found in the news by its key and
 * author, is the turn's, and the new answer is not posted; without it in the news, the
 * ConflictError is thrown. Every state it saves names the participant (its viewer): a state
 * saved for another participant starts the turn over from a view.
 *
 * The state saved is never past a correction the result does not hold: the delta's
 * corrections are returned with its news. A reply that answers an aside and sets no parent
 * is posted as a reply to that aside, so it is read by the aside's readers only.
 */
export async function takeTurn(desk: Desk, opts: TurnOptions): Promise<TurnResult> {
  const me = await desk.whoami();
  const thread = (opts.thread ?? opts.state?.conversation.thread) || undefined;
  const conversation: State["conversation"] = thread ? { desk: desk.name, thread } : { desk: desk.name };
  let news: Message[];
  let elided: Elision[];
  let corrections: Message[] = [];
  let rendered: Rendered | undefined;
  let digest: Digest | undefined;
  let input: Turn[];
  let next: State;
  let reinitialized: string | undefined;
  const answer = opts.state ? await desk.delta(opts.state, thread ? { conversation: { thread }, rendered: true } : { rendered: true }) : { reinitialize: firstRead };
  if ("reinitialize" in answer) {
    reinitialized = answer.reinitialize;
    const view = await desk.view({ thread, rendered: true, digest: true });
    rendered = view.rendered;
    digest = view.digest;
    news = view.messages ?? [];
    elided = view.elided ?? [];
    input = turns(me, view);
    next = { conversation, watermark: view.head, present: [], viewer: identity(me) };
    if (view.digest) next.digest = view.digest.through;
  } else {
    news = answer.delta.messages ?? [];
    elided = answer.delta.elided ?? [];
    corrections = answer.delta.corrections ?? [];
    rendered = answer.rendered;
    input = turns(me, withCorrections(answer.delta, answer.rendered));
    next = answer.delta.next;
  }
  const reply = await opts.decide(news, me, elided, corrections, input);
  let stored: Message | undefined;
  if (reply) {
    const key = replyKey(desk, reply.answers);
    stored = await desk.post({ ...replyPlace(reply, news, corrections), content: reply.content, key }).catch((err: unknown) => {
      const earlier = err instanceof ConflictError ? news.find((m) => m.key === key && sameAuthor(m.author, me)) : undefined;
      if (!earlier) throw err;
      return earlier;
    });
    next = notePresent(next, stored.seq);
  }
  await opts.save(next);
  const result: TurnResult = { news, corrections, elided, turns: input, state: next };
  if (rendered) result.rendered = rendered;
  if (digest) result.digest = digest;
  if (reinitialized !== undefined) result.reinitialized = reinitialized;
  if (stored) result.reply = stored;
  return result;
}

/** replyKey is the key of a turn's reply to row answers: the same on every retry of the turn. */
export function replyKey(desk: Desk, answers: number): string {
  return `turn:${desk.tokenId}:${answers}`;
}

/**
 * replyPlace is where a reply goes: its own parent and audience when it sets either; else,
 * when the row it answers is an aside, inside that aside (a reply to it), never the channel.
 * The row answered may be a correction of an aside, or the aside a correction corrects: a
 * correction keeps its row's readers, and the reply goes to the aside it corrects (no row
 * replies to a correction).
 */
function replyPlace(reply: Reply, news: Message[], corrections: Message[]): { parent?: number; audience?: string[] } {
  const place: { parent?: number; audience?: string[] } = {};
  if (reply.parent !== undefined) place.parent = reply.parent;
  if (reply.audience !== undefined) place.audience = reply.audience;
  if (reply.parent === undefined && reply.audience === undefined) {
    const answered = news.find((m) => m.seq === reply.answers);
    const correction = corrections.find((c) => c.seq === reply.answers || c.corrects === reply.answers);
    if (answered && (answered.audience?.length ?? 0) > 0) place.parent = answered.seq;
    else if (!answered && correction?.corrects && (correction.audience?.length ?? 0) > 0) place.parent = correction.corrects;
  }
  return place;
}

/** identity is who a state belongs to: the participant's type and id (or kind), without its label. */
function identity(me: Author): Author {
  const { label: _label, ...who } = me;
  return who;
}

/** notePresent returns state with seq, a row above its watermark, in its present set. */
export function notePresent(state: State, seq: number): State {
  const present = state.present ?? [];
  if (seq <= state.watermark || present.includes(seq)) return state;
  if (present.length >= presentSetLimit) throw new Error(`transcript: the state's present set is full (${presentSetLimit} rows)`);
  return { ...state, present: [...present, seq].sort((a, b) => a - b) };
}
