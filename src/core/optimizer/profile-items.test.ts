import { describe, expect, it } from "vitest";
import { validateProfile } from "../profile/profile";
import { P1 } from "./fixtures/digest-profiles";
import { buildItems } from "./profile-items";

describe("buildItems", () => {
  it("digest P1 under ⟨T=3, B=2⟩ keeps the six cells t ≤ 3, b ≤ 2 in (t, b) order", () => {
    const items = buildItems(validateProfile(P1), 3, 2);
    // P1 rows t=1: 10, 19; t=2: 6, 11; t=3: 4.8, 8.5 (b = 4 and t = 4 do not fit).
    expect([...items.threads]).toEqual([1, 1, 2, 2, 3, 3]);
    expect([...items.batch]).toEqual([1, 2, 1, 2, 1, 2]);
    // Distinct latencies ascending: 4.8 < 6 < 8.5 < 10 < 11 < 19.
    expect([...items.values]).toEqual([4.8, 6, 8.5, 10, 11, 19]);
    // Ranks map each cell back to its own latency: 10 → 3, 19 → 5, 6 → 1, 11 → 4, 4.8 → 0, 8.5 → 2.
    expect([...items.rank]).toEqual([3, 5, 1, 4, 0, 2]);
  });

  it("gives equal latencies one rank, so ties compare as equal integers", () => {
    const items = buildItems(
      validateProfile([
        { threads: 1, batch: 1, latencyMs: 5 },
        { threads: 2, batch: 2, latencyMs: 5 },
        { threads: 1, batch: 2, latencyMs: 7 },
      ]),
      2,
      2,
    );
    expect([...items.values]).toEqual([5, 7]);
    // Canonical order ⟨1,1⟩, ⟨1,2⟩, ⟨2,2⟩ → latencies 5, 7, 5 → ranks 0, 1, 0.
    expect([...items.rank]).toEqual([0, 1, 0]);
  });

  it("is empty when nothing fits", () => {
    const items = buildItems(validateProfile(P1), 4, 0);
    expect(items.threads.length).toBe(0);
    expect(items.values.length).toBe(0);
  });
});
