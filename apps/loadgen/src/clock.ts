// Time for the runners: the real clock (performance.now, timers) or a virtual one in tests. Sleeping until an
// intended send time uses a timer for all but the last millisecond, then yields (setImmediate, which still serves
// I/O) until the time comes: timers alone fire up to a millisecond or more late, and lateness is latency.
import { setImmediate as yieldToLoop, setTimeout as sleep } from "node:timers/promises";

export interface Clock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Resolves at or after `atMs` (never before). */
  sleepUntil(atMs: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => performance.now(),
  async sleepUntil(atMs: number) {
    for (;;) {
      const wait = atMs - performance.now();
      if (wait <= 0) return;
      if (wait > 1.5) await sleep(wait - 1);
      else await yieldToLoop();
    }
  },
};

/**
 * A virtual clock for deterministic tests: time moves only when `advance()` jumps it to the next sleeper, after the
 * event loop has run everything already runnable.
 */
export class FakeClock implements Clock {
  private time = 0;
  private sleepers: Array<{ at: number; wake: () => void }> = [];

  now(): number {
    return this.time;
  }

  sleepUntil(atMs: number): Promise<void> {
    if (atMs <= this.time) return Promise.resolve();
    return new Promise((wake) => this.sleepers.push({ at: atMs, wake }));
  }

  /** Lets pending promise chains run, then wakes the earliest sleepers; false when nobody sleeps. */
  async advance(): Promise<boolean> {
    for (let i = 0; i < 5; i++) await yieldToLoop();
    if (this.sleepers.length === 0) return false;
    const at = Math.min(...this.sleepers.map((s) => s.at));
    this.time = at;
    const due = this.sleepers.filter((s) => s.at <= at);
    this.sleepers = this.sleepers.filter((s) => s.at > at);
    for (const s of due) s.wake();
    return true;
  }

  /** Runs `task` to completion on virtual time. */
  async run<T>(task: Promise<T>): Promise<T> {
    let done = false;
    const result = task.finally(() => {
      done = true;
    });
    while (!done) {
      if (!(await this.advance()) && !done) {
        for (let i = 0; i < 20 && !done; i++) await yieldToLoop();
        if (!done && this.sleepers.length === 0)
          throw new Error("FakeClock: the task waits on something other than the clock");
      }
    }
    return result;
  }
}
