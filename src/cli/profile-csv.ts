import { describeCellProblem, type ProfileCell } from "../core/profile/profile";

export type ProfileCsvErrorCode = "empty" | "missing_column" | "bad_row" | "bad_value" | "duplicate_cell";

/** A profile CSV that cannot be used; `line` is 1-based, as an editor shows it. */
export class ProfileCsvError extends Error {
  readonly code: ProfileCsvErrorCode;
  readonly parameter = "profile";
  readonly line: number;

  constructor(code: ProfileCsvErrorCode, line: number, detail: string) {
    super(`line ${line}: ${detail}`);
    this.name = "ProfileCsvError";
    this.code = code;
    this.line = line;
  }
}

export const PROFILE_COLUMNS = ["threads", "batch", "latency_ms"] as const;

// Plain decimal or exponent notation; rejects "", "NaN", "Infinity", "0x10" and the like, which Number() accepts.
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Reads `threads,batch,latency_ms` (header required, any column order, extra columns ignored, blank lines skipped,
 * RFC 4180 quotes within a line). Every problem names its line: a missing column, a short row, a value that is not a
 * number, a non-positive latency or thread/batch count, a duplicate ⟨threads, batch⟩ cell.
 */
export function parseProfileCsv(text: string): ProfileCell[] {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  let headerLine = 0;
  let columns: number[] | undefined;
  let width = 0;
  const cells: ProfileCell[] = [];
  const seen = new Map<string, number>();

  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === "") return;
    const fields = splitCsvLine(raw, line);
    if (columns === undefined) {
      headerLine = line;
      width = fields.length;
      const names = fields.map((field) => field.trim().toLowerCase());
      columns = PROFILE_COLUMNS.map((column) => {
        const at = names.indexOf(column);
        if (at < 0) {
          throw new ProfileCsvError(
            "missing_column",
            line,
            `missing column "${column}" in the header (found: ${names.join(", ")}); need ${PROFILE_COLUMNS.join(",")}`,
          );
        }
        return at;
      });
      return;
    }
    if (fields.length < width) {
      throw new ProfileCsvError(
        "bad_row",
        line,
        `has ${fields.length} fields, the header on line ${headerLine} has ${width}`,
      );
    }
    const [threads, batch, latencyMs] = columns.map((at, k) =>
      parseNumber(fields[at] ?? "", PROFILE_COLUMNS[k] ?? "", line),
    );
    const cell = { threads: threads ?? NaN, batch: batch ?? NaN, latencyMs: latencyMs ?? NaN };
    const problem = describeCellProblem(cell);
    if (problem !== undefined) throw new ProfileCsvError("bad_value", line, problem);
    const key = `${cell.threads},${cell.batch}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw new ProfileCsvError(
        "duplicate_cell",
        line,
        `duplicate cell threads=${cell.threads}, batch=${cell.batch} (first on line ${first})`,
      );
    }
    seen.set(key, line);
    cells.push(cell);
  });

  if (columns === undefined)
    throw new ProfileCsvError("empty", 1, `empty file: expected the header ${PROFILE_COLUMNS.join(",")}`);
  if (cells.length === 0) throw new ProfileCsvError("empty", headerLine, "no data rows after the header");
  return cells;
}

function parseNumber(field: string, column: string, line: number): number {
  const text = field.trim();
  if (!NUMBER.test(text)) throw new ProfileCsvError("bad_value", line, `${column} "${text}" is not a number`);
  return Number(text);
}

/** Splits one line on commas; a field in double quotes may hold commas and "" for a quote. */
export function splitCsvLine(raw: string, line: number): string[] {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (quoted) {
      if (ch === '"' && raw[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch === '"' && field.trim() === "") {
      quoted = true;
      field = "";
    } else if (ch === ",") {
      fields.push(field);
      field = "";
    } else {
      field += ch;
    }
  }
  if (quoted) throw new ProfileCsvError("bad_row", line, "unterminated quoted field");
  fields.push(field);
  return fields;
}
