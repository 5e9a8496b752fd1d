// The fault-tolerance suite's figures: each test prints one line and, when FAULT_FIGURES_FILE names a file (the
// bench does: bench/fault-tolerance.bench.ts), merges its figures into it under the test's key. Reported, never
// asserted: timings on a shared 2-core host say little on their own.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { testEnv } from "../test-env";

export type FaultFigures = Record<string, unknown>;

export function recordFigures(test: string, figures: FaultFigures): void {
  console.log(`[fault] ${test}: ${JSON.stringify(figures)}`);
  const file = testEnv.FAULT_FIGURES_FILE;
  if (!file) return;
  const all = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, FaultFigures>) : {};
  all[test] = figures;
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
}
