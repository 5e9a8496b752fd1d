// Durations on the command line: "500ms", "30s", "2m", "1h", "1.5s"; a bare number takes the caller's unit.
import { LoadgenInputError } from "./errors";

const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
type Unit = keyof typeof UNIT_MS;

/** Milliseconds for a duration string; `bareUnit` is the unit of a number written without one. */
export function parseDurationMs(parameter: string, text: string, bareUnit: Unit = "s"): number {
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(us|ms|s|m|h)?\s*$/.exec(text);
  if (!match)
    throw new LoadgenInputError("invalid_duration", parameter, `"${text}" is not a duration (e.g. 500ms, 30s, 2m)`);
  const ms = Number(match[1]) * UNIT_MS[(match[2] as Unit | undefined) ?? bareUnit];
  if (!Number.isFinite(ms)) throw new LoadgenInputError("invalid_duration", parameter, `"${text}" is too large`);
  return ms;
}

/** "1.5s", "250ms", "2m 5s" style text for summaries. */
export function formatDurationMs(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toFixed(0)}µs`;
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m ${Math.round((ms - minutes * 60_000) / 1000)}s`;
}
