import pino, { type DestinationStream, type Logger } from "pino";
import { appConfig } from "../config/env";

export type { Logger };

export type LoggerOptions = {
  level: "debug" | "info" | "warn" | "error";
  /** JSON lines (default) or one readable line per entry (`npm run dev`). */
  format?: "json" | "pretty";
  /** Where lines go (stdout by default); tests capture them here. */
  destination?: DestinationStream;
};

const COLORS: Record<string, string> = { debug: "\x1b[90m", info: "\x1b[36m", warn: "\x1b[33m", error: "\x1b[31m", fatal: "\x1b[31m" };
const RESET = "\x1b[0m";
const HIDDEN = new Set(["level", "time", "msg", "pid", "hostname", "component"]);

/** One JSON log line as `12:00:01.123 INFO  [component] message key=value ...`. */
export function prettyLine(json: string, color = false): string {
  const entry = JSON.parse(json) as Record<string, unknown> & { level: string; time: number; msg?: string; component?: string };
  const time = new Date(entry.time).toISOString().slice(11, 23);
  const level = entry.level.toUpperCase().padEnd(5);
  const fields = Object.entries(entry)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ");
  const head = color ? `${COLORS[entry.level] ?? ""}${level}${RESET}` : level;
  return `${time} ${head} ${entry.component ? `[${entry.component}] ` : ""}${entry.msg ?? ""}${fields ? ` ${fields}` : ""}\n`;
}

function prettyStream(out: { write: (text: string) => unknown; isTTY?: boolean }): DestinationStream {
  return { write: (line: string) => void out.write(prettyLine(line, out.isTTY === true)) };
}

function createLogger(options: LoggerOptions): Logger {
  // Synchronous stdout (pino's default): a line logged just before exit is not lost.
  const target = options.destination ?? process.stdout;
  const stream = options.format === "pretty" ? prettyStream(target) : (options.destination ?? pino.destination(1));
  return pino(
    {
      level: options.level,
      base: { pid: process.pid },
      // Levels as words, so lines read without a lookup table.
      formatters: { level: (label) => ({ level: label }) },
      timestamp: pino.stdTimeFunctions.epochTime,
    },
    stream,
  );
}

// One root logger per process, on globalThis: Next bundles this module into each route separately.
const holder = globalThis as typeof globalThis & { __webhookInboxLogger?: Logger };

// Processes that never called configureLogger (tests, the CLI) still follow LOG_LEVEL/LOG_FORMAT;
// an invalid configuration is reported by whoever loads it, not by the first log line.
function configuredOptions(): LoggerOptions {
  try {
    const config = appConfig();
    return { level: config.logLevel, format: config.logFormat };
  } catch {
    return { level: "info" };
  }
}

/** Sets the process's log level and format (worker start-up, the web runtime, tests). */
export function configureLogger(options: LoggerOptions): void {
  holder.__webhookInboxLogger = createLogger(options);
}

/** The logger for one part of the app (`ingest`, `worker`, `db`...); every line says which. */
export function logger(component: string, bindings: Record<string, unknown> = {}): Logger {
  holder.__webhookInboxLogger ??= createLogger(configuredOptions());
  return holder.__webhookInboxLogger.child({ component, ...bindings });
}
