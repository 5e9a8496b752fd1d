import { describe, expect, it } from "vitest";
import { FakeClock, realClock } from "./clock";

describe("realClock.sleepUntil", () => {
  it("never wakes before the time asked for", async () => {
    for (const ahead of [0.3, 2, 5]) {
      const at = realClock.now() + ahead;
      await realClock.sleepUntil(at);
      expect(realClock.now()).toBeGreaterThanOrEqual(at);
    }
  });
});

describe("FakeClock", () => {
  it("jumps to each sleeper in time order, running the promise chains between", async () => {
    const clock = new FakeClock();
    const woke: Array<[string, number]> = [];
    const task = Promise.all([
      clock.sleepUntil(30).then(() => woke.push(["a", clock.now()])),
      clock.sleepUntil(10).then(async () => {
        woke.push(["b", clock.now()]);
        await clock.sleepUntil(25);
        woke.push(["c", clock.now()]);
      }),
    ]);
    await clock.run(task);
    expect(woke).toEqual([
      ["b", 10],
      ["c", 25],
      ["a", 30],
    ]);
  });

  it("says so when a task waits on something other than the clock", async () => {
    await expect(new FakeClock().run(new Promise(() => {}))).rejects.toThrow(/other than the clock/);
  });
});
