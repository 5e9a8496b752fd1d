import { describe, expect, it } from "vitest";
import { checkBenchResult, checkPackratResult } from "./bench-result-check";

const machine = {
  cpuModel: "x",
  logicalCpus: 2,
  memoryBytes: 1,
  platform: "linux",
  kernel: "k",
  node: "v20",
  versions: {},
};
const base = () => ({
  name: "packrat",
  description: "d",
  date: "2026-11-29T10:00:00.000Z",
  quick: true,
  durationS: 90,
  machine,
  figures: [] as Array<Record<string, unknown>>,
  tables: [] as Array<{ title: string; columns: string[]; rows: Array<Array<string | number>> }>,
  notes: ["n"],
});

/** A well-formed quick result for one model at B = 1 and 2: three figures per B, and its "What ran" row. */
function packratResult() {
  const r = base();
  for (const b of [1, 2]) {
    r.figures.push({
      label: `mean batch latency, Packrat ⟨1,2,${b}⟩, tiny CNN, B=${b}`,
      value: 1.2,
      unit: "ms",
      spread: { kind: "min-max", low: 1, high: 2 },
      samples: 5,
    });
    r.figures.push({
      label: `speedup of Packrat over ⟨1,2,B⟩ (mean latency, paired per repetition), tiny CNN, B=${b}`,
      value: 1,
      unit: "×",
    });
    r.figures.push({
      label: `speedup of Packrat over one-thread (mean latency, paired per repetition), tiny CNN, B=${b}`,
      value: 1.1,
      unit: "×",
    });
  }
  r.tables.push({
    title: "What ran",
    columns: ["model", "status", "profile s", "B served", "requests per block", "affinity"],
    rows: [["tiny CNN", "ran", 3.1, "1, 2", "60, 60", "true"]],
  });
  return r;
}

describe("checkBenchResult", () => {
  it("a well-formed result has no problems", () => {
    expect(checkBenchResult(packratResult(), "packrat")).toEqual([]);
  });

  it("names a figure whose value is not finite (JSON writes NaN and Infinity as null)", () => {
    const r = packratResult();
    r.figures[1]!.value = null;
    const problems = checkBenchResult(r);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("figures[1].value");
    expect(problems[0]).toContain("speedup of Packrat over ⟨1,2,B⟩");
  });

  it("catches a non-finite spread bound and a ragged table row", () => {
    const r = packratResult();
    r.figures[0]!.spread = { kind: "min-max", low: 1, high: null };
    r.tables[0]!.rows.push(["tiny MLP", "ran"]);
    const problems = checkBenchResult(r);
    expect(problems.some((p) => p.startsWith("figures[0].spread.high"))).toBe(true);
    expect(problems.some((p) => p.startsWith("tables[0].rows[1]: 2 cells for 6 columns"))).toBe(true);
  });

  it("refuses an empty figure list, a wrong name and a non-object", () => {
    const r = packratResult();
    r.figures = [];
    expect(checkBenchResult(r)).toContain("figures: missing or empty");
    expect(checkBenchResult(packratResult(), "agent")[0]).toMatch(/^name: "packrat", expected "agent"/);
    expect(checkBenchResult([1, 2])).toEqual(["the result is not a JSON object"]);
  });
});

describe("checkPackratResult", () => {
  it("accepts a model that ran B = 1, 2 with every figure", () => {
    expect(checkPackratResult(packratResult(), { models: ["tiny CNN"], batches: [1, 2], quick: true })).toEqual([]);
  });

  it("reports a model that did not run, a missing B and a missing speedup", () => {
    const r = packratResult();
    r.figures = r.figures.filter(
      (f) =>
        !(f.label as string).startsWith(
          "speedup of Packrat over one-thread (mean latency, paired per repetition), tiny CNN, B=2",
        ),
    );
    const problems = checkPackratResult(r, { models: ["tiny CNN", "tiny MLP"], batches: [1, 2, 4] });
    expect(problems).toContain("What ran: no row for tiny MLP");
    expect(problems).toContain("What ran: tiny CNN served B = 1, 2, expected 1, 2, 4");
    expect(problems).toContain('figures: none "speedup of Packrat over one-thread…" for tiny CNN, B=2');
    expect(problems).toContain('figures: none "mean batch latency, Packrat…" for tiny CNN, B=4');
  });

  it("reports a failed model and a full run where a quick one was expected", () => {
    const r = packratResult();
    r.quick = false;
    r.tables[0]!.rows[0]![1] = "failed: agent exited";
    const problems = checkPackratResult(r, { models: ["tiny CNN"], batches: [1, 2], quick: true });
    expect(problems).toEqual(["quick: false, expected true", 'What ran: tiny CNN is "failed: agent exited"']);
  });
});
