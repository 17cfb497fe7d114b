// How every call of a Desk goes out: a timeout and the caller's signal on each attempt, and
// retries of a request that may be sent again, as the OpenAI SDKs retry theirs.
import { APIConnectionError, APITimeoutError, ProblemError, usableRetryAfterMs } from "./problem.js";

/** Options every method of a Desk takes. */
export interface RequestOptions {
  /** How long one attempt may take, in ms; default: the Desk's. Infinity, or more than a timer holds (2^31-1 ms), is none. */
  timeout?: number;
  /** Aborting it ends the call at once, with the signal's reason thrown. */
  signal?: AbortSignal;
  /** How many times a failed request that may be sent again is retried; default: the Desk's. */
  maxRetries?: number;
}

/** The Desk's defaults: 30 s an attempt, 2 retries. */
export const defaultTimeout = 30_000;
export const defaultMaxRetries = 2;

/** The longest wait a timer holds: a longer timeout is no timeout. */
export const longestTimerMs = 2 ** 31 - 1;

const firstBackoffMs = 500;
const maxBackoffMs = 8_000;

/** One answer of an attempt: openapi-fetch's result. */
export interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * send makes attempt, passing each try a signal that aborts on the caller's signal or the
 * timeout (none when it is longer than longestTimerMs), and returns its data, a JSON object.
 * A try that gets no answer, or a 200 whose body is empty or no JSON object, is an
 * APIConnectionError (an APITimeoutError when it timed out); a problem answer is the
 * ProblemError of its status.
 * When retryable, a try with no answer, a 408, 429 or 5xx is made again up to maxRetries
 * times, after the answer's Retry-After (up to a minute) or a jittered backoff of 0.5 s
 * doubling to at most 8 s. An aborted caller's signal throws its reason, without retrying.
 */
export async function send<T>(what: string, opts: { timeout: number; maxRetries: number; retryable: boolean; signal?: AbortSignal | undefined }, attempt: (signal: AbortSignal) => Promise<Answer<T>>): Promise<T> {
  for (let retry = 0; ; retry++) {
    let failure: ProblemError | APIConnectionError;
    const timeout = new AbortController();
    const both = new AbortController();
    const onAbort = () => both.abort(opts.signal?.reason);
    const timer = timerFor(opts.timeout, () => {
      timeout.abort();
      both.abort(new APITimeoutError(what, opts.timeout));
    });
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const { data, error, response } = await attempt(both.signal);
      if (response.ok && error === undefined) {
        // Every answer of the service is a JSON object: an empty body, null or an array is none.
        if (typeof data === "object" && data !== null && !Array.isArray(data)) return data;
        failure = new APIConnectionError(what, { message: `a ${response.status} answer whose body is empty or no JSON object` });
      } else {
        failure = await ProblemError.fromResponse(what, response, error);
      }
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      failure = timeout.signal.aborted ? new APITimeoutError(what, opts.timeout) : new APIConnectionError(what, { cause: err });
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
    }
    if (!opts.retryable || retry >= opts.maxRetries || !shouldRetry(failure)) throw failure;
    await sleep(retryDelay(failure, retry), opts.signal);
  }
}

/** shouldRetry reports whether a failed try may heal by trying again. */
function shouldRetry(err: ProblemError | APIConnectionError): boolean {
  return err instanceof APIConnectionError || healsByWaiting(err.status);
}

/** healsByWaiting reports whether a refusal of this status may heal by trying again later: a 408, 429 or 5xx. */
export function healsByWaiting(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * timerFor calls fire after ms, as setTimeout does, but never when ms is longer than a timer
 * holds (Infinity, or past longestTimerMs, which setTimeout would take as 1 ms): the timer
 * it returns is then undefined.
 */
export function timerFor(ms: number, fire: () => void): ReturnType<typeof setTimeout> | undefined {
  return ms <= longestTimerMs ? setTimeout(fire, ms) : undefined;
}

/** retryDelay is the wait before retry number retry+1: the Retry-After asked for, or a jittered backoff. */
export function retryDelay(err: ProblemError | APIConnectionError, retry: number): number {
  const asked = err instanceof ProblemError ? usableRetryAfterMs(err.retryAfter) : undefined;
  return asked ?? Math.min(maxBackoffMs, firstBackoffMs * 2 ** retry) * (1 - Math.random() * 0.25);
}

/**
 * untilAborted is p, or, once signal aborts first, a rejection with its reason; p's own
 * failure then goes unreported (it is another caller's to see).
 */
export function untilAborted<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** sleep waits ms; an aborted signal ends the wait by throwing its reason. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
