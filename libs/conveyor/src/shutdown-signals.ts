import { INestApplication, Logger } from '@nestjs/common';
import { integer } from './config/option-rules';
import { WorkerOrchestrator } from './worker-orchestrator.service';

/** The longest drain: an hour, as SHUTDOWN_DRAIN_MS; past 2^31 - 1 ms a Node timer would end it after 1 ms. */
export const MAX_DRAIN_MS = 3_600_000;

/** How the termination sequence runs. */
export interface ShutdownSignalOptions {
  /**
   * After the first signal, how long the instance reports not ready while it still serves requests and works
   * jobs, before the engine stops (0 = stop at once). Long enough for load balancers and Kubernetes endpoints to
   * stop routing to it: they learn of the termination (or of the failed readiness probe) a little later than
   * the process does, and requests keep arriving meanwhile. An integer up to 3600000.
   */
  drainMs?: number;
  /** Runs after the app has closed, before the process exits (ending what the app does not own, say). */
  afterClose?: () => Promise<void>;
}

/**
 * SIGTERM/SIGINT handling for an app that runs Conveyor: the termination sequence. Call it once, instead of
 * `app.enableShutdownHooks()`; without either, a signal ends the process at once and its running jobs wait for
 * their leases to expire before another instance runs them again.
 * 1. The first signal turns readiness down at once; the port stays open and the worker keeps claiming for
 *    `drainMs`, so traffic drains to other instances before anything refuses it.
 * 2. Then the app closes gracefully: claiming stops, running jobs get the grace period, unfinished ones are
 *    handed back, outcomes are written, and only then does the HTTP listener close and the process exit 0
 *    (1 if closing failed).
 * A second signal cuts the drain short and skips the rest of the grace period — jobs are still handed back,
 * never left RUNNING.
 */
export function installShutdownSignals(app: INestApplication, options: ShutdownSignalOptions = {}): void {
  const logger = new Logger('Conveyor:Shutdown');
  const drainMs = options.drainMs ?? 0;
  integer('drainMs', drainMs, 0, MAX_DRAIN_MS);
  const afterClose = options.afterClose ?? (() => Promise.resolve());
  let closing = false;
  let endDrain: () => void = () => undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const orchestrator = app.get(WorkerOrchestrator);
    if (closing) {
      logger.warn(`${signal} again: handing back running jobs now`);
      endDrain();
      orchestrator.hurry();
      return;
    }
    closing = true;
    orchestrator.beginDraining();
    logger.log(
      drainMs > 0 ? `${signal} received: not ready; still serving for ${drainMs} ms, then draining` : `${signal} received: draining`,
    );
    const drained = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, drainMs);
      endDrain = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    drained
      .then(() => app.close())
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
