import { execFileSync } from 'node:child_process';

/** Whether this process runs as root (servers that refuse root then run as another OS user). */
export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** The uid and gid of OS user `name`, or null when there is no such user. */
export function osUser(name: string): { uid: number; gid: number } | null {
  try {
    return { uid: Number(execFileSync('id', ['-u', name]).toString()), gid: Number(execFileSync('id', ['-g', name]).toString()) };
  } catch {
    return null;
  }
}

/** As root, makes `path` (recursively) OS user `name`'s, so a server running as that user can use it. */
export function giveTo(name: string, path: string): void {
  if (!isRoot()) return;
  const user = osUser(name);
  if (user) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, path]);
}
