import { transformFileSync } from '@swc/core';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { readSwcOptions } = require('../../test/support/swc-options') as { readSwcOptions(root: string): object };

/** What a case process needs of the repository: the libraries, the benchmark, and the child-process support. */
const PARTS = ['libs', 'bench', 'test/support'];

/**
 * Compiles the parts of the repository at `root` that case processes run into a directory of its own, as
 * JavaScript without source maps (what `npm run build` ships), with every other file copied and `node_modules`
 * linked; returns the directory. Case processes then run it through test/support/register-compiled.js, so a
 * worker's memory and start-up are measured without a compiler in the process (compiling on the fly adds the
 * compiler and every module's inline source map to each process: docs/performance.md, "Growth"). Unit specs are
 * left out.
 */
export function compileRepositoryCopy(root: string): string {
  const out = mkdtempSync(join(tmpdir(), 'conveyor-bench-'));
  const options = readSwcOptions(root);
  const copy = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') copy(path);
        continue;
      }
      if (entry.name.endsWith('.spec.ts')) continue;
      const target = join(out, relative(root, path));
      mkdirSync(dirname(target), { recursive: true });
      if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        writeFileSync(target.replace(/\.ts$/, '.js'), transformFileSync(path, { ...options, sourceMaps: false }).code);
      } else {
        copyFileSync(path, target);
      }
    }
  };
  for (const part of PARTS) copy(join(root, part));
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
  return out;
}

/** Deletes a copy made by compileRepositoryCopy (the link to node_modules, not what it points to). */
export function removeRepositoryCopy(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
