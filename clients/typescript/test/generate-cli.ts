// Writes src/openapi.ts from the OpenAPI document of a transcript serve built from this
// checkout (or the binary in TRANSCRIPT_BIN): `npm run generate`.
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { generateTypes } from "./generate.js";
import { startServer } from "./server.js";

const server = await startServer();
try {
  const document = await (await fetch(server.url + "/openapi.json")).text();
  const out = fileURLToPath(new URL("../../src/openapi.ts", import.meta.url));
  await writeFile(out, await generateTypes(document));
  console.log("wrote " + out);
} finally {
  await server.stop();
}
