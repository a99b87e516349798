import type { SpawnOptions } from 'node:child_process';
import { withDetachedSpawns } from './spawn-detached';

describe('withDetachedSpawns', () => {
  const childProcess = process.getBuiltinModule('node:child_process');
  const real = childProcess.spawn;
  const calls: { command: string; options?: SpawnOptions }[] = [];
  const recorder = ((command: string, _args: string[], options?: SpawnOptions) => {
    calls.push({ command, options });
    return {};
  }) as unknown as typeof real;

  beforeEach(() => {
    calls.length = 0;
    childProcess.spawn = recorder;
  });
  afterEach(() => {
    childProcess.spawn = real;
  });

  const deferred = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('detaches the named executable only, and puts spawn back', async () => {
    await withDetachedSpawns('postgres', async () => {
      childProcess.spawn('/bin/postgres', ['-D', 'x'], { env: {} });
      childProcess.spawn('/bin/initdb', ['-D', 'x'], { env: {} });
    });
    expect(calls.map((call) => [call.command, call.options?.detached])).toEqual([
      ['/bin/postgres', true],
      ['/bin/initdb', undefined],
    ]);
    expect(childProcess.spawn).toBe(recorder);
  });

  it('overlapping calls that end in the order they began leave spawn as it was, and the later one still detaches', async () => {
    const firstDone = deferred();
    const secondMaySpawn = deferred();
    const first = withDetachedSpawns('postgres', () => firstDone.promise);
    const second = withDetachedSpawns('postgres', async () => {
      await secondMaySpawn.promise;
      childProcess.spawn('/bin/postgres', [], {});
    });
    firstDone.resolve();
    await first;
    secondMaySpawn.resolve();
    await second;
    expect(calls.map((call) => call.options?.detached)).toEqual([true]);
    expect(childProcess.spawn).toBe(recorder);
  });

  it('puts spawn back when the call throws', async () => {
    await expect(withDetachedSpawns('postgres', () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(childProcess.spawn).toBe(recorder);
  });
});
