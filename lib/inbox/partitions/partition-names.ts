import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { resolve } from "node:path";

/** The archive file (relative to ARCHIVE_DIR) of a whole partition's rows. */
export function partitionArchiveFile(name: string): string {
  return `partitions/${name}.ndjson.gz`;
}

/** A partition's name quoted for SQL, refusing anything that is not one of the inbox's. */
export function quotedPartition(name: string): string {
  if (!/^webhook_inbox_[a-z0-9_]+$/.test(name)) throw new Error(`not an inbox partition name: ${name}`);
  return `"${name}"`;
}

export async function sha256OfFile(archiveDir: string, file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(resolve(archiveDir, file))) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
