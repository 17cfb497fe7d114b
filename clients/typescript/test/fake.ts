// A stand-in service for the tests: on loopback, it answers each request as its handler
// says, so a test can give the client answers no real service gives (an empty 200, a 408,
// a stream that goes silent).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeService {
  url: string;
  /** Every request seen, as "METHOD /path?query", in order. */
  seen: string[];
  /** close ends every connection and stops listening. */
  close(): Promise<void>;
}

/** startFake listens on a free loopback port and answers each request with handler. */
export async function startFake(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<FakeService> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The answer of GET /v1/desks for a token of agent:triage on desk "eng" at head 3. */
export const engDesks = JSON.stringify({ desks: [{ name: "eng", head: 3, as: { type: "agent", id: "triage" } }] });

/** messageEvent is an event stream's message event for row seq. */
export function messageEvent(seq: number, content = "hello"): string {
  return `event: message\nid: ${seq}\ndata: ${JSON.stringify({ seq, author: { type: "person", id: "ana" }, content, at: "2026-01-01T00:00:00Z" })}\n\n`;
}
