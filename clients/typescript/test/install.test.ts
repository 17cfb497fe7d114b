import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { test } from "node:test";

const run = promisify(execFile);

// The main README's install works from a project's own directory: its npm install line, with
// the checkout in place of /path/to/transcript, links the built client into a new project
// with npm offline (nothing is fetched), no error and no script held back for approval, and
// the project imports the client by its name.
test("the README's npm install works from a project's own directory", async () => {
  const root = fileURLToPath(new URL("../../../../", import.meta.url));
  const readme = await readFile(join(root, "README.md"), "utf8");
  const block = /```sh\n([\s\S]*?)```/.exec(readme.split("### From TypeScript")[1] ?? "")?.[1] ?? "";
  const line = block.split("\n").find((l) => /^npm install \S*\/clients\/typescript\b/.test(l));
  assert.ok(line, "README.md's From TypeScript installs the client with npm install PATH/clients/typescript:\n" + block);
  assert.ok(line.includes("/path/to/transcript/"), "the install names the checkout /path/to/transcript: " + line);
  const project = await mkdtemp(join(tmpdir(), "project-"));
  try {
    await writeFile(join(project, "package.json"), JSON.stringify({ name: "my-project", private: true, type: "module" }));
    const env = { ...process.env, npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false" };
    const { stderr } = await run("sh", ["-c", line.replace("/path/to/transcript/", root)], { cwd: project, env, timeout: 120_000 });
    assert.doesNotMatch(stderr, /install-scripts|npm error|ERR!/i, "npm install says:\n" + stderr);
    await writeFile(join(project, "check.mjs"), 'import { Desk } from "@sharedesk/transcript";\nconsole.log(typeof Desk);\n');
    const { stdout } = await run(process.execPath, ["check.mjs"], { cwd: project, timeout: 60_000 });
    assert.equal(stdout.trim(), "function", "the project imports Desk from @sharedesk/transcript");
  } finally {
    await rm(project, { recursive: true, force: true });
  }
});
