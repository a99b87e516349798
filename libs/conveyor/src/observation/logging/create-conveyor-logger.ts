import { ConsoleLogger, LoggerService, LogLevel } from '@nestjs/common';
import { JsonLogger, LogSink } from './json-logger';
import { LogFormat, logLevelsFrom } from './log-level';

export interface ConveyorLoggerOptions {
  /** `json`: one object per line, for log collectors; `pretty`: Nest's console format, for people. */
  format: LogFormat;
  /** Lowest level written. */
  level: LogLevel;
  /** Where JSON lines go (default stdout); ignored by `pretty`. */
  sink?: LogSink;
}

/**
 * The logger for `NestFactory.create(..., { logger })`. Both formats show a `LogRecord`'s fields: the
 * JSON logger as keys of the line, ConsoleLogger as `key=value` pairs after the message.
 */
export function createConveyorLogger(options: ConveyorLoggerOptions): LoggerService {
  if (options.format === 'json') return new JsonLogger({ level: options.level, sink: options.sink });
  return new ConsoleLogger({ logLevels: logLevelsFrom(options.level) });
}
