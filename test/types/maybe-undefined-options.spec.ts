import { join } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
const FIXTURE = join(__dirname, 'maybe-undefined-options.fixture.ts');

/**
 * A host that compiles with `exactOptionalPropertyTypes` may pass `undefined` for an option it leaves to its default
 * (the packages treat an undefined option as absent): the options of @conveyor/client and @conveyor/core say so in
 * their types, so the READMEs' `apiKey: process.env.CONVEYOR_API_KEY` compiles there too.
 */
describe('options under exactOptionalPropertyTypes', () => {
  it('take a value that may be undefined wherever the option is optional', () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(ROOT, 'tsconfig.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
    );
    const program = ts.createProgram([FIXTURE], { ...config!.options, exactOptionalPropertyTypes: true, noEmit: true });
    const problems = ts
      .getPreEmitDiagnostics(program, program.getSourceFile(FIXTURE))
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]);
    expect(problems).toEqual([]);
  }, 60_000);
});
