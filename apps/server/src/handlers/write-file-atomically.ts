import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Streams `source` into `path` so that readers only ever see no file, the old file or the whole new one:
 * the bytes go to a hidden temporary file next to it, are flushed to disk, and the temporary file is then
 * renamed over `path` (atomic within one file system). Two writers of the same path (a job run twice
 * after a lost lease) each use their own temporary file and the last rename wins with a whole file.
 * When `signal` fires or the source fails, the temporary file is removed and the error is thrown.
 * Returns the number of bytes written.
 */
export async function writeFileAtomically(path: string, source: Readable, signal: AbortSignal): Promise<number> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const sink = createWriteStream(temporary, { flags: 'wx' });
    await pipeline(source, sink, { signal });
    const file = await open(temporary, 'r+');
    try {
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
    return sink.bytesWritten;
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}
