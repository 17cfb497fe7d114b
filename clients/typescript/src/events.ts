import { createParser, type EventSourceMessage } from "eventsource-parser";
import { APIConnectionError, ProblemError, usableRetryAfterMs } from "./problem.js";
import { healsByWaiting, timerFor } from "./request.js";
import type { Elision, Message, Reinitialize } from "./types.js";

/** One event of a desk's stream: id is its seq, data its parsed JSON. */
export type DeskEvent =
  | { type: "message"; id: number; data: Message }
  | { type: "elided"; id: number; data: Elision }
  | { type: "correction"; id: number; data: Message }
  | { type: "reinitialize"; id: number; data: Reinitialize };

export interface EventsOptions {
  /** A thread's root: stream the thread; absent: the channel. */
  thread?: number;
  /** Stream every qualifying row above this seq; absent: the desk's head at the first connect. */
  after?: number;
  /** Aborting it ends the iteration quietly. */
  signal?: AbortSignal;
  /** An operator token's other viewer. */
  as?: string;
  /**
   * How long the connection may stay silent, in ms, before it is given up and resumed from
   * the last event id; default 60 s (the service sends a heartbeat every 15 s); Infinity:
   * never. The time the caller takes over an event does not count.
   */
  readTimeout?: number;
}

/** The default readTimeout: four of the service's heartbeats. */
export const defaultReadTimeout = 60_000;

export interface StreamTarget {
  url: string;
  token: string;
  fetch: typeof globalThis.fetch;
  /**
   * head is the desk's head, where a stream without an after starts. A ProblemError of a
   * 408, 429 or 5xx, or an APIConnectionError, is waited out and asked again; any other
   * error ends the stream.
   */
  head: () => Promise<number>;
}

/**
 * NotAnEventStreamError is thrown by an event stream whose answer is a 200 that is not an
 * event stream (a proxy's page, a wrong address): reconnecting cannot heal it.
 */
export class NotAnEventStreamError extends Error {
  constructor(contentType: string) {
    super(`transcript: events: the answer is not an event stream (Content-Type ${JSON.stringify(contentType)}): is the URL the service's?`);
    this.name = "NotAnEventStreamError";
  }
}

const types = new Set(["message", "elided", "correction", "reinitialize"]);
const firstBackoffMs = 250;
const maxBackoffMs = 5_000;

/**
 * streamEvents yields target's events from opts.after (else the head target.head gives),
 * reconnecting with Last-Event-ID (the last id yielded) after a dropped connection, one
 * silent for longer than opts.readTimeout, a restarted server, or a 408, 429 or 5xx,
 * waiting a jittered backoff or the answer's Retry-After. Ids at or below the last are
 * never yielded again. It returns when opts.signal aborts or after a reinitialize; a 401,
 * 403, 404 or any other refusal that retrying cannot heal is thrown as ProblemError, a 200
 * that is not an event stream as NotAnEventStreamError, and a failed head lookup that
 * waiting cannot heal as its error.
 */
export async function* streamEvents(target: StreamTarget, opts: EventsOptions): AsyncGenerator<DeskEvent> {
  const signal = opts.signal;
  let last: number | undefined = opts.after;
  let failures = 0;
  const query = new URLSearchParams();
  if (opts.thread !== undefined) query.set("thread", String(opts.thread));
  if (opts.as !== undefined) query.set("as", opts.as);
  const url = target.url + (query.size ? "?" + query : "");
  const readTimeout = opts.readTimeout ?? defaultReadTimeout;
  while (!signal?.aborted) {
    let retryAfter: number | undefined;
    const conn = new AbortController();
    const stop = () => conn.abort();
    signal?.addEventListener("abort", stop, { once: true });
    // The silence timer runs only while the stream waits for the service, never while the
    // caller holds an event: it is armed before each wait and cleared after it.
    const unlessSilent = async <T>(p: Promise<T>): Promise<T> => {
      const silence = timerFor(readTimeout, () => conn.abort());
      try {
        return await p;
      } finally {
        clearTimeout(silence);
      }
    };
    let lookingUp = false;
    try {
      if (last === undefined) {
        lookingUp = true;
        last = await target.head();
        lookingUp = false;
      }
      const from: number = last;
      const res = await unlessSilent(
        target.fetch(url, {
          headers: { Authorization: "Bearer " + target.token, Accept: "text/event-stream", "Last-Event-ID": String(from) },
          signal: conn.signal,
        }),
      );
      if (!res.ok) {
        const problem = await unlessSilent(ProblemError.fromResponse("events", res));
        if (!healsByWaiting(res.status)) throw problem;
        retryAfter = problem.retryAfter;
      } else if (!(res.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream")) {
        await res.body?.cancel().catch(() => {});
        throw new NotAnEventStreamError(res.headers.get("content-type") ?? "");
      } else if (res.body) {
        const pending: EventSourceMessage[] = [];
        const parser = createParser({ onEvent: (e) => pending.push(e) });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        try {
          for (;;) {
            const { value, done } = await unlessSilent(reader.read());
            if (done) break;
            parser.feed(value);
            for (let e = pending.shift(); e; e = pending.shift()) {
              const type = e.event ?? "message";
              if (!types.has(type)) continue;
              const seen: number = last ?? from;
              const id: number = e.id !== undefined && /^\d+$/.test(e.id) ? Number(e.id) : seen;
              if (type === "reinitialize") {
                yield { type, id, data: JSON.parse(e.data) as Reinitialize };
                return;
              }
              if (id <= seen) continue; // already yielded before a reconnection
              last = id;
              failures = 0;
              yield { type, id, data: JSON.parse(e.data) } as DeskEvent;
            }
          }
        } finally {
          await reader.cancel().catch(() => {});
        }
      }
    } catch (err) {
      if (signal?.aborted) return;
      if (err instanceof ProblemError && healsByWaiting(err.status)) retryAfter = err.retryAfter;
      else if (err instanceof ProblemError || err instanceof NotAnEventStreamError) throw err;
      else if (lookingUp && !(err instanceof APIConnectionError)) throw err;
      // else a dropped or silent connection, or a server that is not up: try again
    } finally {
      signal?.removeEventListener("abort", stop);
      conn.abort();
    }
    const wait = usableRetryAfterMs(retryAfter) ?? Math.min(maxBackoffMs, firstBackoffMs * 2 ** failures) * (0.5 + Math.random() / 2);
    failures++;
    if (!(await sleep(wait, signal))) return;
  }
}

/** sleep waits ms, or until signal aborts: it reports whether the wait ran its course. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", done);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
