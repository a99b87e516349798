import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateConveyorOptions } from '@conveyor/core';
import { ENV_SETTINGS } from './env-settings';
import { withConfigTable } from './render-config-table';

describe('docs/configuration.md configuration table', () => {
  it('matches the settings the service actually reads (run `npm run docs:config` after changing them)', () => {
    const readme = readFileSync(join(__dirname, '../../../../docs/configuration.md'), 'utf8');
    expect(withConfigTable(readme)).toBe(readme);
  });

  it('names a ConveyorModule option in the Option column of every engine setting', () => {
    for (const setting of ENV_SETTINGS.filter((s) => s.scope === 'engine')) {
      // `backoff.baseMs` is { backoff: { baseMs } }: every segment is checked.
      const input = setting.target.split('.').reduceRight<unknown>((inner, key) => ({ [key]: inner }), undefined) as Record<
        string,
        unknown
      >;
      expect(() => validateConveyorOptions(input)).not.toThrow();
    }
    expect(() => validateConveyorOptions({ notAnOption: undefined } as object)).toThrow(/notAnOption/);
  });
});
