import { describe, expect, it } from "vitest";
import { validateProfile } from "../profile/profile";
import { enumeratePlans } from "../optimizer/exhaustive-search";
import { P1, P2 } from "../optimizer/fixtures/digest-profiles";
import { Prng } from "../stats/prng";
import { isolatedPrediction, shapeKey, topPlans, trialCandidates } from "./candidate-plans";

const p1 = validateProfile(P1);

describe("topPlans", () => {
  it("P1, T=4, B=2: makespans 6 {⟨2,1⟩×2}, 7.2 ⟨4,2⟩, 8.5 ⟨3,2⟩ come first (then 10, 10, 10, 11, 19)", () => {
    // Singles ⟨t,2⟩: 19, 11, 8.5, 7.2; pairs of b = 1: t (1,1) max(10,10) = 10, (1,2) 10, (1,3) 10, (2,2) max(6,6) = 6.
    expect(topPlans(p1, { cores: 4, batch: 2, k: 3 })).toEqual([
      { key: "⟨2,2,1⟩", predictedMs: 6, groups: [{ count: 2, threads: 2, batch: 1 }] },
      { key: "⟨1,4,2⟩", predictedMs: 7.2, groups: [{ count: 1, threads: 4, batch: 2 }] },
      { key: "⟨1,3,2⟩", predictedMs: 8.5, groups: [{ count: 1, threads: 3, batch: 2 }] },
    ]);
  });
  it("ties at 10 (P1, T=4, B=3): 2 instances first, then of the 3-instance ones the fewest threads", () => {
    // {⟨1,1⟩, ⟨3,2⟩}: max(10, 8.5) = 10, 2 instances; {⟨1,1⟩×3}: 10, 3 instances on 3 threads; {⟨1,1⟩×2, ⟨2,1⟩}: 10, 4 threads.
    const top = topPlans(p1, { cores: 4, batch: 3, k: 3 });
    expect(top.map((p) => [p.key, p.predictedMs])).toEqual([
      ["⟨1,1,1⟩+⟨1,3,2⟩", 10],
      ["⟨3,1,1⟩", 10],
      ["⟨2,1,1⟩+⟨1,2,1⟩", 10],
    ]);
  });
  it("agrees with the exhaustive enumeration on random profiles (the k smallest makespans, in order)", () => {
    const prng = new Prng(30);
    const rand = () => prng.uniform();
    for (let trial = 0; trial < 60; trial++) {
      const cores = 1 + Math.floor(rand() * 4);
      const batches = [1, 2, 4].filter(() => rand() < 0.8);
      if (!batches.length) continue;
      const profile = validateProfile(
        Array.from({ length: cores }, (_, t) =>
          batches.map((b) => ({ threads: t + 1, batch: b, latencyMs: Math.round(1 + (rand() * 50 * b) / (t + 1)) })),
        ).flat(),
      );
      const batch = 1 + Math.floor(rand() * 6);
      const k = 1 + Math.floor(rand() * 4);
      const all = enumeratePlans(profile, cores, batch, false)
        .map((p) => p.latencyMs)
        .sort((a, b) => a - b);
      expect(topPlans(profile, { cores, batch, k }).map((p) => p.predictedMs)).toEqual(all.slice(0, k));
    }
  });
  it("returns nothing when nothing fills B (b = 3 from even sizes only) and rejects bad options", () => {
    expect(topPlans(validateProfile([{ threads: 1, batch: 2, latencyMs: 1 }]), { cores: 1, batch: 3, k: 3 })).toEqual(
      [],
    );
    expect(() => topPlans(p1, { cores: 0, batch: 2, k: 1 })).toThrow(/cores/);
    expect(() => topPlans(p1, { cores: 2, batch: 2, k: 0 })).toThrow(/k:/);
  });
  it("a node budget bounds a wide search and still returns plans it found", () => {
    const wide = validateProfile(
      Array.from({ length: 16 }, (_, t) =>
        [1, 2, 4, 8, 16, 32].map((b) => ({ threads: t + 1, batch: b, latencyMs: (b * 10) / (t + 1) ** 0.8 })),
      ).flat(),
    );
    const top = topPlans(wide, { cores: 16, batch: 64, k: 3, nodeBudget: 20_000 });
    expect(top.length).toBe(3);
    expect(top[0]!.predictedMs).toBeLessThanOrEqual(top[2]!.predictedMs);
  });
});

describe("trialCandidates", () => {
  it("P2, T=6, B=6: the top 3, then ⟨1,6,6⟩ (not profiled at b = 6: no prediction) and the running plan", () => {
    const p2 = validateProfile(P2);
    const c = trialCandidates(p2, {
      cores: 6,
      batch: 6,
      k: 3,
      running: [
        { count: 1, threads: 4, batch: 4 },
        { count: 1, threads: 2, batch: 2 },
      ],
    });
    // Top makespan 10 = {⟨2,2⟩×3} (3 instances); ⟨1,6,6⟩ lacks L[6][6]; running ⟨1,2,2⟩+⟨1,4,4⟩ = max(10, 11.5) = 11.5.
    expect(c[0]).toMatchObject({ key: "⟨3,2,2⟩", rank: 1, predictedMs: 10, roles: ["rank"] });
    expect(c.slice(3).map((x) => [x.key, x.predictedMs, x.roles])).toEqual([
      ["⟨1,6,6⟩", null, ["all-threads"]],
      ["⟨1,2,2⟩+⟨1,4,4⟩", 11.5, ["running"]],
    ]);
  });
  it("a running plan equal to a ranked one is one candidate with both roles", () => {
    const c = trialCandidates(p1, {
      cores: 4,
      batch: 2,
      k: 2,
      running: [
        { count: 1, threads: 2, batch: 1 },
        { count: 1, threads: 2, batch: 1 },
      ],
    });
    expect(c.map((x) => [x.key, x.roles])).toEqual([
      ["⟨2,2,1⟩", ["rank", "running"]],
      ["⟨1,4,2⟩", ["rank", "all-threads"]],
    ]);
  });
  it("shapeKey merges groups; isolatedPrediction is the slowest cell", () => {
    expect(
      shapeKey([
        { count: 1, threads: 1, batch: 2 },
        { count: 1, threads: 1, batch: 2 },
      ]),
    ).toBe("⟨2,1,2⟩");
    expect(
      isolatedPrediction(p1, [
        { count: 1, threads: 1, batch: 1 },
        { count: 1, threads: 3, batch: 2 },
      ]),
    ).toBe(10); // max(10, 8.5)
  });
});
