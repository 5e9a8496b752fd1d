import { describe, expect, it } from "vitest";
import { speedupBars, speedupRows } from "./speedup-data";

const figures = [
  { label: "mean batch latency, Packrat ⟨1,1,1⟩, tiny CNN, B=1", value: 1.1 },
  {
    label: "speedup of Packrat over ⟨1,2,B⟩ (mean latency, paired per repetition), tiny CNN, B=1",
    value: 1.25,
    spread: { kind: "min-max", low: 0.9, high: 1.6 },
  },
  {
    label: "speedup of Packrat over one-thread (mean latency, paired per repetition), tiny CNN, B=1",
    value: 0.98,
    spread: { kind: "min-max", low: 0.8, high: 1.1 },
  },
  {
    label: "speedup of Packrat over ⟨1,2,B⟩ (mean latency, paired per repetition), ResNet-50 224×224, B=8",
    value: 1.4,
  },
  { label: "geometric mean over every model and B of the median speedup of Packrat over ⟨1,2,B⟩", value: 1.2 },
];

describe("speedupBars", () => {
  it("keeps only the per-model, per-B speedups, naming the baseline and the B", () => {
    expect(speedupBars(figures)).toEqual([
      { group: "tiny CNN, B=1", model: "tiny CNN", batch: 1, baseline: "default", value: 1.25, low: 0.9, high: 1.6 },
      { group: "tiny CNN, B=1", model: "tiny CNN", batch: 1, baseline: "one-thread", value: 0.98, low: 0.8, high: 1.1 },
      {
        group: "ResNet-50 224×224, B=8",
        model: "ResNet-50 224×224",
        batch: 8,
        baseline: "default",
        value: 1.4,
        low: null,
        high: null,
      },
    ]);
  });
});

describe("speedupRows", () => {
  it("puts both baselines of one model × B on one row; a missing one stays null", () => {
    expect(speedupRows(speedupBars(figures))).toEqual([
      {
        group: "tiny CNN, B=1",
        vsDefault: 1.25,
        vsOneThread: 0.98,
        defaultRange: [0.9, 1.6],
        oneThreadRange: [0.8, 1.1],
      },
      { group: "ResNet-50 224×224, B=8", vsDefault: 1.4, vsOneThread: null, defaultRange: null, oneThreadRange: null },
    ]);
  });
});
