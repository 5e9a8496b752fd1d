import { CoreInputError } from "../errors/core-input-error";

/**
 * A single-instance latency profile (Packrat §3.2): L[t][b] = mean batch latency of ONE instance running with t
 * intra-op threads on a batch of b samples. Any subset of (t, b) cells may be present.
 */
export interface ProfileCell {
  readonly threads: number;
  readonly batch: number;
  readonly latencyMs: number;
}

export type Profile = readonly ProfileCell[];

export type ProfileErrorCode = "invalid_cell" | "duplicate_cell" | "not_a_list";

/** A profile that cannot be used; `index` is the offending cell's position in the input. */
export class ProfileError extends CoreInputError<ProfileErrorCode> {
  declare readonly parameter: "profile";
  readonly index: number | undefined;

  constructor(code: ProfileErrorCode, message: string, index?: number) {
    super(code, "profile", message);
    this.name = "ProfileError";
    this.index = index;
  }
}

/**
 * Why one cell is unusable, or undefined when it is fine. Shared with the CSV reader so that both say the same thing.
 * Latency must be > 0: a zero latency would make throughput infinite.
 */
export function describeCellProblem(cell: {
  threads: unknown;
  batch: unknown;
  latencyMs: unknown;
}): string | undefined {
  if (!isPositiveInteger(cell.threads)) return `threads must be a positive integer, got ${String(cell.threads)}`;
  if (!isPositiveInteger(cell.batch)) return `batch must be a positive integer, got ${String(cell.batch)}`;
  const latency = cell.latencyMs;
  if (typeof latency !== "number" || !Number.isFinite(latency) || latency <= 0) {
    return `latency_ms must be a finite number > 0, got ${String(latency)}`;
  }
  return undefined;
}

/** Checks every cell and rejects duplicates; returns a frozen copy sorted by (threads, batch). */
export function validateProfile(cells: readonly ProfileCell[]): Profile {
  if (!Array.isArray(cells)) throw new ProfileError("not_a_list", "profile must be an array of cells");
  const seen = new Map<string, number>();
  const copy: ProfileCell[] = [];
  cells.forEach((cell, index) => {
    const problem = cell === null || typeof cell !== "object" ? "cell must be an object" : describeCellProblem(cell);
    if (problem !== undefined) throw new ProfileError("invalid_cell", `profile cell ${index}: ${problem}`, index);
    const key = `${cell.threads},${cell.batch}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw new ProfileError(
        "duplicate_cell",
        `profile cell ${index}: duplicate cell threads=${cell.threads}, batch=${cell.batch} (first at cell ${first})`,
        index,
      );
    }
    seen.set(key, index);
    copy.push(Object.freeze({ threads: cell.threads, batch: cell.batch, latencyMs: cell.latencyMs }));
  });
  copy.sort((a, b) => a.threads - b.threads || a.batch - b.batch);
  return Object.freeze(copy);
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}
