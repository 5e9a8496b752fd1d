import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mergeTimeline } from "./timeline-window";

const at = (...ts: number[]) => ts.map((tMs) => ({ tMs }));

describe("mergeTimeline", () => {
  it("appends the decisions newer than the window's last and keeps the newest max: [1,2,3] + [3,4,5] (max 4) → [2,3,4,5]", () => {
    expect(mergeTimeline(at(1, 2, 3), at(3, 4, 5), 4)).toEqual(at(2, 3, 4, 5));
  });

  it("a repeated heartbeat adds nothing: [1,2] + [1,2] → [1,2]", () => {
    expect(mergeTimeline(at(1, 2), at(1, 2), 10)).toEqual(at(1, 2));
  });

  it("sorts and de-duplicates what arrives out of order: [] + [3,1,3,2] → [1,2,3]", () => {
    expect(mergeTimeline([], at(3, 1, 3, 2), 10)).toEqual(at(1, 2, 3));
  });

  it("equals the newest max distinct times of everything seen (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 8 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 12 }),
        (batches, max) => {
          // Heartbeats only ever bring decisions made after the previous ones: make each batch strictly later.
          let offset = 0;
          let window: Array<{ tMs: number }> = [];
          const all: number[] = [];
          for (const b of batches) {
            const shifted = b.map((t) => t + offset);
            all.push(...shifted);
            window = mergeTimeline(window, at(...shifted), max);
            offset += 100;
          }
          const expected = [...new Set(all)].sort((a, b) => a - b).slice(-max);
          expect(window.map((d) => d.tMs)).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("refuses max 0 and a NaN time, naming them", () => {
    expect(() => mergeTimeline([], at(1), 0)).toThrow(/max/);
    expect(() => mergeTimeline([], at(Number.NaN), 3)).toThrow(/tMs/);
  });
});
