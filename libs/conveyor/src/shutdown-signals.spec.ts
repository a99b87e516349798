import { INestApplication } from '@nestjs/common';
import { ConveyorConfigError } from './errors/conveyor-config.error';
import { installShutdownSignals } from './shutdown-signals';

describe('installShutdownSignals', () => {
  it.each([3_000_000_000, -1, 1.5, Number.NaN])(
    'refuses a drainMs a timer cannot wait (past 2^31 - 1 ms Node ends it after 1 ms): %p, installing nothing',
    (drainMs) => {
      const before = process.listenerCount('SIGTERM');
      expect(() => installShutdownSignals({} as INestApplication, { drainMs })).toThrow(
        new ConveyorConfigError('drainMs', `must be an integer between 0 and 3600000, got ${String(drainMs)}`),
      );
      expect(process.listenerCount('SIGTERM')).toBe(before);
    },
  );
});
