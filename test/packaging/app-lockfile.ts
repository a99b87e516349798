import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** One entry of package-lock.json's `packages` (lockfileVersion 3). */
interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

/** A package packed from this repository: its tarball (a path relative to the app) and its manifest. */
export interface LocalTarball {
  tarball: string;
  absolutePath: string;
  manifest: LockEntry & { name: string; version: string };
}

/**
 * A package-lock.json for a throwaway app that depends on `registryPackages` (names only: the versions are the
 * repository's) and on `tarballs`. Every registry package in it is the repository's lock entry at the same place
 * in node_modules, so the app installs exactly the versions the repository is tested with, and `npm ci` needs only
 * tarballs (which `npm ci` of the repository left in the npm cache) and no registry metadata. The repository's
 * layout stays valid for a subset: each package still finds the same version of each dependency.
 */
export function appLockfile(repoLockPath: string, registryPackages: string[], tarballs: LocalTarball[]) {
  const repo = JSON.parse(readFileSync(repoLockPath, 'utf8')) as { packages: Record<string, LockEntry> };
  const packages: Record<string, LockEntry> = {};
  const rootDependencies: Record<string, string> = {};

  const visit = (location: string, entry: LockEntry): void => {
    if (packages[location]) return;
    packages[location] = entry;
    for (const [name, optional] of requiredNames(entry)) {
      const found = resolve(repo.packages, location, name);
      // The repository's lock may lack other platforms' optional binaries; npm skips those anyway.
      if (!found && optional) continue;
      if (!found) throw new Error(`${name}, needed by ${location}, is not in the repository's package-lock.json`);
      visit(found, strip(repo.packages[found]));
    }
  };

  for (const { tarball, absolutePath, manifest } of tarballs) {
    rootDependencies[manifest.name] = `file:${tarball}`;
    const { name: _name, version, dependencies, peerDependencies, peerDependenciesMeta, license, engines } = manifest;
    const integrity = `sha512-${createHash('sha512').update(readFileSync(absolutePath)).digest('base64')}`;
    visit(`node_modules/${manifest.name}`, {
      version,
      resolved: `file:${tarball}`,
      integrity,
      license,
      dependencies,
      peerDependencies,
      peerDependenciesMeta,
      engines,
    });
  }
  for (const name of registryPackages) {
    const entry = repo.packages[`node_modules/${name}`];
    if (!entry?.version) throw new Error(`${name} is not a top-level package in the repository's package-lock.json`);
    rootDependencies[name] = entry.version;
    visit(`node_modules/${name}`, strip(entry));
  }

  const root = { name: 'conveyor-packaging-app', version: '1.0.0', dependencies: rootDependencies };
  return {
    packageJson: { ...root, private: true },
    lockfile: { ...root, lockfileVersion: 3, requires: true, packages: { '': root, ...packages } },
  };
}

/** What npm installs for a package: its dependencies, optional dependencies and non-optional peers. */
function requiredNames(entry: LockEntry): [name: string, optional: boolean][] {
  const peers = Object.keys(entry.peerDependencies ?? {}).filter((name) => !entry.peerDependenciesMeta?.[name]?.optional);
  return [
    ...Object.keys(entry.dependencies ?? {}).map((name): [string, boolean] => [name, false]),
    ...Object.keys(entry.optionalDependencies ?? {}).map((name): [string, boolean] => [name, true]),
    ...peers.map((name): [string, boolean] => [name, false]),
  ];
}

/** Node's lookup: node_modules/<name> in the package's own folder, then in each enclosing one. */
function resolve(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base}/node_modules/${name}`;
    if (packages[candidate]) return candidate;
    const cut = base.lastIndexOf('/node_modules/');
    if (cut < 0) return packages[`node_modules/${name}`] ? `node_modules/${name}` : undefined;
    base = base.slice(0, cut);
  }
}

/** Every package of the app is a production dependency: the repository's dev flags do not apply. */
function strip(entry: LockEntry): LockEntry {
  const { dev: _dev, devOptional: _devOptional, peer: _peer, ...rest } = entry;
  return rest;
}
