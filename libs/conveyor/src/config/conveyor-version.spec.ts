import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONVEYOR_VERSION } from './conveyor-version';

describe('CONVEYOR_VERSION', () => {
  it("is the package's version", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(CONVEYOR_VERSION).toBe(pkg.version);
  });
});
