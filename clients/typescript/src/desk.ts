import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./openapi.js";
import { defaultMaxRetries, defaultTimeout, send, untilAborted, type Answer, type RequestOptions } from "./request.js";
import { tokenId } from "./tokenid.js";
import { streamEvents, type DeskEvent, type EventsOptions } from "./events.js";
import type { Author, Conversation, Delta, DeltaReinitialize, DeskInfo, Message, Projection, Rendered, SearchAnswer, State, ThreadList } from "./types.js";

export type { RequestOptions } from "./request.js";

export interface DeskOptions {
  /** The service's root, e.g. http://127.0.0.1:8474. */
  url: string;
  /** The bearer token's secret: the participant every call is made as. */
  token: string;
  /** The desk: the token's. */
  desk: string;
  /** The fetch to use; default: the global one. */
  fetch?: typeof globalThis.fetch;
  /** How long one attempt of a call may take, in ms; default 30 s; Infinity: no limit. A call's own timeout wins. */
  timeout?: number;
  /** How many times a call that may be sent again is retried; default 2. A call's own maxRetries wins. */
  maxRetries?: number;
}

/** An operator token may read as another participant: operator, person:ID, agent:ID or system:KIND. */
export interface AsOption extends RequestOptions {
  as?: string;
}

export interface ViewOptions extends AsOption {
  /** A thread's root; absent: the channel. */
  thread?: number;
  /** Exclusive bound: the view as it was below this seq. */
  before?: number;
  /** How many messages; absent: the service's default. */
  window?: number;
  /** Ask for each message's envelope and each elision's tag, as the participant's model reads them (rendered). */
  rendered?: boolean;
  /**
   * Ask for the conversation's digest: standing context for its history below the window
   * (digest), present when it has one; with rendered, its tag is rendered.digest, the
   * user-side content that goes before the first message.
   */
  digest?: boolean;
}

export interface PostOptions extends RequestOptions {
  content: string;
  /** The row replied to: a reply in its thread (a reply to an aside is an aside). */
  parent?: number;
  /** The readers of an aside besides its author, each as "agent:ID", "person:ID", ... */
  audience?: string[];
  /** An idempotency key: a post with a key already stored answers the stored row. "" is no key. */
  key?: string;
}

export interface EditOptions extends RequestOptions {
  /** The row's new content. */
  content: string;
  /** An idempotency key: an edit with a key already stored answers the stored correction. "" is no key. */
  key?: string;
}

export interface RedactOptions extends RequestOptions {
  /** An idempotency key: a redaction with a key already stored answers the stored correction. "" is no key. */
  key?: string;
}

export interface DeltaOptions extends AsOption {
  /** Where the turn happens; absent: the desk's channel. */
  conversation?: { thread?: number };
  /** Exclusive bound, usually the triggering message. */
  before?: number;
  /** Ask for each message's, correction's and elision's text, as the participant's model reads them (rendered). */
  rendered?: boolean;
}

/** A delta's answer: what is new and the next state, or why the state cannot give one. */
export type DeltaAnswer = { delta: Delta; remaining?: number; rendered?: Rendered } | { reinitialize: DeltaReinitialize };

export interface ThreadsOptions extends AsOption {
  before?: number;
  limit?: number;
}

export interface SearchOptions extends AsOption {
  /** Search one thread: its root. */
  thread?: number;
  /** Exclusive bound: the next of the previous page. */
  before?: number;
  limit?: number;
}

/**
 * Desk is one desk of a transcript service, as the token's participant: every read is its
 * view, every write is by it. Every method takes a timeout (ms, per attempt), a signal and
 * maxRetries, besides its own options. A problem answer throws the ProblemError of its
 * status (BadRequestError, AuthenticationError, …); a request that got no answer throws
 * APIConnectionError (APITimeoutError when it timed out); an aborted signal throws its
 * reason. Reads, and writes that carry a key, are retried after no answer, a 408, 429 or
 * 5xx (Retry-After honoured, else a jittered backoff); a write without a key (or whose key
 * is "", which the service takes as none) is sent without one, and never twice. A Desk holds no state between calls but the participant, and may be used
 * concurrently.
 */
