import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { deskFixture, within, type Fixture } from "./fixture.js";

let f: Fixture;
before(async () => {
  f = await deskFixture();
});
after(async () => {
  await f?.server.stop();
});

// The main README's TypeScript example runs as written: against the test's server in place
// of 127.0.0.1:8474, importing the package by its name, as a project that installed it does.
test("the README's From TypeScript example runs", async () => {
  const readme = await readFile(fileURLToPath(new URL("../../../../README.md", import.meta.url)), "utf8");
  const section = readme.split("### From TypeScript")[1];
  const code = /```ts\n([\s\S]*?)```/.exec(section ?? "")?.[1];
  assert.ok(code, "README.md has a ```ts block under From TypeScript");
  assert.ok(code.includes('"http://127.0.0.1:8474"'));
  const file = fileURLToPath(new URL("./readme-example.mjs", import.meta.url));
  await writeFile(file, code.replace('"http://127.0.0.1:8474"', JSON.stringify(f.server.url)));
  await f.desk("ana").post({ content: "Deploy #41 is red." });
  const child = spawn(process.execPath, [file], { env: { ...process.env, TRANSCRIPT_TOKEN: f.secrets.triage }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  try {
    await within(20_000, "the example's post", (async () => {
      while (!/posted #\d+/.test(out)) {
        if (child.exitCode !== null) throw new Error("the example exited: " + err);
        await new Promise((r) => setTimeout(r, 20));
      }
    })());
    await f.desk("ana").post({ content: "The migration runs at 22:00." });
    assert.equal(await within(20_000, "the example's end", exited), 0, err);
  } finally {
    child.kill("SIGKILL");
    await rm(file, { force: true });
  }
  assert.match(out, /#\d+ ana: Deploy #41 is red\./, "the view");
  assert.match(out, /#\d+ ana: The migration runs at 22:00\./, "the live event");
});
