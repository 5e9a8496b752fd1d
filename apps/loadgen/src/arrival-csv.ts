// Arrival traces for replay: a CSV with one arrival per row. The time column is the first one, in seconds, unless a
// header names it: time_ms / t_ms / timestamp_ms (milliseconds) or time / t / time_s / timestamp (seconds).
// Times are rebased to the first row, so absolute Unix timestamps replay as they were spaced.
import { LoadgenInputError } from "./errors";
import { MAX_SCHEDULE_REQUESTS } from "./schedule";

const MS_COLUMNS = ["time_ms", "t_ms", "timestamp_ms"];
const S_COLUMNS = ["time", "t", "time_s", "t_s", "timestamp", "timestamp_s"];

export function parseArrivalCsv(text: string, parameter = "csv"): number[] {
  let column = 0;
  let scale = 1000;
  let sawHeader = false;
  let first: number | undefined;
  let previous = -Infinity;
  const times: number[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const fields = line.split(",").map((f) => f.trim().replace(/^"(.*)"$/, "$1"));
    if (!sawHeader && times.length === 0 && !/^[-+]?(\d|\.\d)/.test(fields[0] ?? "")) {
      sawHeader = true;
      const names = fields.map((f) => f.toLowerCase());
      const ms = names.findIndex((n) => MS_COLUMNS.includes(n));
      const s = names.findIndex((n) => S_COLUMNS.includes(n));
      if (ms >= 0) {
        column = ms;
        scale = 1;
      } else if (s >= 0) {
        column = s;
        scale = 1000;
      } else {
        throw new LoadgenInputError(
          "invalid_csv",
          parameter,
          `line ${i + 1}: the header names no time column (one of ${[...MS_COLUMNS, ...S_COLUMNS].join(", ")})`,
        );
      }
      continue;
    }
    const field = fields[column];
    const value = Number(field);
    if (field === undefined || field === "" || !Number.isFinite(value)) {
      throw new LoadgenInputError("invalid_csv", parameter, `line ${i + 1}: "${field ?? ""}" is not a time`);
    }
    if (value < previous)
      throw new LoadgenInputError(
        "invalid_csv",
        parameter,
        `line ${i + 1}: ${value} goes back in time (after ${previous}); sort the trace`,
      );
    previous = value;
    first ??= value;
    if (times.length === MAX_SCHEDULE_REQUESTS)
      throw new LoadgenInputError("invalid_csv", parameter, `more than ${MAX_SCHEDULE_REQUESTS} arrivals`);
    times.push((value - first) * scale);
  }
  if (times.length === 0) throw new LoadgenInputError("invalid_csv", parameter, "no arrivals in the file");
  return times;
}
