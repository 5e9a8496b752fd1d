// Structured logs: one JSON object per line on stdout, filtered by LOG_LEVEL. A request's lines carry its
// request id (the same id its audit events record), so one grep follows a request through both.
import { env } from "@/server/env";

export type LogLevel = "debug" | "info" | "warn" | "error";
const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose every line also carries `fields` (e.g. the request id). */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  /** Lines below this level are dropped. Default: LOG_LEVEL from the env module. */
  level?: LogLevel;
  /** Where a finished line goes. Default: stdout. */
  write?: (line: string) => void;
  now?: () => Date;
}

// Errors become plain objects (JSON.stringify would print `{}`); the stack only at debug.
function serialize(value: unknown, withStack: boolean): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, ...(withStack && value.stack ? { stack: value.stack } : {}) };
  }
  if (typeof value === "bigint") return value.toString();
  return value;
}

export function createLogger(options: LoggerOptions = {}, bound: LogFields = {}): Logger {
  const minimum = () => rank[options.level ?? env().LOG_LEVEL];
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? (() => new Date());
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (rank[level] < minimum()) return;
    const record: LogFields = { time: now().toISOString(), level, msg };
    for (const [key, value] of Object.entries({ ...bound, ...fields })) {
      if (value !== undefined) record[key] = serialize(value, minimum() === rank.debug);
    }
    write(JSON.stringify(record));
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
  };
}

/** The process's logger. */
export const log: Logger = createLogger();

/** The request id a caller sent (x-request-id, if sane), else a new one. */
export function requestIdFrom(headers: Headers): string {
  const given = headers.get("x-request-id");
  return given && /^[\w.:-]{1,128}$/.test(given) ? given : crypto.randomUUID();
}
