import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearStalePostmaster } from './clear-stale-postmaster';
import { DataDirectoryInUseError } from './data-directory-in-use.error';

describe('clearStalePostmaster', () => {
  let dataDir: string;
  const log = jest.fn();
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stale-postmaster-'));
    log.mockClear();
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  const pidFile = () => join(dataDir, 'postmaster.pid');
  const writePidFile = (pid: number) => writeFile(pidFile(), `${pid}\n${dataDir}\n`);

  it('does nothing without a postmaster.pid', async () => {
    await clearStalePostmaster(dataDir, log, 1_000);
    expect(log).not.toHaveBeenCalled();
  });

  it('removes a postmaster.pid whose process is gone', async () => {
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => child.once('exit', resolve));
    await writePidFile(child.pid!);

    await clearStalePostmaster(dataDir, log, 1_000);

    expect(existsSync(pidFile())).toBe(false);
  });

  it('removes a postmaster.pid whose pid now belongs to an unrelated process', async () => {
    await writePidFile(process.pid);

    await clearStalePostmaster(dataDir, log, 1_000);

    expect(existsSync(pidFile())).toBe(false);
  });

  it('refuses a directory whose server still has its live Node parent', async () => {
    // A stand-in "postmaster": its command line names this directory after -D, as the real one's does.
    const fakeServer = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', '--', '-D', dataDir]);
    try {
      await writePidFile(fakeServer.pid!);
      await expect(clearStalePostmaster(dataDir, log, 1_000)).rejects.toBeInstanceOf(DataDirectoryInUseError);
      expect(existsSync(pidFile())).toBe(true);
    } finally {
      fakeServer.kill();
    }
  });
});
