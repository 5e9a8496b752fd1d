/**
 * A profile as CSV for the optimizer CLI (`npm run -s packrat -- optimize --profile FILE.csv --cores T --batch B`),
 * which reads `threads,batch,latency_ms` (latency = the cell's mean batch latency L_{t,b}) and ignores the other
 * columns. Rows in the grid's order, values unrounded; only measured cells (a partial profile exports what it has).
 */
import { toCsv, type CsvTable } from "@/lib/planning/csv";
import type { ProfileCellData } from "./profile-grid-data";

export const PROFILE_CSV_COLUMNS = [
  "threads",
  "batch",
  "latency_ms",
  "p50_ms",
  "p90_ms",
  "p99_ms",
  "stddev_ms",
  "iterations",
] as const;

export function profileCsvTable(cells: readonly ProfileCellData[]): CsvTable {
  const sorted = [...cells].sort((a, b) => a.threads - b.threads || a.batch - b.batch);
  return {
    columns: PROFILE_CSV_COLUMNS,
    rows: sorted.map((c) => [c.threads, c.batch, c.meanMs, c.p50Ms, c.p90Ms, c.p99Ms, c.stddevMs, c.iterations]),
  };
}

export const profileCsv = (cells: readonly ProfileCellData[]) => toCsv(profileCsvTable(cells));

/** "profile-tiny-cnn-v1-host-a-1a2b3c4d.csv": model, version, host and the id's head, in file-name-safe form. */
export function profileCsvFileName(p: { id: string; modelName: string; version: number; hostName: string }): string {
  const slug = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "");
  const parts = ["profile", slug(p.modelName), `v${p.version}`, slug(p.hostName), slug(p.id).slice(0, 8)].filter(
    (x) => x !== "",
  );
  return `${parts.join("-")}.csv`;
}
