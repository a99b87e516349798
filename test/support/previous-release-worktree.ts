import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const MIGRATIONS = 'libs/conveyor/src/storage/migrations';

/** A checkout of the build before the newest migration, which startServiceProcess({ root }) runs. */
export interface PreviousReleaseWorktree {
  root: string;
  commit: string;
  remove(): void;
}

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * A git worktree at the parent of the commit that added the newest migration (the last commit while that migration is
 * not committed): the build a rolling upgrade replaces.
 * Its node_modules is this checkout's when both lock files agree (no install); otherwise it gets its own `npm ci`.
 * Null when this checkout has no git history to take it from (a shallow clone, an unpacked tarball).
 */
export function checkOutPreviousRelease(): PreviousReleaseWorktree | null {
  let commit: string;
  try {
    const newest = git('ls-files', MIGRATIONS)
      .split('\n')
      .filter((f) => /\/\d{4}-[^/]*\.migration\.ts$/.test(f))
      .sort()
      .pop()!;
    const added = git('log', '-1', '--diff-filter=A', '--format=%H', '--', newest);
    // A migration not committed yet is added by the work in progress: the previous build is the last commit.
    commit = git('rev-parse', added ? `${added}^` : 'HEAD');
  } catch {
    return null;
  }
  git('worktree', 'prune'); // forgets the worktrees of runs that were killed before they removed theirs
  const root = join(mkdtempSync(join(tmpdir(), 'conveyor-previous-')), 'tree');
  const remove = (): void => {
    git('worktree', 'remove', '--force', root);
    rmSync(join(root, '..'), { recursive: true, force: true });
  };
  git('worktree', 'add', '--detach', root, commit);
  try {
    const lock = (dir: string): string => readFileSync(join(dir, 'package-lock.json'), 'utf8');
    if (lock(root) === lock(ROOT)) symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
    else execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: root, stdio: 'ignore' });
  } catch (err) {
    remove(); // the caller never gets the worktree, so it cannot remove it
    throw err;
  }
  return { root, commit, remove };
}
