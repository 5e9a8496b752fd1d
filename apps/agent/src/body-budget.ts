// The bytes of request bodies one serving process holds at once (being received or parsed). Past the budget a
// request is answered 503 + Retry-After instead of read, so many parallel uploads cannot add up to an
// out-of-memory kill. A JSON body is charged JSON_HEAP_FACTOR times its size: parsing and validating it holds
// the bytes, the decoded string, the parsed number arrays and their validated copy at once; a binary tensor body
// is charged its size. With the defaults one 64 MiB JSON body is parsed at a time (bench/results/reliability.json:
// 16 in parallel peaked at 837 MiB RSS in the serving process, inference of its 2 427 rows included).
export const JSON_HEAP_FACTOR = 4;

export class BodyBudget {
  private held = 0;
  peak = 0;
  constructor(readonly limitBytes: number) {}

  /** Takes `bytes` of the budget, or nothing and false when they do not fit. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.limitBytes) return false;
    this.held += bytes;
    this.peak = Math.max(this.peak, this.held);
    return true;
  }

  give(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }

  get heldBytes(): number {
    return this.held;
  }
}

/** One request's share of the budget: charged as its body arrives, given back once, when the request is parsed or fails. */
export class BodyCharge {
  private charged = 0;
  constructor(
    private readonly budget: BodyBudget,
    private readonly factor: number,
  ) {}

  take(bytes: number): boolean {
    const cost = bytes * this.factor;
    if (!this.budget.take(cost)) return false;
    this.charged += cost;
    return true;
  }

  release(): void {
    this.budget.give(this.charged);
    this.charged = 0;
  }
}
