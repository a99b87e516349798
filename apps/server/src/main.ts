import 'reflect-metadata';
import { Logger, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createConveyorLogger, installShutdownSignals, validateConveyorOptions } from '@conveyor/core';
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

async function bootstrap(config: AppConfig, appLogger: LoggerService): Promise<void> {
  const logger = new Logger('Conveyor');
  const database = await resolveDatabaseUrl(logger);
  // The logger is built here rather than injected, so nothing needs buffering until the app exists:
  // Nest gets the same instance that already serves the lines logged above.
  const app = await NestFactory.create(AppModule.forRoot({ ...config, app: { ...config.app, databaseUrl: database.url } }), {
    bodyParser: false,
    logger: appLogger,
  });
  configureHttp(app, { bodyLimitBytes: config.app.bodyLimitBytes });
  installShutdownSignals(app, { drainMs: config.app.shutdownDrainMs, afterClose: () => database.close() });
  await app.listen(config.app.port);
  logger.log(
    `Conveyor listening on http://localhost:${config.app.port} (dashboard: /dashboard, API docs: /docs, health: /health/ready, metrics: /metrics)`,
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
  new Logger('Conveyor').fatal(named instanceof Error ? named : String(named));
  process.exit(1);
});
