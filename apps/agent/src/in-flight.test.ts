import { describe, expect, it } from "vitest";
import { InFlight } from "./in-flight";

describe("inference requests in flight", () => {
  it("counts each request from entry to answer, and is alone only with exactly one", () => {
    const inFlight = new InFlight();
    expect(inFlight.count).toBe(0);
    expect(inFlight.alone).toBe(false);
    inFlight.enter();
    expect(inFlight.alone).toBe(true);
    inFlight.enter();
    expect(inFlight.count).toBe(2);
    expect(inFlight.alone).toBe(false);
    inFlight.leave();
    expect(inFlight.alone).toBe(true);
    inFlight.leave();
    expect(inFlight.count).toBe(0);
  });

  it("never goes below zero on an unbalanced leave", () => {
    const inFlight = new InFlight();
    inFlight.leave();
    expect(inFlight.count).toBe(0);
    inFlight.enter();
    expect(inFlight.alone).toBe(true);
  });

  it("counts work while it runs and stops counting it however it settles", async () => {
    const inFlight = new InFlight();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: number[] = [];
    const ok = inFlight.around(async () => {
      seen.push(inFlight.count);
      await gate;
      return "answered";
    });
    const failed = inFlight.around(async () => {
      seen.push(inFlight.count);
      await gate;
      throw new Error("refused");
    });
    expect(inFlight.count).toBe(2);
    release();
    await expect(ok).resolves.toBe("answered");
    await expect(failed).rejects.toThrow("refused");
    expect(seen).toEqual([1, 2]);
    expect(inFlight.count).toBe(0);
  });
});
