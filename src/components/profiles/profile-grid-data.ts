/**
 * A profile's grid as the views read it: which ⟨t, b⟩ cells are measured, which are missing, the cell the agent is
 * measuring now, and the progress line (cells, ETA, status). The agent measures threads in the outer loop and batch
 * sizes in the inner one, both ascending, skipping cells already measured, so "current" is the first missing cell
 * in that order.
 */
import { CUT_SHORT_STOP_REASON } from "@/core/profiling/stopping-rule";

/** One measured cell (mean batch latency L_{t,b} and its spread), as `profiles.get` returns it. */
export interface ProfileCellData {
  threads: number;
  batch: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  stddevMs: number;
  iterations: number;
  ciHalfWidthMs?: number;
  stopReason?: string;
  peakRssBytes?: number | null;
  rounds?: number | null;
  /** Other processes' share of the profiled CPUs' time while the cell was measured, %. */
  interferencePct?: number | null;
  flagged?: boolean;
  remeasured?: number;
}

export interface ProfileGrid {
  threads: readonly number[];
  batches: readonly number[];
}

export interface GridPoint {
  threads: number;
  batch: number;
}

export const cellKey = (threads: number, batch: number) => `${threads}×${batch}`;

export function indexCells<C extends GridPoint>(cells: readonly C[]): Map<string, C> {
  return new Map(cells.map((c) => [cellKey(c.threads, c.batch), c]));
}

const ascending = (values: readonly number[]) => [...new Set(values)].sort((a, b) => a - b);

/** The grid's cells that have no measurement, in the agent's measuring order (t ascending, then b ascending). */
export function missingCells(grid: ProfileGrid, cells: readonly GridPoint[]): GridPoint[] {
  const have = new Set(cells.map((c) => cellKey(c.threads, c.batch)));
  const out: GridPoint[] = [];
  for (const threads of ascending(grid.threads))
    for (const batch of ascending(grid.batches)) if (!have.has(cellKey(threads, batch))) out.push({ threads, batch });
  return out;
}

export type ProfileStatus = "queued" | "running" | "complete" | "partial" | "failed" | "cancelled";

export const isActive = (status: string) => status === "queued" || status === "running";

/** How long after a cancel the page keeps polling: the agent hands in the cells it cut short once it sees the cancel. */
export const CUT_SHORT_WAIT_MS = 120_000;

/** Whether the page should keep polling: a running job, or one cancelled moments ago. */
export function isSettling(status: string, finishedAt: string | Date | null, now = Date.now()): boolean {
  if (isActive(status)) return true;
  return status === "cancelled" && finishedAt !== null && now - new Date(finishedAt).getTime() < CUT_SHORT_WAIT_MS;
}

/** The cell being measured: the first missing one while the job runs; none otherwise. */
export function currentCell(grid: ProfileGrid, cells: readonly GridPoint[], status: string): GridPoint | null {
  if (status !== "running") return null;
  return missingCells(grid, cells)[0] ?? null;
}

/** "45 s", "2 min 5 s", "1 h 20 min": durations people read at a glance (never NaN: a dash for no value). */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 500) return "< 1 s";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) {
    const m = Math.floor(s / 60);
    const rest = s % 60;
    return rest ? `${m} min ${rest} s` : `${m} min`;
  }
  const h = Math.floor(s / 3600);
  const m = Math.round((s % 3600) / 60);
  return m ? `${h} h ${m} min` : `${h} h`;
}

/** "t=2, b=4; t=2, b=8 and 3 more": missing cells named, up to `limit`. */
export function describeCells(points: readonly GridPoint[], limit = 6): string {
  const named = points.slice(0, limit).map((p) => `t=${p.threads}, b=${p.batch}`);
  const more = points.length - named.length;
  return more > 0 ? `${named.join("; ")} and ${more} more` : named.join("; ");
}

export interface ProgressInput {
  status: string;
  grid: ProfileGrid;
  cells: ReadonlyArray<GridPoint & { stopReason?: string; rounds?: number | null }>;
  etaMs: number | null;
  jobError?: string | null;
}

export interface ProgressView {
  done: number;
  total: number;
  /** 0 … 100, whole percent, floored so 100 means every cell is in. */
  percent: number;
  current: GridPoint | null;
  missing: GridPoint[];
  /** One line: what the job is doing, or what the profile lacks. */
  headline: string;
  /** For partial, failed and cancelled profiles: what is missing and what that means. */
  missingNote: string | null;
  tone: "ok" | "warn" | "bad";
}

export function progressView(input: ProgressInput): ProgressView {
  const total = ascending(input.grid.threads).length * ascending(input.grid.batches).length;
  const missing = missingCells(input.grid, input.cells);
  const done = total - missing.length;
  const percent = total === 0 ? 0 : Math.floor((done / total) * 100);
  const current = currentCell(input.grid, input.cells, input.status);
  const cells = `${done} of ${total} cell${total === 1 ? "" : "s"}`;
  const cut = input.cells.filter((c) => c.stopReason === CUT_SHORT_STOP_REASON);
  let headline: string;
  let tone: ProgressView["tone"] = "warn";
  switch (input.status) {
    case "queued":
      headline = `Queued: waiting for the agent to claim the job (${cells} measured).`;
      break;
    case "running":
      headline = `Measuring ${current ? `t=${current.threads}, b=${current.batch}` : "the last cell"}: ${cells} measured${input.etaMs !== null ? `, about ${formatDuration(input.etaMs)} left` : ", time left known after the first cell"}.`;
      break;
    case "complete":
      headline = `Complete: all ${total} cells measured.`;
      tone = "ok";
      break;
    case "cancelled":
      headline = `Cancelled with ${cells} measured${cut.length ? `, ${cut.length === done ? (done === 1 ? "it" : "all") : cut.length} cut short by the cancel` : ""}.`;
      break;
    case "partial":
      headline = `Partial: the job ended with ${cells} measured${input.jobError ? ` (${input.jobError})` : ""}.`;
      tone = "bad";
      break;
    case "failed":
      headline = `Failed${input.jobError ? `: ${input.jobError}` : ""} (${cells} measured).`;
      tone = "bad";
      break;
    default:
      headline = `${input.status}: ${cells} measured.`;
  }
  const finishedShort = !isActive(input.status) && (missing.length > 0 || cut.length > 0);
  const rounds = cut.map((c) => c.rounds ?? 0);
  const roundsText = rounds.length
    ? Math.min(...rounds) === Math.max(...rounds)
      ? `${rounds[0]}`
      : `${Math.min(...rounds)}–${Math.max(...rounds)}`
    : "";
  const parts = [
    cut.length
      ? `${cut.length} cell${cut.length === 1 ? " was" : "s were"} cut short by the cancel: ${cut.length === 1 ? "its estimate rests" : "their estimates rest"} on ${roundsText} round${roundsText === "1" ? "" : "s"}, fewer than the rule asks.`
      : null,
    done === 0
      ? "No cell was measured (cells are measured in interleaved rounds, so most finish only near the end)."
      : null,
    missing.length
      ? `Missing ${missing.length} cell${missing.length === 1 ? "" : "s"}: ${describeCells(missing)}.`
      : null,
  ].filter((x): x is string => x !== null);
  const missingNote = finishedShort
    ? `${parts.join(" ")} The views show the cells that exist; the optimizer plans from complete profiles only.`
    : null;
  return { done, total, percent, current, missing, headline, missingNote, tone };
}
