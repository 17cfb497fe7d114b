/**
 * ProblemError is a problem answer of the service (application/problem+json): its type,
 * status, title and detail, and Retry-After in seconds when the service sent one. Its
 * message names the request and the problem, never the token.
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
    this.name = "ProblemError";
    this.type = problem.type ?? "about:blank";
    this.status = problem.status ?? status;
    this.title = title;
    this.detail = detail;
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }

  /** fromResponse reads a refused answer's problem; a body that is no problem keeps its status. */
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
    const num = (v: unknown) => (typeof v === "number" ? v : undefined);
    return new ProblemError(
      request,
      { type: str(p.type), status: num(p.status), title: str(p.title) ?? res.statusText, detail: str(p.detail) },
      res.status,
      retryAfterSeconds(res.headers.get("Retry-After")),
    );
  }
}

/** retryAfterSeconds reads a Retry-After header: seconds, or an HTTP date. */
function retryAfterSeconds(v: string | null): number | undefined {
  if (v === null || v.trim() === "") return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
