/**
 * ProblemError is a problem answer of the service (application/problem+json): its type,
 * status, title and detail, and Retry-After in seconds when the service sent one. Its
 * message names the request and the problem, never the token. Each status the client can
 * act on has its subclass (BadRequestError, AuthenticationError, …), named as the OpenAI
 * SDKs name theirs; every other status is a ProblemError itself.
 */
export class ProblemError extends Error {
  readonly type: string;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  /** Seconds the service asks the client to wait before trying again, when it said. */
  readonly retryAfter?: number;

  constructor(request: string, problem: { type?: string; status?: number; title?: string; detail?: string }, status: number, retryAfter?: number) {
    const title = problem.title ?? "";
    const detail = problem.detail ?? "";
    super(`${request}: ${status}${title ? " " + title : ""}${detail ? ": " + detail : ""}`);
    this.name = new.target.name;
    this.type = problem.type ?? "about:blank";
    this.status = problem.status ?? status;
    this.title = title;
    this.detail = detail;
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }

  /**
   * fromResponse reads a refused answer's problem, as the error class of its status; a body
   * that is no problem keeps the answer's status.
   */
  static async fromResponse(request: string, res: Response, body?: unknown): Promise<ProblemError> {
    let problem: unknown = body;
    if (problem === undefined) {
      try {
        problem = JSON.parse(await res.text());
      } catch {
        problem = undefined;
      }
    }
    const p = typeof problem === "object" && problem !== null ? (problem as Record<string, unknown>) : {};
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    const Class = problemClass(res.status);
    return new Class(
      request,
      { type: str(p.type), status: res.status, title: str(p.title) ?? res.statusText, detail: str(p.detail) },
      res.status,
      retryAfterSeconds(res.headers.get("Retry-After")),
    );
  }
}

/** A 400: the request is malformed (a bad parameter, blank content, an empty audience). */
export class BadRequestError extends ProblemError {}
/** A 401: the token is not one the service knows. */
export class AuthenticationError extends ProblemError {}
/** A 403: the participant may not do this (another's row, another viewer). */
export class PermissionDeniedError extends ProblemError {}
/** A 404: no such desk, thread or row for this participant. */
export class NotFoundError extends ProblemError {}
/** A 409: the request conflicts with what is stored (a key naming another row, a redacted row). */
export class ConflictError extends ProblemError {}
/** A 422: the request is well formed but cannot be done. */
export class UnprocessableEntityError extends ProblemError {}
/** A 429: past the token's rate; retryAfter says when to try again. */
export class RateLimitError extends ProblemError {}
/** A 5xx: the service failed, or is too busy (retryAfter, when it said). */
export class InternalServerError extends ProblemError {}

/** problemClass is the error class of an answer's status. */
function problemClass(status: number): typeof ProblemError {
  switch (status) {
    case 400:
      return BadRequestError;
    case 401:
      return AuthenticationError;
    case 403:
      return PermissionDeniedError;
    case 404:
      return NotFoundError;
    case 409:
      return ConflictError;
    case 422:
      return UnprocessableEntityError;
    case 429:
      return RateLimitError;
    default:
      return status >= 500 ? InternalServerError : ProblemError;
  }
}

/**
 * APIConnectionError is a request that got no answer: the service could not be reached, or
 * the connection dropped before the answer came. Its cause is the transport's error.
 */
export class APIConnectionError extends Error {
  constructor(request: string, options?: { cause?: unknown; message?: string }) {
    super(`${request}: ${options?.message ?? "no answer from the service" + causeText(options?.cause)}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/** APITimeoutError is a request that got no answer within its timeout. */
export class APITimeoutError extends APIConnectionError {
  constructor(request: string, ms: number) {
    super(request, { message: `no answer within ${ms} ms` });
  }
}

function causeText(cause: unknown): string {
  if (!(cause instanceof Error)) return "";
  const inner = cause.cause instanceof Error ? cause.cause.message : "";
  return ": " + cause.message + (inner && inner !== cause.message ? ` (${inner})` : "");
}

/** maxRetryAfterMs is the longest Retry-After a client waits out; a longer one is not taken. */
const maxRetryAfterMs = 60_000;

/**
 * usableRetryAfterMs is the wait a Retry-After of seconds asks for, in ms, when it is one to
 * honour: more than 0 s and at most a minute, as the OpenAI SDKs take it. Otherwise it is
 * undefined, and the caller's backoff decides, so that a Retry-After of 0 or a date past
 * never makes retries or reconnections back to back.
 */
export function usableRetryAfterMs(seconds: number | undefined): number | undefined {
  if (seconds === undefined || !(seconds > 0) || seconds * 1000 > maxRetryAfterMs) return undefined;
  return seconds * 1000;
}

/** retryAfterSeconds reads a Retry-After header: seconds, or an HTTP date. */
export function retryAfterSeconds(v: string | null): number | undefined {
  if (v === null || v.trim() === "") return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
