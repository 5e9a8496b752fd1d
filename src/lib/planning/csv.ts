/**
 * CSV of a chart's data (RFC 4180 quoting), so a planner's numbers can leave the page at full precision: values are
 * written unrounded, a missing value is an empty cell, and a non-finite number is never written.
 */

export type CsvCell = string | number | boolean | null | undefined;

export interface CsvTable {
  columns: readonly string[];
  rows: readonly (readonly CsvCell[])[];
}

function cell(value: CsvCell): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(table: CsvTable): string {
  const width = table.columns.length;
  const lines = [table.columns.map(cell).join(",")];
  for (const [i, row] of table.rows.entries()) {
    if (row.length !== width) throw new RangeError(`CSV row ${i} has ${row.length} cells, expected ${width}`);
    lines.push(row.map(cell).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** A file name from a title: "Pareto frontier (500 req/s)" → "pareto-frontier-500-req-s.csv". */
export function csvFileName(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `${slug || "chart-data"}.csv`;
}
