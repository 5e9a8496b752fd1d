import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stableMode } from "./stable-mode";

describe("stableMode", () => {
  it("digest §5.9 E1 x = 8: [16, 16, 32, 32, 32] → 32 (no tie)", () => {
    expect(stableMode([16, 16, 32, 32, 32], 16)).toBe(32);
  });
  it("digest §5.9 E2 x = 4: [8, 8, 16, 16] ties 8 and 16; the current B 8 is among them → 8", () => {
    expect(stableMode([8, 8, 16, 16], 8)).toBe(8);
  });
  it("digest §5.9 E2 x = 5: [8, 16, 16, 8] ties; current 8 → 8", () => {
    expect(stableMode([8, 16, 16, 8], 8)).toBe(8);
  });
  it('digest §5.9 E2 note: with "most recent" alone (current not tied), x = 4 → 16 and x = 5 → 8, a flip-flop', () => {
    expect(stableMode([8, 8, 16, 16], 4)).toBe(16);
    expect(stableMode([8, 16, 16, 8], 4)).toBe(8);
    expect(stableMode([8, 16, 16, 8], null)).toBe(8);
  });
  it("an empty ring has no mode", () => {
    expect(stableMode([], 8)).toBeNull();
  });
  it("returns a most frequent value; the current one whenever it is most frequent (property, brute force)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(1, 2, 4, 8, 16), { minLength: 1, maxLength: 12 }),
        fc.constantFrom(1, 2, 4, 8, 16),
        (ring: number[], current: number) => {
          const count = (b: number) => ring.filter((x) => x === b).length;
          const best = Math.max(...ring.map(count));
          const mode = stableMode(ring, current)!;
          expect(count(mode)).toBe(best);
          if (count(current) === best) expect(mode).toBe(current);
          else {
            // Most recent of the tied values: none of them appears after the chosen one's last position.
            const last = ring.lastIndexOf(mode);
            expect(ring.slice(last + 1).some((b) => count(b) === best)).toBe(false);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
