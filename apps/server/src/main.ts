import 'reflect-metadata';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Logger, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  connectionErrorText,
  createConveyorLogger,
  installShutdownSignals,
  isConnectionError,
  validateConveyorOptions,
} from '@conveyor/core';
import { configureHttp } from '@conveyor/core/http';
import { AppModule } from './app.module';
import { AppConfig, envNameFor, loadAppConfig } from './config/app-config';
import { resolveDatabaseUrl } from './database/resolve-database-url';

/** Reads and checks the environment; a bad variable ends the process with its name on stderr. */
function readConfig(): AppConfig {
  try {
    const config = loadAppConfig();
    validateConveyorOptions(config.engine);
    return config;
  } catch (err) {
    const named = envNameFor(err);
    console.error(named instanceof Error ? named.message : named);
    process.exit(1);
  }
}

/**
 * Fails with the listen error (EADDRINUSE, EACCES) when the port cannot be bound. Checked before the app starts, since
 * starting it starts the worker: an instance that cannot serve must not claim jobs and then exit holding them.
 */
async function checkPortFree(port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, () => probe.close(() => resolve()));
  });
}

async function bootstrap(config: AppConfig, appLogger: LoggerService): Promise<void> {
  const logger = new Logger('Conveyor');
  await checkPortFree(config.app.port);
  const database = await resolveDatabaseUrl(config.app, logger);
  // The logger is built here rather than injected, so nothing needs buffering until the app exists:
  // Nest gets the same instance that already serves the lines logged above.
  const app = await NestFactory.create(AppModule.forRoot({ ...config, app: { ...config.app, databaseUrl: database.url } }), {
    bodyParser: false,
    logger: appLogger,
  });
  configureHttp(app, { bodyLimitBytes: config.app.bodyLimitBytes });
  installShutdownSignals(app, { drainMs: config.app.shutdownDrainMs, afterClose: () => database.close() });
  try {
    await app.listen(config.app.port);
  } catch (err) {
    // The port was taken after the check: the worker has started, so hand its jobs back before the process ends.
    try {
      await app.close();
    } finally {
      await database.close();
    }
    throw err;
  }
  const { port } = app.getHttpServer().address() as AddressInfo;
  logger.log(
    `Conveyor listening on http://localhost:${port} (dashboard: /dashboard, API docs: /docs, health: /health/ready, metrics: /metrics)`,
  );
}

const config = readConfig();
// One logger for the whole process, installed before anything logs, so that the lines written before
// the app exists (the embedded PostgreSQL starting, say) come out in the same format as the rest.
const appLogger = createConveyorLogger({ format: config.app.logFormat, level: config.app.logLevel });
Logger.overrideLogger(appLogger);

bootstrap(config, appLogger).catch((err: unknown) => {
  // A CRON_SCHEDULES entry whose payload or type the handlers reject is only found once the handlers are known.
  const named = envNameFor(err);
  // "The job database is unavailable" alone does not say why (refused, read-only, a bad startup parameter): the driver does.
  if (isConnectionError(err)) new Logger('Conveyor').fatal(`Start-up failed: ${connectionErrorText(err)}`);
  else new Logger('Conveyor').fatal(named instanceof Error ? named : String(named));
  process.exit(1);
});
