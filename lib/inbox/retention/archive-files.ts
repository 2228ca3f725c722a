import { createHash } from "node:crypto";
import { chmod, mkdir, open, readFile } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";

// Archive layout under ARCHIVE_DIR, one file per provider per received day:
//   <provider>/<YYYY-MM-DD>.ndjson.gz        gzip members appended one per archiving batch
//   <provider>/<YYYY-MM-DD>.manifest.ndjson  one line per member: offset, bytes, sha256, id range
// A member is written and fsynced before its manifest line, and the manifest line before the
// database purge: a crash leaves at worst an unlisted tail member, which readers never look at.

/** One archived event: what the purge removes from the row, and the checksum of its bytes. */
export type ArchivedEvent = {
  id: number;
  provider: string;
  eventId: string;
  receivedAt: string;
  rawBodySha256: string;
  rawBodyBase64: string;
  payload: unknown;
  headers: Record<string, string>;
};

export type ManifestEntry = { offset: number; bytes: number; sha256: string; events: number; minId: number; maxId: number; at: string };

export class ArchiveError extends Error {
  override name = "ArchiveError";
}

export function sha256Hex(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The archive file (relative to ARCHIVE_DIR) of a provider's events received on one UTC day. */
export function archiveFileFor(provider: string, receivedAt: Date): string {
  return `${provider}/${receivedAt.toISOString().slice(0, 10)}.ndjson.gz`;
}

function manifestPathOf(file: string): string {
  return file.replace(/\.ndjson\.gz$/, ".manifest.ndjson");
}

// Archive file names come from the database; never let one point outside ARCHIVE_DIR.
function within(archiveDir: string, file: string): string {
  const root = resolve(archiveDir);
  const path = resolve(root, file);
  if (!path.startsWith(root + sep)) throw new ArchiveError(`archive file ${file} is outside ARCHIVE_DIR`);
  return path;
}

// Archives hold whole payloads (card numbers, e-mails): owner only. Folders and files made by
// older versions with the default umask are narrowed on their next append.
const ARCHIVE_DIR_MODE = 0o700;
const ARCHIVE_FILE_MODE = 0o600;

async function appendDurably(archiveDir: string, path: string, data: Buffer): Promise<number> {
  await mkdir(dirname(path), { recursive: true, mode: ARCHIVE_DIR_MODE });
  for (const folder of [resolve(archiveDir), dirname(path)]) await chmod(folder, ARCHIVE_DIR_MODE);
  const handle = await open(path, "a", ARCHIVE_FILE_MODE);
  try {
    await handle.chmod(ARCHIVE_FILE_MODE);
    const offset = (await handle.stat()).size;
    await handle.write(data, 0, data.length, null);
    await handle.sync();
    return offset;
  } finally {
    await handle.close();
  }
}

/** Appends one gzip member holding `events` to `file`, then its manifest line; both fsynced. */
export async function appendArchiveSegment(archiveDir: string, file: string, events: ArchivedEvent[]): Promise<ManifestEntry> {
  const member = gzipSync(Buffer.from(events.map((event) => JSON.stringify(event)).join("\n") + "\n"));
  const offset = await appendDurably(archiveDir, within(archiveDir, file), member);
  const ids = events.map((event) => event.id);
  const entry: ManifestEntry = {
    offset,
    bytes: member.length,
    sha256: sha256Hex(member),
    events: events.length,
    minId: Math.min(...ids),
    maxId: Math.max(...ids),
    at: new Date().toISOString(),
  };
  await appendDurably(archiveDir, within(archiveDir, manifestPathOf(file)), Buffer.from(JSON.stringify(entry) + "\n"));
  return entry;
}

export async function readManifest(archiveDir: string, file: string): Promise<ManifestEntry[]> {
  const text = await readFile(within(archiveDir, manifestPathOf(file)), "utf8");
  return text
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as ManifestEntry);
}

/**
 * The archived events of `file` with the given ids, read only from the members whose id range
 * covers them, each member checked against its manifest checksum. Later members win (an event
 * restored and archived again appears twice).
 */
export async function readArchivedEvents(archiveDir: string, file: string, ids: ReadonlySet<number>): Promise<Map<number, ArchivedEvent>> {
  const manifest = await readManifest(archiveDir, file);
  const data = await readFile(within(archiveDir, file));
  const found = new Map<number, ArchivedEvent>();
  for (const entry of manifest) {
    if (![...ids].some((id) => id >= entry.minId && id <= entry.maxId)) continue;
    const member = data.subarray(entry.offset, entry.offset + entry.bytes);
    if (member.length !== entry.bytes || sha256Hex(member) !== entry.sha256) {
      throw new ArchiveError(`${file}: segment at offset ${entry.offset} does not match its manifest checksum`);
    }
    for (const line of gunzipSync(member).toString("utf8").split("\n")) {
      if (line.length === 0) continue;
      const event = JSON.parse(line) as ArchivedEvent;
      if (ids.has(event.id)) found.set(event.id, event);
    }
  }
  return found;
}
