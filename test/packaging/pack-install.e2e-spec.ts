import { ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { appLockfile, LocalTarball } from './app-lockfile';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];

/** What a Nest app brings itself: the peers of @conveyor/core (the http entry point's included) and its compiler. */
const HOST_PACKAGES = [
  '@nestjs/common',
  '@nestjs/core',
  '@nestjs/platform-express',
  '@nestjs/platform-fastify',
  '@nestjs/swagger',
  '@nestjs/terminus',
  '@nestjs/typeorm',
  'class-transformer',
  'class-validator',
  'helmet',
  'pg',
  'reflect-metadata',
  'rxjs',
  'typeorm',
  'typescript',
  '@types/node',
];

const TSCONFIG = {
  compilerOptions: {
    module: 'node16',
    moduleResolution: 'node16',
    target: 'ES2022',
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    strict: true,
    strictPropertyInitialization: false,
    // tsc's default: every declaration file is checked, the packages' own included (pg's types come with them).
    skipLibCheck: false,
    types: ['node'],
    rootDir: 'src',
    outDir: 'dist',
  },
  include: ['src'],
};

/**
 * The packages as a Nest team gets them: `npm run build` output packed with `npm pack`, installed with npm into an
 * app outside the repository (so nothing resolves through the repository's node_modules or path aliases), compiled
 * with the installed TypeScript and run with node. A job submitted over REST and one enqueued in the app's own
 * transaction are both worked by the app's handler, the installed @conveyor/client sees them complete, and a
 * SIGTERM ends the app gracefully.
 */
