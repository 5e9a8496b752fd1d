import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { listBenchmarkResults } from "./benchmarks-service";

const dir = mkdtempSync(join(tmpdir(), "packrat-bench-results-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const result = (name: string, value: unknown = 1.5) => ({
  name,
  description: `${name} bench`,
  date: "2026-11-29T10:00:00.000Z",
  quick: false,
  durationS: 12,
  machine: { cpuModel: "AMD EPYC", logicalCpus: 2, memoryBytes: 2 ** 34, node: "v20", versions: {} },
  figures: [{ label: "speedup", value, unit: "×", spread: { kind: "min-max", low: 1, high: 2 }, samples: 5 }],
  tables: [{ title: "t", columns: ["a", "b"], rows: [["x", 1]] }],
  notes: ["n"],
});

describe("listBenchmarkResults", () => {
  it("reads every result file, sorted by name; a file that is not a result (or has a null figure) is listed apart", async () => {
    writeFileSync(join(dir, "zeta.json"), JSON.stringify(result("zeta")));
    writeFileSync(join(dir, "alpha.json"), JSON.stringify(result("alpha")));
    writeFileSync(join(dir, "broken.json"), "{ not json");
    writeFileSync(join(dir, "nan.json"), JSON.stringify(result("nan", null))); // JSON writes NaN as null
    writeFileSync(join(dir, "SUMMARY.md"), "# not read");
    const { results, unreadable } = await listBenchmarkResults(dir);
    expect(results.map((r) => [r.name, r.file])).toEqual([
      ["alpha", "alpha.json"],
      ["zeta", "zeta.json"],
    ]);
    expect(results[0]!.figures[0]).toEqual({
      label: "speedup",
      value: 1.5,
      unit: "×",
      spread: { kind: "min-max", low: 1, high: 2 },
      samples: 5,
    });
    expect(unreadable.map((u) => u.file)).toEqual(["broken.json", "nan.json"]);
    expect(unreadable[1]!.reason).toMatch(/^figures\.0\.value/);
  });

  it("a missing results folder is no results, not an error", async () => {
    expect(await listBenchmarkResults(join(dir, "absent"))).toEqual({ results: [], unreadable: [] });
  });
});
