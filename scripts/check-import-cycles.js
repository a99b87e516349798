// Fails when the imports of the libraries, the service or the benchmark form a cycle, between files or between folders (a folder imports another
// when one of its files other than index.ts imports a file of the other; a folder and its own subfolders count as
// separate folders).
// Type-only imports count too: a cycle of types is still a cycle a reader has to untangle.
// Usage: node scripts/check-import-cycles.js [root ...]   (default: every libs/*/src, apps/*/src and bench)
'use strict';
const { existsSync, readdirSync, readFileSync, statSync } = require('node:fs');
const { basename, dirname, join, relative, resolve } = require('node:path');
const ts = require('typescript');

const repo = join(__dirname, '..');

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(e.name) && !/\.(spec|e2e-spec|test-d)\.ts$/.test(e.name) ? [path] : [];
  });
}

/** The file a relative import names, or null when it leaves the source tree or names no .ts file. */
function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Tarjan's strongly connected components; every component of more than one node (or a self-edge) is a cycle. */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const visit = (node) => {
    state.set(node, { index, low: index, onStack: true });
    index++;
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!state.has(next)) {
        visit(next);
        state.get(node).low = Math.min(state.get(node).low, state.get(next).low);
      } else if (state.get(next).onStack) {
        state.get(node).low = Math.min(state.get(node).low, state.get(next).index);
      }
    }
    const own = state.get(node);
    if (own.low !== own.index) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      state.get(member).onStack = false;
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? new Set()).has(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

function check(root) {
  const files = new Map();
  const folders = new Map();
  const edge = (graph, a, b) => graph.set(a, (graph.get(a) ?? new Set()).add(b));
  for (const file of sourceFiles(root)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    if (!files.has(file)) files.set(file, new Set());
    for (const { fileName } of importedFiles) {
      const target = resolveImport(file, fileName);
      if (!target) continue;
      edge(files, file, target);
      // An index.ts only hands names on (a package's or folder's public surface): it is not a dependency of the
      // folder it sits in, so a subfolder may use its parent's files while the parent's index re-exports it.
      if (dirname(file) !== dirname(target) && basename(file) !== 'index.ts') edge(folders, dirname(file), dirname(target));
    }
  }
  const show = (paths) => paths.map((p) => relative(repo, p) || '.').join(' <-> ');
  return [...cycles(files).map((c) => `file cycle: ${show(c)}`), ...cycles(folders).map((c) => `folder cycle: ${show(c)}`)];
}

const roots =
  process.argv.slice(2).length > 0
    ? process.argv.slice(2).map((r) => resolve(r))
    : ['libs', 'apps']
        .flatMap((top) => readdirSync(join(repo, top)).map((name) => join(repo, top, name, 'src')))
        .concat(join(repo, 'bench'))
        .filter((p) => existsSync(p));
const problems = roots.flatMap(check);
for (const p of problems) console.error(p);
if (problems.length > 0) {
  console.error(
    `\n${problems.length} import cycle(s). Break each by moving the shared piece down, or by an interface the lower side owns.`,
  );
  process.exit(1);
}
console.log(`No import cycles in ${roots.map((r) => relative(repo, r)).join(', ')}.`);
