// Whether an inference request's instance gets a heads-up (ServedModel.headsUp: the instance thread wakes and reads
// its state word in a loop until the request is handed over). The spin hides a futex wake-up (about 40 µs on the
// benchmark host) only when what comes before the hand-off is short: a thread that spins through a long parse takes
// a CPU the parse, the client and the rest of the host need, and on a busy host it uses up the scheduler's credit
// that a thread woken from sleep gets, so it is then preempted during its own session.run.

/**
 * The largest JSON body that gets a heads-up. Parsing JSON tensors costs about 4 µs a KB (60 KB of 3 072 numbers:
 * 250 µs), so past this the spin would outlast the wake-up it hides several times over.
 */
export const JSON_HEADS_UP_MAX_BYTES = 16 * 1024;

/**
 * Whether a JSON body of `declaredBytes` (Content-Length; NaN when chunked) is parsed quickly enough for a heads-up
 * when it arrives. A chunked body's size is unknown until it has been read: none.
 */
export function jsonHeadsUpWorthIt(declaredBytes: number): boolean {
  return Number.isFinite(declaredBytes) && declaredBytes >= 0 && declaredBytes <= JSON_HEADS_UP_MAX_BYTES;
}

/**
 * Whether the host's CPUs are free enough for heads-ups, judged by the hand-offs themselves (Server-Timing compute −
 * run: to the instance thread and back). On idle CPUs a hand-off takes tens of microseconds with or without a
 * heads-up; on contended ones it takes hundreds, and a spinning instance thread makes it worse (the benchmark's
 * tiny CNN at a load average of 7 on 2 CPUs: binary p50 1.7 ms with heads-ups, 0.9 ms without). So heads-ups stop
 * while more than a quarter of the recent hand-offs (a moving share, each new one weighing 1/16) were slow, and
 * start again once the share has decayed (about 20 quick hand-offs after a stretch of slow ones).
 */
export class HeadsUpGate {
  static readonly SLOW_HAND_OFF_MS = 0.2;
  static readonly CLOSED_FROM_SHARE = 0.25;
  static readonly WEIGHT = 1 / 16;
  private slowShare = 0;

  get open(): boolean {
    return this.slowShare < HeadsUpGate.CLOSED_FROM_SHARE;
  }

  /** A lone request's hand-off time (ms); undefined (no instance timing) changes nothing. */
  record(handOffMs: number | undefined): void {
    if (handOffMs === undefined || !Number.isFinite(handOffMs)) return;
    const slow = handOffMs > HeadsUpGate.SLOW_HAND_OFF_MS ? 1 : 0;
    this.slowShare += HeadsUpGate.WEIGHT * (slow - this.slowShare);
  }
}