export class Desk {
  readonly name: string;
  readonly url: string;
  readonly #token: string;
  readonly #fetch: typeof globalThis.fetch;
  readonly #api: Client<paths>;
  readonly #timeout: number;
  readonly #maxRetries: number;
  #me: Author | undefined;
  /** The whoami requests under way, by their timeout and maxRetries. */
  #asking = new Map<string, Promise<Author>>();

  /** The constructor refuses an empty token, or one with a character no token has, before anything is sent. */
  constructor(opts: DeskOptions) {
    if (typeof opts.token !== "string" || !/^[\x21-\x7e]+$/.test(opts.token)) {
      throw new TypeError("transcript: the token is empty or holds a character no token has (white space, a control or a non-ASCII character)");
    }
    this.name = opts.desk;
    this.url = opts.url.replace(/\/+$/, "");
    this.#token = opts.token;
    this.#fetch = opts.fetch ?? globalThis.fetch;
    this.#timeout = opts.timeout ?? defaultTimeout;
    this.#maxRetries = opts.maxRetries ?? defaultMaxRetries;
    const f = this.#fetch;
    this.#api = createClient<paths>({
      baseUrl: this.url,
      headers: { Authorization: "Bearer " + opts.token, Accept: "application/json" },
      fetch: (req: Request) => f(req),
    });
  }

  /** tokenId is the token's public ID (tok_…), as `transcript token list` shows it. */
  get tokenId(): string {
    return tokenId(this.#token);
  }

  /** info is the desk as the token sees it: its head and the token's participant (as). */
  async info(opts: RequestOptions = {}): Promise<DeskInfo> {
    const list = await this.#call("list desks", true, opts, (signal) => this.#api.GET("/v1/desks", { signal }));
    const d = (list.desks ?? []).find((x) => x.name === this.name);
    if (!d) throw new Error(`transcript: the token is not for desk ${this.name}`);
    return d;
  }

  /**
   * whoami is the token's participant: the author of its posts, the viewer of its reads. A
   * token's participant never changes, so the first answer is kept and later calls make no
   * request; a failed call is not kept. Calls made while one is under way with the same
   * timeout and maxRetries share its request, which no caller's signal ends: aborting one
   * call ends that call alone. A call with other options makes a request of its own.
   */
  whoami(opts: RequestOptions = {}): Promise<Author> {
    if (this.#me) return untilAborted(Promise.resolve(this.#me), opts.signal);
    const key = `${opts.timeout ?? ""}/${opts.maxRetries ?? ""}`;
    let asking = this.#asking.get(key);
    if (!asking) {
      asking = this.info({ ...opts, signal: undefined }).then(
        (d) => {
          this.#asking.delete(key);
          return (this.#me = d.as);
        },
        (err: unknown) => {
          this.#asking.delete(key);
          throw err;
        },
      );
      this.#asking.set(key, asking);
    }
    return untilAborted(asking, opts.signal);
  }

  /**
   * view is the channel, or a thread, as the participant sees it: the newest messages,
   * oldest first; with digest, and when the conversation has one below the window, its
   * digest.
   */
  view(opts: ViewOptions = {}): Promise<Projection> {
    const query = { thread: opts.thread, before: opts.before, window: opts.window, as: opts.as, rendered: opts.rendered, digest: opts.digest };
    return this.#call("view", true, opts, (signal) => this.#api.GET("/v1/desks/{desk}/view", { params: { path: { desk: this.name }, query }, signal }));
  }

  /**
   * post appends a message by the participant and returns the stored row. With a key it is
   * retried as a read is (the service answers a stored key with its row); without, or with
   * "", never.
   */
  post(opts: PostOptions): Promise<Message> {
    const body: components["schemas"]["AppendBody"] = { content: opts.content };
    if (opts.parent !== undefined) body.parent = opts.parent;
    if (opts.audience !== undefined) body.audience = opts.audience;
    if (opts.key) body.key = opts.key;
    return this.#call("post", Boolean(opts.key), opts, (signal) => this.#api.POST("/v1/desks/{desk}/messages", { params: { path: { desk: this.name } }, body, signal }));
  }

  /** delta is what the participant has not seen since state, or a reinitialization. */
  async delta(state: State, opts: DeltaOptions = {}): Promise<DeltaAnswer> {
    const body: components["schemas"]["DeltaBody"] = { state };
    if (opts.conversation !== undefined) body.conversation = opts.conversation;
    if (opts.before !== undefined) body.before = opts.before;
    const r = await this.#call("delta", true, opts, (signal) => this.#api.POST("/v1/desks/{desk}/delta", { params: { path: { desk: this.name }, query: { as: opts.as, rendered: opts.rendered } }, body, signal }));
    if (r.reinitialize !== undefined) return { reinitialize: r.reinitialize };
    if (r.delta === undefined || r.delta === null) throw new Error("transcript: a delta answer with neither delta nor reinitialize");
    const out: DeltaAnswer = { delta: r.delta };
    if (r.remaining) out.remaining = r.remaining;
    if (r.rendered) out.rendered = r.rendered;
    return out;
  }

  /** threads lists the newest threads the participant can read. */
  threads(opts: ThreadsOptions = {}): Promise<ThreadList> {
    const query = { before: opts.before, limit: opts.limit, as: opts.as };
    return this.#call("threads", true, opts, (signal) => this.#api.GET("/v1/desks/{desk}/threads", { params: { path: { desk: this.name }, query }, signal }));
  }

  /** edit gives row seq, the participant's own, new content; it returns the correction row. With a key it is retried; without, or with "", never. */
  edit(seq: number, opts: EditOptions): Promise<Message> {
    const body: components["schemas"]["EditBody"] = { content: opts.content };
    if (opts.key) body.key = opts.key;
    return this.#call("edit", Boolean(opts.key), opts, (signal) => this.#api.PATCH("/v1/desks/{desk}/messages/{seq}", { params: { path: { desk: this.name, seq } }, body, signal }));
  }

  /** redact erases row seq's content for good (its author or the operator); it returns the correction row. With a key it is retried; without, or with "", never. */
  redact(seq: number, opts: RedactOptions = {}): Promise<Message> {
    const body: components["schemas"]["RedactBody"] = opts.key ? { key: opts.key } : {};
    return this.#call("redact", Boolean(opts.key), opts, (signal) => this.#api.DELETE("/v1/desks/{desk}/messages/{seq}", { params: { path: { desk: this.name, seq } }, body, signal }));
  }

  /** search finds the newest messages holding every word, among those the participant may read. */
  search(words: string, opts: SearchOptions = {}): Promise<SearchAnswer> {
    const query = { q: words, thread: opts.thread, before: opts.before, limit: opts.limit, as: opts.as };
    return this.#call("search", true, opts, (signal) => this.#api.GET("/v1/desks/{desk}/search", { params: { path: { desk: this.name }, query }, signal }));
  }

  /**
   * events streams what the participant has not seen, live, from `after` (default: the
   * desk's head now): each event once, in order, resuming by itself after a dropped
   * connection, one silent for longer than readTimeout, or a restarted server. It ends when
   * signal aborts, or after a reinitialize event; it throws the ProblemError of a 401, 403
   * or 404, and the error of a head lookup that trying again cannot heal. It has no timeout:
   * a stream is as long as the caller wants it.
   */
  events(opts: EventsOptions = {}): AsyncGenerator<DeskEvent> {
    return streamEvents(
      {
        url: `${this.url}/v1/desks/${encodeURIComponent(this.name)}/events`,
        token: this.#token,
        fetch: this.#fetch,
        head: async () => (await this.info({ signal: opts.signal, maxRetries: 0 })).head,
      },
      opts,
    );
  }

  #call<T>(what: string, retryable: boolean, opts: RequestOptions, attempt: (signal: AbortSignal) => Promise<Answer<T>>): Promise<T> {
    return send(
      `${what} on desk ${this.name}`,
      { timeout: opts.timeout ?? this.#timeout, maxRetries: opts.maxRetries ?? this.#maxRetries, retryable, signal: opts.signal },
      attempt,
    );
  }
}

export type { Conversation };
