import 'reflect-metadata';
import { Logger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { configureHttp, validateConveyorOptions } from '@conveyor/core';
import { AppModule } from './app.module';
import { envNameFor, loadAppConfig } from './config/app-config';
import { resolveDatabaseUrl } from './database/resolve-database-url';
import { installShutdownSignals } from './shutdown-signals';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

async function bootstrap(): Promise<void> {
  const logger = new Logger('Conveyor');
  const config = loadAppConfig();
  try {
    validateConveyorOptions(config.engine);
  } catch (err) {
    throw envNameFor(err);
  }
  const level = Math.max(0, LEVELS.indexOf(config.app.logLevel as LogLevel));
  const database = await resolveDatabaseUrl(logger);
  const app = await NestFactory.create(
    AppModule.forRoot({ ...config, app: { ...config.app, databaseUrl: database.url } }),
    { bodyParser: false, logger: LEVELS.slice(0, level + 1) },
  );
  configureHttp(app, { bodyLimitBytes: config.app.bodyLimitBytes });
  installShutdownSignals(app, () => database.close());
  await app.listen(config.app.port);
  logger.log(`Conveyor listening on http://localhost:${config.app.port} (health: /health/ready)`);
}

bootstrap().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
