/**
 * The line protocol between a benchmark process and the one that started it. A child writes events
 * as `@@bench {json}` lines on stdout (anything else there — Nest's warnings — is just kept for error
 * reports); the parent writes one-word commands (`go`, `stop`) on the child's stdin. When the
 * parent goes away its end of stdin closes, and the child exits instead of working on as an orphan.
 */
export const EVENT_PREFIX = '@@bench ';

/** An event a child reports; `event` names it. */
export interface BenchEvent {
  event: string;
  [key: string]: unknown;
}

/** Sends an event to the parent. */
export function emitEvent(event: BenchEvent): void {
  process.stdout.write(`${EVENT_PREFIX}${JSON.stringify(event)}\n`);
}

const received: string[] = [];
const waiters = new Set<() => void>();
let reading = false;

/** Starts reading commands from stdin; exits the process when the parent closes it. */
export function watchParent(): void {
  if (reading) return;
  reading = true;
  let pending = '';
  process.stdin.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    received.push(...lines.map((l) => l.trim()).filter(Boolean));
    for (const waiter of [...waiters]) waiter();
  });
  process.stdin.on('end', () => process.exit(2));
}

/** Resolves when the parent sends `command`. */
export function nextCommand(command: string): Promise<void> {
  watchParent();
  return new Promise((resolve) => {
    const check = () => {
      const index = received.indexOf(command);
      if (index < 0) return;
      received.splice(index, 1);
      waiters.delete(check);
      resolve();
    };
    waiters.add(check);
    check();
  });
}

/** Reads a JSON environment variable the parent set; throws naming it when missing. */
export function readJsonEnv<T>(name: string): T {
  const raw = process.env[name];
  if (!raw) throw new Error(`${name} is not set: this file is started by the benchmark runner`);
  return JSON.parse(raw) as T;
}

/** Runs a child's main function; a failure is printed and ends the process with code 1. */
export function runChild(main: () => Promise<void>): void {
  watchParent();
  main().then(
    () => exitWhenFlushed(0),
    (err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      exitWhenFlushed(1);
    },
  );
}

/**
 * Exits once stdout has been written out. A pipe's writes are asynchronous: `process.exit()` straight
 * after a large event (a worker's result lists 10,000 job ids, ~370 kB) cut it at the pipe's 64 kB and
 * the parent saw the child exit without a result. An empty write's callback runs after every earlier one.
 */
function exitWhenFlushed(code: number): void {
  process.stdout.write('', () => process.exit(code));
}
