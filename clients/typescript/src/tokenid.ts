import { createHash } from "node:crypto";

/** tokenId is a secret's public ID, as the service computes it: a hash of its SHA-256. */
export function tokenId(secret: string): string {
  const digest = createHash("sha256").update(secret, "utf8").digest();
  return "tok_" + createHash("sha256").update(digest).digest("hex").slice(0, 12);
}
