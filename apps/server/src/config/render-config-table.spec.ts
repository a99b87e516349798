import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withConfigTable } from './render-config-table';

describe('docs/configuration.md configuration table', () => {
  it('matches the settings the service actually reads (run `npm run docs:config` after changing them)', () => {
    const readme = readFileSync(join(__dirname, '../../../../docs/configuration.md'), 'utf8');
    expect(withConfigTable(readme)).toBe(readme);
  });
});
