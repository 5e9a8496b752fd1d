import { describe, expect, it } from "vitest";
import { canonicalProfileText, hashString, profileHash } from "./profile-hash";

const cells = [
  { threads: 1, batch: 1, latencyMs: 10 },
  { threads: 2, batch: 1, latencyMs: 6 },
  { threads: 1, batch: 2, latencyMs: 19 },
];

describe("profileHash", () => {
  it("ignores the order of cells", () => {
    expect(profileHash([...cells].reverse())).toBe(profileHash(cells));
  });
  it("changes when one latency changes in the last digit", () => {
    const nudged = cells.map((cell, i) => (i === 1 ? { ...cell, latencyMs: 6.000000000000001 } : cell));
    expect(profileHash(nudged)).not.toBe(profileHash(cells));
  });
  it("changes when a cell moves to another batch size", () => {
    const moved = cells.map((cell, i) => (i === 2 ? { ...cell, batch: 4 } : cell));
    expect(profileHash(moved)).not.toBe(profileHash(cells));
  });
  it("is two fixed-width 14-hex-digit lanes", () => {
    expect(profileHash(cells)).toMatch(/^[0-9a-f]{28}$/);
    expect(hashString("")).toMatch(/^[0-9a-f]{28}$/);
    expect(hashString("a")).not.toBe(hashString("b"));
  });
  it("hashes the canonical text: one 't,b,latency' line per cell in (t, b) order", () => {
    expect(canonicalProfileText(cells)).toBe("1,1,10\n1,2,19\n2,1,6");
  });
  it("rejects an invalid profile instead of hashing it", () => {
    expect(() => profileHash([{ threads: 1, batch: 1, latencyMs: -1 }])).toThrow(/latency_ms/);
  });
});
