import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JOB_ERROR_KINDS } from '../../job/job-error-kind';

describe("the dashboard's job page", () => {
  it('labels exactly the error kinds the engine writes', () => {
    // The asset is a browser module, so it is read as text: the keys of its KIND_LABELS object.
    const source = readFileSync(join(__dirname, 'assets', 'job-view.js'), 'utf8');
    const block = /const KIND_LABELS = \{([\s\S]*?)\n\};/.exec(source)?.[1] ?? '';
    const labelled = [...block.matchAll(/^\s*'?([a-z-]+)'?:/gm)].map((m) => m[1]);
    expect(labelled.sort()).toEqual([...JOB_ERROR_KINDS].sort());
  });
});
