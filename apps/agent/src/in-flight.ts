// Inference requests in flight in this serving process, HTTP and gRPC together: from the moment a handler takes
// one until its answer is written. The instances read it to know when a request is alone, and the event loop may
// then block on its answer instead of going round the loop for the wake-up (slab-hand-off.ts, answeredWithin).
export class InFlight {
  private count_ = 0;

  get count(): number {
    return this.count_;
  }

  /** Exactly one request, the caller's own: nothing else would be held up by blocking the event loop. */
  get alone(): boolean {
    return this.count_ === 1;
  }

  enter(): void {
    this.count_++;
  }

  leave(): void {
    // Never below zero: one unbalanced leave would otherwise skew every later count.
    if (this.count_ > 0) this.count_--;
  }

  /** Counts `work` in flight until it settles, whichever way. */
  async around<T>(work: () => Promise<T>): Promise<T> {
    this.enter();
    try {
      return await work();
    } finally {
      this.leave();
    }
  }
}

/** The serving process's one counter (one event loop, one set of instances). */
export const inferencesInFlight = new InFlight();
