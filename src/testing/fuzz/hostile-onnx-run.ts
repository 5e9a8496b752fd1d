// Uploads every hostile file through the registry's upload service and tallies what happened per kind: refused
// (by code), accepted (a finding), or failed some other way (a finding: an unexpected error is a 500 upstream).
import { ModelRejectedError } from "@/lib/onnx/validate-model";
import { HOSTILE_ONNX_KINDS, hostileOnnxFile, type HostileOnnxFile, type HostileOnnxKind } from "./hostile-onnx";

export interface HostileOnnxCounts {
  tried: number;
  refused: number;
  byCode: Record<string, number>;
  accepted: number;
  otherErrors: number;
  leftovers: number;
}
export interface HostileOnnxFinding {
  kind: HostileOnnxKind;
  seed: number;
  variant: string;
  problem: "accepted" | "other-error" | "left-something-behind" | "no-message";
  detail: string;
}

export interface HostileOnnxReport {
  perKind: Record<HostileOnnxKind, HostileOnnxCounts>;
  findings: HostileOnnxFinding[];
}

/** Up to `perKind` files of each kind with distinct variants, from seeds 0, 1, 2, …: the cases a run covers. */
export function hostileOnnxCases(
  perKind: number,
  maxSeeds = 200,
  kinds: readonly HostileOnnxKind[] = HOSTILE_ONNX_KINDS,
): Array<{ seed: number; file: HostileOnnxFile }> {
  const out: Array<{ seed: number; file: HostileOnnxFile }> = [];
  for (const kind of kinds) {
    const seen = new Set<string>();
    for (let seed = 0; seed < maxSeeds && seen.size < perKind; seed++) {
      const file = hostileOnnxFile(kind, seed);
      if (seen.has(file.variant)) continue;
      seen.add(file.variant);
      out.push({ seed, file });
    }
  }
  return out;
}

export async function runHostileOnnx(options: {
  cases: Array<{ seed: number; file: HostileOnnxFile }>;
  /** Uploads the bytes as a new model; resolves when accepted, rejects with what the service threw. */
  upload: (bytes: Uint8Array, name: string) => Promise<unknown>;
  /** What the registry holds (rows and files); must be the same before and after a refusal. */
  snapshot: () => Promise<string>;
}): Promise<HostileOnnxReport> {
  const perKind = Object.fromEntries(
    HOSTILE_ONNX_KINDS.map((k) => [k, { tried: 0, refused: 0, byCode: {}, accepted: 0, otherErrors: 0, leftovers: 0 }]),
  ) as Record<HostileOnnxKind, HostileOnnxCounts>;
  const findings: HostileOnnxFinding[] = [];
  for (const [index, { seed, file }] of options.cases.entries()) {
    const counts = perKind[file.kind];
    counts.tried++;
    const before = await options.snapshot();
    const finding = (problem: HostileOnnxFinding["problem"], detail: string) =>
      findings.push({ kind: file.kind, seed, variant: file.variant, problem, detail: detail.slice(0, 300) });
    try {
      await options.upload(file.bytes, `hostile-${file.kind}-${seed}-${index}`);
      counts.accepted++;
      finding("accepted", "the registry stored it");
      continue;
    } catch (error) {
      if (error instanceof ModelRejectedError) {
        counts.refused++;
        counts.byCode[error.code] = (counts.byCode[error.code] ?? 0) + 1;
        if (error.message.length < 20) finding("no-message", `${error.code}: ${error.message}`);
      } else {
        counts.otherErrors++;
        finding("other-error", `${(error as Error).name}: ${(error as Error).message}`);
      }
    }
    const after = await options.snapshot();
    if (after !== before) {
      counts.leftovers++;
      finding("left-something-behind", `before ${before}, after ${after}`);
    }
  }
  return { perKind, findings };
}
