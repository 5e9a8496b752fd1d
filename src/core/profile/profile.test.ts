import { describe, expect, it } from "vitest";
import { describeCellProblem, ProfileError, validateProfile } from "./profile";

describe("validateProfile", () => {
  it("returns a frozen copy sorted by (threads, batch)", () => {
    const profile = validateProfile([
      { threads: 2, batch: 1, latencyMs: 6 },
      { threads: 1, batch: 4, latencyMs: 37 },
      { threads: 1, batch: 1, latencyMs: 10 },
    ]);
    expect(profile.map((cell) => [cell.threads, cell.batch])).toEqual([
      [1, 1],
      [1, 4],
      [2, 1],
    ]);
    expect(Object.isFrozen(profile)).toBe(true);
    expect(Object.isFrozen(profile[0])).toBe(true);
  });

  it("rejects a duplicate ⟨t, b⟩ cell, naming both positions", () => {
    const attempt = () =>
      validateProfile([
        { threads: 1, batch: 2, latencyMs: 19 },
        { threads: 1, batch: 2, latencyMs: 20 },
      ]);
    expect(attempt).toThrow(ProfileError);
    expect(attempt).toThrow(/cell 1: duplicate cell threads=1, batch=2 \(first at cell 0\)/);
  });

  it.each([
    [{ threads: 0, batch: 1, latencyMs: 1 }, /threads must be a positive integer/],
    [{ threads: 1.5, batch: 1, latencyMs: 1 }, /threads must be a positive integer/],
    [{ threads: 1, batch: -2, latencyMs: 1 }, /batch must be a positive integer/],
    [{ threads: 1, batch: 1, latencyMs: -3 }, /latency_ms must be a finite number > 0/],
    [{ threads: 1, batch: 1, latencyMs: 0 }, /latency_ms must be a finite number > 0/],
    [{ threads: 1, batch: 1, latencyMs: Number.NaN }, /latency_ms/],
    [{ threads: 1, batch: 1, latencyMs: Number.POSITIVE_INFINITY }, /latency_ms/],
  ])("rejects %o with a typed error on parameter 'profile'", (cell, message) => {
    try {
      validateProfile([cell]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ProfileError);
      expect((error as ProfileError).code).toBe("invalid_cell");
      expect((error as ProfileError).parameter).toBe("profile");
      expect((error as ProfileError).index).toBe(0);
      expect((error as Error).message).toMatch(message);
    }
  });

  it("accepts an empty profile (the optimizer then reports infeasible)", () => {
    expect(validateProfile([])).toEqual([]);
  });
});

describe("describeCellProblem", () => {
  it("is undefined for a usable cell", () => {
    expect(describeCellProblem({ threads: 16, batch: 1024, latencyMs: 3425.2925 })).toBeUndefined();
  });
  it("names a non-numeric latency", () => {
    expect(describeCellProblem({ threads: 1, batch: 1, latencyMs: "fast" })).toMatch(/latency_ms .* got fast/);
  });
});
