import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTraversable } from './ensure-traversable';

describe('ensureTraversable', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'ensure-traversable-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('adds only the execute bit for others, on the directory and its parents', async () => {
    const inner = join(root, 'a', 'b');
    await mkdir(inner, { recursive: true });
    await chmod(join(root, 'a'), 0o700);
    await chmod(inner, 0o750);

    const changed = await ensureTraversable(inner);

    expect(changed).toEqual(expect.arrayContaining([inner, join(root, 'a'), root]));
    expect((await stat(inner)).mode & 0o777).toBe(0o751);
    expect((await stat(join(root, 'a'))).mode & 0o777).toBe(0o701);
  });

  it('changes nothing where others can already enter', async () => {
    await chmod(root, 0o755);
    expect(await ensureTraversable(root)).toEqual([]);
  });
});
