/**
 * Batching sweeps on the pages (issue #20), pure: the sweep form's candidate list ("12/32, 2/8": window ms / max
 * batch), what a sweep proposal asks for (Approvals), the approval's confirmation before and after, and the
 * measured points beside the model's prediction (batching page).
 */
import { formatMs, formatRate, formatSig } from "@/lib/planning/format";

export interface SweepCandidate {
  windowMs: number;
  maxBatch: number;
}
export interface SweepEvidence {
  candidates: SweepCandidate[];
  durationS: number;
  ratePerS: number;
  sweepId?: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export const MAX_SWEEP_CANDIDATES = 8;

/** "12/32, 2/8" → [{12, 32}, {2, 8}]; each item window ms (≥ 0, ≤ 60,000) / max batch (whole, 1…65,536). */
export function parseCandidates(text: string): Parsed<SweepCandidate[]> {
  const items = text
    .split(/[,;\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) return { ok: false, error: "Give at least one candidate as window/max batch, e.g. 12/32" };
  if (items.length > MAX_SWEEP_CANDIDATES)
    return { ok: false, error: `At most ${MAX_SWEEP_CANDIDATES} candidates per sweep (${items.length} given)` };
  const out: SweepCandidate[] = [];
  for (const item of items) {
    const m = /^(\d+(?:\.\d+)?)\s*(?:ms)?\s*\/\s*(\d+)$/.exec(item);
    if (!m)
      return {
        ok: false,
        error: `"${item}" is not window/max batch (e.g. 12/32: a 12 ms window, batches of up to 32)`,
      };
    const windowMs = Number(m[1]);
    const maxBatch = Number(m[2]);
    if (windowMs > 60_000) return { ok: false, error: `"${item}": the window must be at most 60,000 ms` };
    if (maxBatch < 1 || maxBatch > 65_536)
      return { ok: false, error: `"${item}": the max batch must be between 1 and 65,536` };
    if (out.some((c) => c.windowMs === windowMs && c.maxBatch === maxBatch))
      return { ok: false, error: `"${item}" is listed twice` };
    out.push({ windowMs, maxBatch });
  }
  return { ok: true, value: out };
}

export const candidatesText = (candidates: readonly SweepCandidate[]) =>
  candidates.map((c) => `${formatSig(c.windowMs, 4)} ms / ${c.maxBatch}`).join(", ");

/** The sweep a proposal's evidence describes, or null for an ordinary configuration proposal. */
export function sweepOf(evidence: unknown): SweepEvidence | null {
  const s = (evidence as { sweep?: SweepEvidence } | null)?.sweep;
  return s && Array.isArray(s.candidates) ? s : null;
}

/** What the approver is told before approving: the temporary generations, the load, the restore, the expiry. */
export function sweepConfirmText(sweep: SweepEvidence, otherPending: number): string {
  const n = sweep.candidates.length;
  return (
    `Approving runs ${n} temporary generation${n === 1 ? "" : "s"} (${candidatesText(sweep.candidates)}), each with a ${sweep.durationS} s load test at ` +
    `${formatRate(sweep.ratePerS)} on top of the deployment's own traffic, then restores the running configuration as a new generation. ` +
    (otherPending === 0
      ? "No other proposal for this deployment is pending."
      : `The ${otherPending} other pending proposal${otherPending === 1 ? "" : "s"} for this deployment will expire (they were made against the running generation).`)
  );
}

export function sweepApprovedText(result: { generation: number; expiredProposals: number }): string {
  return (
    `Sweep started: its first temporary generation is ${result.generation}. ` +
    (result.expiredProposals === 0
      ? "No pending proposal had to expire."
      : `${result.expiredProposals} pending proposal${result.expiredProposals === 1 ? "" : "s"} for this deployment expired.`)
  );
}

export interface MeasuredPoint extends SweepCandidate {
  okPerS: number | null;
  p99Ms: number | null;
  offeredPerS: number | null;
  error: string | null;
}
export interface ModelPoint {
  envelopeMs: number;
  throughputPerS: number;
}

export interface GapRow {
  candidate: string;
  measuredP99: string;
  modelEnvelope: string;
  p99Gap: string;
  measuredThroughput: string;
  modelCapacity: string;
}

/** Measured vs model per point: the model's envelope and capacity for the same (window, max batch), when it has one. */
export function gapRows(points: readonly MeasuredPoint[], model: (c: SweepCandidate) => ModelPoint | null): GapRow[] {
  return points.map((p) => {
    const m = model(p);
    const gap =
      p.p99Ms !== null && m
        ? `${p.p99Ms >= m.envelopeMs ? "+" : ""}${formatSig(((p.p99Ms - m.envelopeMs) / m.envelopeMs) * 100, 3)}%`
        : "—";
    return {
      candidate: `${formatSig(p.windowMs, 4)} ms / ${p.maxBatch}`,
      measuredP99: p.p99Ms !== null ? formatMs(p.p99Ms) : p.error ? `failed: ${p.error}` : "—",
      modelEnvelope: m ? formatMs(m.envelopeMs) : "—",
      p99Gap: gap,
      measuredThroughput:
        p.okPerS !== null ? `${formatRate(p.okPerS)} of ${formatRate(p.offeredPerS ?? 0)} offered` : "—",
      modelCapacity: m ? formatRate(m.throughputPerS) : "—",
    };
  });
}
