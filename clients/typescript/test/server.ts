// The tests' transcript serve: built from this checkout (or TRANSCRIPT_BIN), on SQLite in a
// temporary directory, listening on loopback only, stopped when the test ends.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));

let built: Promise<string> | undefined;

/** binary returns the transcript command: TRANSCRIPT_BIN, or one built once per process. */
export function binary(): Promise<string> {
  if (process.env.TRANSCRIPT_BIN) return Promise.resolve(process.env.TRANSCRIPT_BIN);
  built ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), "transcript-bin-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const bin = join(dir, "transcript");
    await run("go", ["build", "-o", bin, "./cmd/transcript"], { cwd: repoRoot, timeout: 300_000 });
    return bin;
  })();
  return built;
}

/** transcript runs one command of the CLI and returns its standard output. */
export async function transcript(args: string[], input?: string): Promise<string> {
  const bin = await binary();
  return new Promise((resolve, reject) => {
    const child = execFile(bin, args, { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`transcript ${args[0]}: ${err.message}: ${stderr}`));
      else resolve(stdout);
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** token makes a token for participant on desk in db and returns its secret. */
export async function token(db: string, desk: string, participant: string): Promise<string> {
  return (await transcript(["token", "add", "--db", db, "--desk", desk, "--create", "--as", participant])).trim();
}

export interface Server {
  url: string;
  port: number;
  db: string;
  dir: string;
  /** kill stops the process at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  /** restart starts the server again on the same port and database. */
  restart(): Promise<void>;
  /** stop ends the server and removes its files. */
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** Flags for serve besides --db and --addr; default ["--rate", "inf"]. */
  flags?: string[];
  /** An existing database directory to use (its transcript.db). */
  dir?: string;
}

/** startServer starts transcript serve on a new SQLite database, on a free loopback port. */
export async function startServer(opts: ServerOptions = {}): Promise<Server> {
  const bin = await binary();
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), "transcript-ts-")));
  const db = join(dir, "transcript.db");
  const flags = opts.flags ?? ["--rate", "inf"];
  let child: ChildProcess | undefined;
  let port = 0;

  const launch = async (addr: string) => {
    const c = spawn(bin, ["serve", "--db", db, "--addr", addr, ...flags], { stdio: ["ignore", "ignore", "pipe"] });
    child = c;
    port = await new Promise<number>((resolve, reject) => {
      let err = "";
      const timer = setTimeout(() => reject(new Error("serve did not listen within 30 s: " + err)), 30_000);
      c.stderr!.setEncoding("utf8");
      c.stderr!.on("data", (chunk: string) => {
        err += chunk;
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      c.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`serve exited (${code}) before listening: ${err}`));
      });
    });
    c.stderr!.resume();
  };
  const exited = (c: ChildProcess) =>
    c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => c.once("exit", () => r()));

  await launch("127.0.0.1:0");
  const server: Server = {
    url: "",
    port,
    db,
    dir,
    async kill() {
      if (!child) return;
      const c = child;
      c.kill("SIGKILL");
      await exited(c);
    },
    async restart() {
      const deadline = Date.now() + 20_000;
      for (;;) {
        try {
          await launch("127.0.0.1:" + server.port);
          return;
        } catch (err) {
          if (Date.now() > deadline) throw err; // the port may take a moment to be free again
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    },
    async stop() {
      if (child) {
        const c = child;
        c.kill("SIGTERM");
        const timer = setTimeout(() => c.kill("SIGKILL"), 10_000);
        await exited(c);
        clearTimeout(timer);
      }
      if (!opts.dir) await rm(dir, { recursive: true, force: true });
    },
  };
  server.url = "http://127.0.0.1:" + port;
  return server;
}
