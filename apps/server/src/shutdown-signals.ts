import { INestApplication, Logger } from '@nestjs/common';
import { WorkerOrchestrator } from '@conveyor/core';

/**
 * SIGTERM/SIGINT handling. The first signal closes the app gracefully: readiness goes down, claiming
 * stops, running jobs get the grace period, unfinished ones are handed back, then the process exits 0.
 * A second signal skips the rest of the grace period — jobs are still handed back, never left RUNNING.
 */
export function installShutdownSignals(app: INestApplication, afterClose: () => Promise<void>): void {
  const logger = new Logger('Conveyor:Shutdown');
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) {
      logger.warn(`${signal} again: handing back running jobs now`);
      app.get(WorkerOrchestrator).hurry();
      return;
    }
    closing = true;
    logger.log(`${signal} received: draining`);
    app
      .close()
      .then(afterClose)
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        logger.error(`Shutdown failed: ${(err as Error).stack ?? String(err)}`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
