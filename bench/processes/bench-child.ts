import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { BenchEvent, EVENT_PREFIX } from './bench-protocol';

const ROOT = join(__dirname, '..', '..');
const REGISTER_TS = join(ROOT, 'test/support/register-ts.js');

/**
 * Set by the runner to the compiled copy of the repository (compiled-copy.ts) that case processes run; inherited by
 * the processes they start in turn. Unset, children compile their TypeScript on the fly (`--from-source`).
 */
export const COMPILED_COPY_ENV = 'BENCH_COMPILED_COPY';

/** The command line of a child running `file` (a .ts path from the repository's root). */
function childCommand(file: string): string[] {
  const copy = process.env[COMPILED_COPY_ENV];
  if (!copy) return ['-r', REGISTER_TS, join(ROOT, file)];
  return ['-r', join(copy, 'test/support/register-compiled.js'), join(copy, file.replace(/\.ts$/, '.js'))];
}

/** Lines of other output kept for error messages. */
const TAIL_LINES = 40;

/** Thrown when a child exits or times out before it reported what was awaited. */
export class BenchChildError extends Error {
  constructor(
    message: string,
    readonly outputTail: string,
  ) {
    super(`${message}${outputTail ? `\n--- last output ---\n${outputTail}` : ''}`);
    this.name = 'BenchChildError';
  }
}

/**
 * A TypeScript file of bench/ running as its own Node process, from the compiled copy when there is one (see
 * COMPILED_COPY_ENV), speaking the line protocol of bench-protocol.ts.
 */
export class BenchChild {
  readonly proc: ChildProcess;
  readonly exited: Promise<number | string>;
  private readonly events: BenchEvent[] = [];
  private readonly latest = new Map<string, BenchEvent>();
  private readonly waiters = new Set<() => void>();
  private readonly tail: string[] = [];
  private exitCode: number | string | null = null;

  constructor(file: string, env: Record<string, string>, label: string) {
    // BENCH_NODE_ARGS passes flags such as --cpu-prof to case processes (NODE_OPTIONS refuses them).
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    this.proc = spawn(process.execPath, [...nodeArgs, ...childCommand(file)], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) =>
      this.proc.on('close', (code, signal) => {
        this.exitCode = code ?? signal ?? -1;
        resolve(this.exitCode);
        this.notify();
      }),
    );
    this.readLines(this.proc.stdout!, (line) => {
      if (line.startsWith(EVENT_PREFIX)) {
        const event = JSON.parse(line.slice(EVENT_PREFIX.length)) as BenchEvent;
        this.events.push(event);
        this.latest.set(event.event, event);
      } else {
        this.keep(line);
      }
      this.notify();
    });
    this.readLines(this.proc.stderr!, (line) => this.keep(`[${label}] ${line}`));
  }

  /** Resolves with the first event named `name` not taken yet; rejects if the child exits or time runs out. */
  next(name: string, timeoutMs: number): Promise<BenchEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => finish(new BenchChildError(`no "${name}" event within ${timeoutMs} ms`, this.outputTail())),
        timeoutMs,
      );
      const check = () => {
        const index = this.events.findIndex((e) => e.event === name);
        if (index >= 0) finish(undefined, this.events.splice(index, 1)[0]);
        else if (this.exitCode !== null)
          finish(new BenchChildError(`exited (${this.exitCode}) before its "${name}" event`, this.outputTail()));
      };
      const finish = (err?: Error, event?: BenchEvent) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        if (err) reject(err);
        else resolve(event!);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** The most recent event named `name`, taken or not (for periodic reports such as progress). */
  last(name: string): BenchEvent | undefined {
    return this.latest.get(name);
  }

  send(command: string): void {
    this.proc.stdin?.write(`${command}\n`);
  }

  /** Ends the child if it still runs (SIGKILL: used on timeouts and failures only). */
  kill(): void {
    if (this.exitCode === null) this.proc.kill('SIGKILL');
  }

  /** Waits up to `graceMs` for the child to exit on its own, then kills it; resolves once it is gone. */
  async stopped(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    this.kill();
    await this.exited;
  }

  outputTail(): string {
    return this.tail.join('\n');
  }

  private keep(line: string): void {
    this.tail.push(line);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private readLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
    let pending = '';
    stream.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.length > 0) onLine(line);
    });
  }
}
