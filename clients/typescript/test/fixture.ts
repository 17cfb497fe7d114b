// A desk for the tests: a server on a new database and a token for each participant.
import { Desk } from "../src/index.js";
import { startServer, token, type Server, type ServerOptions } from "./server.js";

export const participants = {
  operator: "operator",
  triage: "agent:triage:Triage",
  review: "agent:review:Reviewer",
  ana: "person:ana:Ana",
  ci: "system:ci:CI",
} as const;

export type Who = keyof typeof participants;

export interface Fixture {
  server: Server;
  secrets: Record<Who, string>;
  desk(who: Who, name?: string): Desk;
}

/** deskFixture starts a server whose desk "eng" has a token for each participant. */
export async function deskFixture(opts: ServerOptions = {}): Promise<Fixture> {
  const server = await startServer(opts);
  const secrets = {} as Record<Who, string>;
  for (const [who, p] of Object.entries(participants)) secrets[who as Who] = await token(server.db, "eng", p);
  return {
    server,
    secrets,
    desk: (who, name = "eng") => new Desk({ url: server.url, token: secrets[who], desk: name }),
  };
}

/** within fails after ms: every wait of the tests is bounded. */
export function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
    }),
  ]);
}
