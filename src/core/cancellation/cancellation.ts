// A wait's cancellation, the part of AbortSignal a wait reads (an AbortSignal is one), and a cheap one of our own:
// no event machinery, for a long-poll held open by the thousand.

/** What a wait reads of its cancellation: an AbortSignal, or a Cancellation. */
export interface WaitSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** A WaitSignal that `abort()` sets once; its listeners run then, each once. */
export class Cancellation implements WaitSignal {
  aborted = false;
  private listeners: (() => void)[] = [];

  addEventListener(_type: "abort", listener: () => void): void {
    if (!this.aborted) this.listeners.push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const at = this.listeners.indexOf(listener);
    if (at !== -1) this.listeners.splice(at, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }

  /** Listeners registered and not yet run or removed. */
  listenerCount(): number {
    return this.listeners.length;
  }
}
