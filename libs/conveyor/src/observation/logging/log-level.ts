import { Logger, LogLevel } from '@nestjs/common';

/** Nest's log levels, most severe first: a threshold enables itself and everything before it. */
export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** How log lines are written: one JSON object per line, or Nest's coloured console format. */
export type LogFormat = 'json' | 'pretty';

export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

export function isLogFormat(value: string): value is LogFormat {
  return (LOG_FORMATS as readonly string[]).includes(value);
}

/** The levels written at threshold `level`, e.g. `warn` → fatal, error, warn. */
export function logLevelsFrom(level: LogLevel): LogLevel[] {
  return LOG_LEVELS.slice(0, LOG_LEVELS.indexOf(level) + 1);
}

/**
 * Whether `logger` writes `level` now. Asks the logger behind Nest's `Logger` facade (ConsoleLogger and
 * JsonLogger both answer `isLevelEnabled`), so a hot path can skip building a line nobody will see;
 * a logger that cannot say is assumed to write everything.
 */
export function willLog(logger: Logger, level: LogLevel): boolean {
  const inner = logger.localInstance as { isLevelEnabled?: (level: LogLevel) => boolean } | undefined;
  return inner?.isLevelEnabled?.(level) ?? true;
}
