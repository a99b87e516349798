import { LoggerService, LogLevel } from '@nestjs/common';
import { LogFields, LogRecord } from './log-record';
import { logLevelsFrom } from './log-level';

/** Where JSON lines go: anything with a `write(string)`, e.g. a stream. */
export interface LogSink {
  write(line: string): unknown;
}

export interface JsonLoggerOptions {
  /** Lowest level written; default `log`. */
  level?: LogLevel;
  /** Default `process.stdout`: every level goes to one stream, as log collectors expect. */
  sink?: LogSink;
}

/** Keys of the line itself; a field of the same name cannot overwrite them. */
const CORE_KEYS = new Set(['time', 'level', 'context', 'msg']);

/** A stack trace as Nest passes it to `error()`: a first line, then `at file:line:col` frames. */
const STACK = /\n\s+at .+/;

/**
 * A Nest `LoggerService` writing one JSON object per line:
 * `{"time":"…","level":"warn","context":"Conveyor:Worker","msg":"…","jobId":"…",…}`.
 *
 * It reads the arguments the way Nest's `Logger` passes them — `(message, ...params, context)`, with a
 * stack before the context for errors — so it can replace the ConsoleLogger without changing a log
 * call. A `LogRecord` message (or a plain object among the arguments) has its fields spread into the
 * line; an `Error` gives `msg` and `stack`; further strings are appended to `msg`. Nest's `log` level is
 * written as `info`, the name log collectors know.
 */
export class JsonLogger implements LoggerService {
  private enabled: Set<LogLevel>;
  private readonly sink: LogSink;

  constructor(options: JsonLoggerOptions = {}) {
    this.enabled = new Set(logLevelsFrom(options.level ?? 'log'));
    this.sink = options.sink ?? process.stdout;
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /** Called by Nest for `NestFactory.create(..., { logger: [levels] })`. */
  setLogLevels(levels: LogLevel[]): void {
    this.enabled = new Set(levels);
  }

  isLevelEnabled(level: LogLevel): boolean {
    return this.enabled.has(level);
  }

  private write(level: LogLevel, message: unknown, params: unknown[]): void {
    if (!this.enabled.has(level)) return;
    let context: string | undefined;
    if (params.length > 0 && typeof params[params.length - 1] === 'string') context = params.pop() as string;

    const parts: string[] = [];
    const fields: LogFields = {};
    absorb(message, true, parts, fields);
    for (const arg of params) absorb(arg, false, parts, fields);

    const line: LogFields = { time: new Date().toISOString(), level: level === 'log' ? 'info' : level, context, msg: parts.join(' ') };
    for (const [key, value] of Object.entries(fields)) if (!CORE_KEYS.has(key)) line[key] = value;
    this.sink.write(`${stringify(line)}\n`);
  }
}

/** Folds one logger argument into the message parts and fields; only a later argument can be a stack. */
function absorb(arg: unknown, first: boolean, parts: string[], fields: LogFields): void {
  if (arg === undefined) return; // Nest's Logger passes `undefined` for a missing stack
  if (typeof arg === 'string') {
    if (!first && STACK.test(arg)) fields.stack = arg;
    else parts.push(arg);
  } else if (arg instanceof LogRecord) {
    parts.push(arg.msg);
    Object.assign(fields, arg.fields);
  } else if (arg instanceof Error) {
    parts.push(arg.message);
    fields.stack = arg.stack;
  } else if (isPlainObject(arg)) {
    const textKey = ['msg', 'message'].find((k) => typeof arg[k] === 'string');
    for (const [key, value] of Object.entries(arg)) {
      if (key === textKey) parts.push(value as string);
      else fields[key] = value;
    }
  } else {
    parts.push(String(arg));
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** JSON that cannot throw: bigints as strings, errors as {name, message, stack}, cycles cut. */
function stringify(line: LogFields): string {
  const ancestors: object[] = [];
  try {
    return JSON.stringify(line, function (this: unknown, _key, value: unknown) {
      if (typeof value === 'bigint') return value.toString();
      if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
      if (typeof value !== 'object' || value === null) return value;
      // `this` is the object holding `value`: drop ancestors we have walked back out of.
      while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
      if (ancestors.includes(value)) return '[Circular]';
      ancestors.push(value);
      return value;
    });
  } catch (err) {
    return JSON.stringify({
      time: line.time,
      level: line.level,
      context: line.context,
      msg: String(line.msg),
      logError: (err as Error).message,
    });
  }
}
