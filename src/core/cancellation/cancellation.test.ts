import { describe, expect, it } from "vitest";
import { Cancellation, type WaitSignal } from "./cancellation";

describe("Cancellation", () => {
  it("runs each listener once, at the first abort only", () => {
    const cancellation = new Cancellation();
    const calls: string[] = [];
    cancellation.addEventListener("abort", () => calls.push("a"));
    cancellation.addEventListener("abort", () => calls.push("b"));
    expect(cancellation.aborted).toBe(false);
    cancellation.abort();
    cancellation.abort(); // a second abort is a no-op: nothing runs twice
    expect(calls).toEqual(["a", "b"]);
    expect(cancellation.aborted).toBe(true);
    expect(cancellation.listenerCount()).toBe(0);
  });

  it("does not run a removed listener, and keeps the others", () => {
    const cancellation = new Cancellation();
    const calls: string[] = [];
    const removed = () => calls.push("removed");
    cancellation.addEventListener("abort", removed);
    cancellation.addEventListener("abort", () => calls.push("kept"));
    cancellation.removeEventListener("abort", removed);
    cancellation.removeEventListener("abort", () => calls.push("never added")); // unknown: nothing happens
    expect(cancellation.listenerCount()).toBe(1);
    cancellation.abort();
    expect(calls).toEqual(["kept"]);
  });

  it("holds no listener added after the abort (as an AbortSignal: a wait checks `aborted` first)", () => {
    const cancellation = new Cancellation();
    cancellation.abort();
    let ran = false;
    cancellation.addEventListener("abort", () => (ran = true));
    expect(cancellation.listenerCount()).toBe(0);
    expect(ran).toBe(false);
  });

  it("an AbortSignal is a WaitSignal too", () => {
    const controller = new AbortController();
    const signal: WaitSignal = controller.signal;
    let ran = 0;
    signal.addEventListener("abort", () => ran++);
    controller.abort();
    expect(signal.aborted).toBe(true);
    expect(ran).toBe(1);
  });
});
