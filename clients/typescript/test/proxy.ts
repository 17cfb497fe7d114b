// A fault proxy for the tests: on loopback, in front of a transcript serve, it forwards each
// request unless its plan says to fail it: drop the connection before forwarding, drop the
// answer after forwarding (the server has done the request, the client hears nothing),
// answer a status of its own, or hold the answer.
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";

export type Fault = { kind: "drop-request" } | { kind: "drop-answer" } | { kind: "status"; status: number; retryAfter?: number } | { kind: "hold"; ms: number };

export interface Rule {
  /** The method and a path suffix the rule applies to, e.g. "POST /messages". */
  match: string;
  fault: Fault;
  /** How many matching requests it fails; the rest are forwarded. */
  times: number;
}

export interface Proxy {
  url: string;
  /** Every request seen, as "METHOD /path", in order. */
  seen: string[];
  plan(...rules: Rule[]): void;
  close(): Promise<void>;
}

export async function startProxy(upstream: string): Promise<Proxy> {
  let rules: Rule[] = [];
  const seen: string[] = [];
  const server: HttpServer = createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const line = `${req.method} ${path}`;
    seen.push(line);
    const body = await readBody(req);
    const rule = rules.find((r) => r.times > 0 && line.startsWith(r.match.split(" ")[0]!) && path.endsWith(r.match.split(" ")[1]!));
    if (rule) rule.times--;
    const fault = rule?.fault;
    if (fault?.kind === "drop-request") return void req.socket.destroy();
    if (fault?.kind === "status") {
      res.writeHead(fault.status, { "Content-Type": "application/problem+json", ...(fault.retryAfter !== undefined ? { "Retry-After": String(fault.retryAfter) } : {}) });
      return void res.end(JSON.stringify({ type: "about:blank", status: fault.status, title: "proxy says " + fault.status }));
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && k !== "host" && k !== "connection" && k !== "content-length") headers[k] = v;
    const answer = await fetch(upstream + req.url, { method: req.method!, headers, ...(body.length ? { body: new Uint8Array(body) } : {}) });
    const text = Buffer.from(await answer.arrayBuffer());
    if (fault?.kind === "drop-answer") return void req.socket.destroy();
    if (fault?.kind === "hold") await new Promise((r) => setTimeout(r, fault.ms));
    const out: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (k !== "content-length" && k !== "transfer-encoding" && k !== "connection" && k !== "content-encoding") out[k] = v;
    });
    res.writeHead(answer.status, out);
    res.end(text);
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: "http://127.0.0.1:" + port,
    seen,
    plan: (...r: Rule[]) => void (rules = r),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}
