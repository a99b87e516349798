import { ConveyorConfigError } from '../errors/conveyor-config.error';
import { ConveyorOptionsInput, validateConveyorOptions } from './validate-conveyor-options';

describe('validateConveyorOptions', () => {
  it('fills in the defaults', () => {
    expect(validateConveyorOptions({ concurrency: 4 })).toMatchObject({ concurrency: 4, claimStrategy: 'skip-locked', migrate: true });
  });

  it('refuses a key that is no option, as a forRootAsync factory could return it', () => {
    const misspelt = { concurrancy: 4 } as ConveyorOptionsInput;
    expect(() => validateConveyorOptions(misspelt)).toThrow(new ConveyorConfigError('concurrancy', 'is not an option of ConveyorModule'));
  });

  it('says where dataSourceName goes when a factory returns it', () => {
    expect(() => validateConveyorOptions({ dataSourceName: 'jobs' } as ConveyorOptionsInput)).toThrow(/dataSourceName.*beside useFactory/);
  });
});
