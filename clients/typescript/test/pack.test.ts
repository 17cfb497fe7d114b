import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFile, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { deskFixture, type Fixture } from "./fixture.js";

const run = promisify(execFile);

let f: Fixture;
before(async () => {
  f = await deskFixture();
});
after(async () => {
  await f?.server.stop();
});

// The package as a user installs it: `npm pack`'s tarball installed into a new project outside
// the checkout, with npm offline (its dependencies from the cache the lock file filled), and
// a program there that uses it against a real transcript serve.
test("npm pack's tarball installs into a new project and works", async () => {
  const pkg = fileURLToPath(new URL("../../", import.meta.url));
  const tmp = await mkdtemp(join(tmpdir(), "pack-"));
  const env = { ...process.env, npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
  try {
    await run("npm", ["pack", "--pack-destination", tmp], { cwd: pkg, env, timeout: 120_000 });
    const tarballs = (await readdir(tmp)).filter((n) => n.endsWith(".tgz"));
    assert.equal(tarballs.length, 1, `one tarball: ${tarballs.join(", ")}`);
    const { stdout: listing } = await run("tar", ["-tzf", join(tmp, tarballs[0]!)], { timeout: 60_000 });
    assert.ok(listing.includes("package/dist/src/index.js") && listing.includes("package/dist/src/index.d.ts"), listing);
    assert.ok(!listing.includes("package/dist/test/"), "no tests in the tarball");

    // The project's lock names the tarball and the client's own dependencies as the client's
    // lock pins them, so `npm ci` installs them from npm's cache, offline.
    const project = join(tmp, "project");
    await mkdir(project);
    const tarball = tarballs[0]!;
    await copyFile(join(tmp, tarball), join(project, tarball));
    const meta = JSON.parse(await readFile(join(pkg, "package.json"), "utf8")) as Record<string, unknown>;
    const clientLock = JSON.parse(await readFile(join(pkg, "package-lock.json"), "utf8")) as { packages: Record<string, { dev?: boolean; peer?: boolean }> };
    const deps = { "@sharedesk/transcript": "file:" + tarball };
    const packages: Record<string, unknown> = {
      "": { name: "my-project", dependencies: deps },
      "node_modules/@sharedesk/transcript": {
        version: meta.version,
        resolved: "file:" + tarball,
        integrity: "sha512-" + createHash("sha512").update(await readFile(join(project, tarball))).digest("base64"),
        dependencies: meta.dependencies,
        peerDependencies: meta.peerDependencies,
        peerDependenciesMeta: meta.peerDependenciesMeta,
      },
    };
    for (const [path, entry] of Object.entries(clientLock.packages)) if (path && !entry.dev && !entry.peer) packages[path] = entry;
    await writeFile(join(project, "package.json"), JSON.stringify({ name: "my-project", private: true, type: "module", dependencies: deps }));
    await writeFile(join(project, "package-lock.json"), JSON.stringify({ name: "my-project", lockfileVersion: 3, requires: true, packages }));
    const { stderr } = await run("npm", ["ci"], { cwd: project, env, timeout: 120_000 });
    assert.doesNotMatch(stderr, /npm error|ERR!/i, "npm ci says:\n" + stderr);
    assert.ok(!(await lstat(join(project, "node_modules/@sharedesk/transcript"))).isSymbolicLink(), "installed from the tarball, not linked");
    await writeFile(
      join(project, "smoke.mjs"),
      [
        'import { Desk, RateLimitError, takeTurn } from "@sharedesk/transcript";',
        "const desk = new Desk({ url: process.argv[2], token: process.argv[3], desk: \"eng\" });",
        'const row = await desk.post({ content: "from the tarball" });',
        "const turn = await takeTurn(desk, { decide: () => null, save: () => {} });",
        "const view = await desk.view();",
        "console.log(row.seq, JSON.stringify(view.messages.map((m) => m.content)), turn.state.watermark, typeof RateLimitError);",
      ].join("\n"),
    );
    const { stdout } = await run(process.execPath, ["smoke.mjs", f.server.url, f.secrets.triage], { cwd: project, timeout: 60_000 });
    assert.equal(stdout.trim(), '1 ["from the tarball"] 1 function');
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
});