describe('the packed @conveyor/core and @conveyor/client in a fresh Nest app', () => {
  let dir: string;
  let schema: TestSchema;
  let app: ChildProcess | undefined;
  const timings: Record<string, number> = {};

  const timed = async <T>(label: string, step: () => Promise<T>): Promise<T> => {
    const startedAt = Date.now();
    try {
      return await step();
    } finally {
      timings[label] = Date.now() - startedAt;
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'conveyor-packaging-'));
    schema = await createTestSchema('packaging');
    await timed('build', () => run(process.execPath, [join(ROOT, 'scripts/build-packages.js')], { cwd: ROOT }));
    const tarballs = await timed('pack', () => Promise.all([pack('core'), pack('client')]));
    const { packageJson, lockfile } = appLockfile(join(ROOT, 'package-lock.json'), HOST_PACKAGES, tarballs);
    writeFileSync(join(dir, 'package.json'), JSON.stringify(packageJson, null, 2));
    writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lockfile, null, 2));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    cpSync(join(__dirname, 'fixture-app', 'src'), join(dir, 'src'), { recursive: true });
    await timed('npm ci', () => run('npm', ['ci', ...NPM_FLAGS], { cwd: dir }));
    await timed('tsc', () => run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir }));
  }, 170_000);

  afterAll(async () => {
    if (app && app.exitCode === null && app.signalCode === null) {
      const exited = new Promise((done) => app?.once('exit', done));
      app.kill('SIGTERM');
      await Promise.race([exited, new Promise((done) => setTimeout(done, 10_000).unref())]);
      if (app.exitCode === null && app.signalCode === null) app.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
    await schema?.drop();
    console.log(`[packaging] timings (ms): ${JSON.stringify(timings)}`);
  });

  /** Packs dist/packages/<name> into the app's packs folder. */
  async function pack(name: string): Promise<LocalTarball> {
    const folder = join(ROOT, 'dist', 'packages', name);
    mkdirSync(join(dir, 'packs'), { recursive: true });
    const { stdout } = await run('npm', ['pack', folder, '--pack-destination', join(dir, 'packs'), '--json'], { cwd: dir });
    const [{ filename }] = JSON.parse(stdout) as { filename: string }[];
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as LocalTarball['manifest'];
    return { tarball: `packs/${filename}`, absolutePath: join(dir, 'packs', filename), manifest };
  }

  it('ships each package with its README and its MIT LICENSE', () => {
    for (const name of ['core', 'client']) {
      const installed = join(dir, 'node_modules', '@conveyor', name);
      expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
      expect(readFileSync(join(installed, 'README.md'), 'utf8')).toContain(`npm install @conveyor/${name}`);
    }
  });

  it('asks its peers for ranges a Nest 11 app meets, not for the versions locked here', () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'node_modules/@conveyor/core/package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
    };
    expect(manifest.peerDependencies).toMatchObject({
      '@nestjs/common': '^11.0.0',
      '@nestjs/core': '^11.0.0',
      '@nestjs/typeorm': '^11.0.0',
    });
    for (const [name, range] of Object.entries(manifest.peerDependencies)) {
      // A caret range, or an alternation of them (typeorm 0.3 or 1).
      expect({ name, range: range.split(' || ').every((r) => /^\^\d+\.\d+\.\d+$/.test(r)) }).toEqual({ name, range: true });
    }
  });

  it('installs the packages with their peers only, from the locked versions', () => {
    const installed = (name: string) =>
      JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
    expect(installed('@conveyor/core').version).toBe('0.1.0');
    expect(installed('@conveyor/client').version).toBe('0.1.0');
    const repoLock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
    for (const name of HOST_PACKAGES)
      expect(`${name}@${installed(name).version}`).toBe(`${name}@${repoLock.packages[`node_modules/${name}`].version}`);
  });

  it("loads the engine and its testing helpers without the HTTP entry point's optional peers", async () => {
    const optionalPeersLoadedBy = async (entry: string): Promise<string[]> => {
      const script = `require(process.argv[1]);
        const peer = /[\\\\/]node_modules[\\\\/](@nestjs[\\\\/]swagger|helmet|express)[\\\\/]/;
        const loaded = new Set(Object.keys(require.cache).map((file) => peer.exec(file)?.[1].replace('\\\\', '/')).filter(Boolean));
        console.log(JSON.stringify([...loaded].sort()));`;
      const { stdout } = await run(process.execPath, ['-e', script, entry], { cwd: dir });
      return JSON.parse(stdout) as string[];
    };
    expect(await optionalPeersLoadedBy('@conveyor/core')).toEqual([]);
    expect(await optionalPeersLoadedBy('@conveyor/core/http')).toEqual(expect.arrayContaining(['@nestjs/swagger', 'helmet']));
    // The handler-testing helpers are part of the package and need no HTTP peer either.
    expect(await optionalPeersLoadedBy('@conveyor/core/testing')).toEqual([]);
  });

  it('prints its migrations as one SQL script, with the command operations.md gives, for a host that applies them', async () => {
    const script = "require('@conveyor/core').conveyorMigrationScript({ schema: 'jobs' })";
    const { stdout } = await run(process.execPath, ['-p', script], { cwd: dir });
    expect(stdout).toMatch(/^SELECT pg_advisory_xact_lock\(hashtext\('conveyor-migrate:jobs'\)\);\n\nDO \$schema\$ BEGIN\n/);
    expect(stdout).toContain('CREATE SCHEMA "jobs";');
    expect(stdout).toContain('INSERT INTO "jobs".conveyor_migrations (id, name) VALUES (1, ');
  });

  it('configures a Fastify app with the Fastify its adapter brings, when the app has none of its own', async () => {
    // As a strict layout (pnpm's) has it: Fastify only where @nestjs/platform-fastify, which depends on it, finds it.
    const hoisted = join(dir, 'node_modules', 'fastify');
    const nested = join(dir, 'node_modules', '@nestjs', 'platform-fastify', 'node_modules', 'fastify');
    mkdirSync(join(nested, '..'), { recursive: true });
    renameSync(hoisted, nested);
    try {
      const { stdout } = await run(process.execPath, ['dist/fastify-host.js'], { cwd: dir });
      expect(stdout.trim()).toBe('configured');
    } finally {
      renameSync(nested, hoisted);
    }
  });

  it("works a job submitted over REST and one enqueued in the app's own transaction", async () => {
    const env = { ...process.env, DATABASE_URL: process.env.CONVEYOR_TEST_DATABASE_URL, DATABASE_SCHEMA: schema.schema };
    const started = spawn(process.execPath, ['dist/main.js'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    app = started;
    let output = '';
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const ready = await timed('app start', () =>
      waitFor(
        () => {
          if (started.exitCode !== null) throw new Error(`The app exited with ${started.exitCode}:\n${output}`);
          const line = output.split('\n').find((text) => text.startsWith('{"port"'));
          return line ? (JSON.parse(line) as { port: number; transactionalJobId: string }) : undefined;
        },
        { timeoutMs: 30_000, message: 'the app to listen and enqueue its transactional job' },
      ),
    );
    const baseUrl = `http://127.0.0.1:${ready.port}`;

    const dashboard = await fetch(`${baseUrl}/dashboard`);
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain('<html');

    const response = await fetch(`${baseUrl}/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'SEND_EMAIL', payload: { to: 'ada@example.com', subject: 'Over REST' } }),
    });
    expect(response.status).toBe(201);
    const restJob = (await response.json()) as { id: string };

    const { stdout } = await timed('client waitFor', () =>
      run(process.execPath, ['dist/wait-for-jobs.js', baseUrl, restJob.id, ready.transactionalJobId], { cwd: dir, timeout: 40_000 }),
    );
    expect(JSON.parse(stdout)).toEqual([
      { id: restJob.id, status: 'COMPLETED', result: { deliveredTo: 'ada@example.com' } },
      { id: ready.transactionalJobId, status: 'COMPLETED', result: { deliveredTo: 'grace@example.com' } },
    ]);

    const client = new Client({ connectionString: schema.url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT job_id, recipient, subject FROM received_emails ORDER BY recipient');
      expect(rows).toEqual([
        { job_id: restJob.id, recipient: 'ada@example.com', subject: 'Over REST' },
        { job_id: ready.transactionalJobId, recipient: 'grace@example.com', subject: 'In a transaction' },
      ]);
    } finally {
      await client.end();
    }

    // The package's installShutdownSignals: a SIGTERM closes the app gracefully, and the process exits 0.
    expect({ exitCode: started.exitCode, signalCode: started.signalCode }).toEqual({ exitCode: null, signalCode: null });
    const exited = new Promise<number | null>((done) => started.once('exit', (code) => done(code)));
    started.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
