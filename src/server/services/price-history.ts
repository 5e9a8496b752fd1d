// Hardware price history (pure): which price was in effect at a minute of usage, and the epochs between price
// changes that the cost report groups the per-minute rollups by, so each piece of past usage is priced at its own
// price rather than today's.

export interface PriceChange {
  /** Insertion order: breaks a tie between changes of one class at the same instant (the later one wins). */
  id: bigint | number;
  hardwareClass: string;
  /** null: the price was removed (no price from then on). */
  hourlyUsd: number | null;
  demo: boolean;
  effectiveFrom: Date;
}

export interface PriceInEffect {
  hourlyUsd: number;
  demo: boolean;
}

const MINUTE_MS = 60_000;

/** Rollups are per minute, so a change applies to the whole minute it was made in (and every minute after it). */
export function effectiveMinuteMs(effectiveFrom: Date): number {
  return Math.floor(effectiveFrom.getTime() / MINUTE_MS) * MINUTE_MS;
}

/**
 * The price history of every class, indexed for the report. `thresholds` are the distinct effective minutes of
 * all changes, ascending: SQL's `width_bucket(minute, thresholds)` numbers a minute's epoch e (thresholds[e-1] ≤
 * minute < thresholds[e]; 0 before the first). No class changes price inside an epoch, so one price per class
 * covers it.
 */
export class PriceHistory {
  readonly thresholds: readonly number[];
  private readonly byClass = new Map<string, Array<{ minute: number; price: PriceInEffect | null }>>();

  constructor(changes: readonly PriceChange[]) {
    const sorted = [...changes].sort(
      (a, b) => a.effectiveFrom.getTime() - b.effectiveFrom.getTime() || Number(BigInt(a.id) - BigInt(b.id)),
    );
    for (const c of sorted) {
      const list = this.byClass.get(c.hardwareClass) ?? [];
      list.push({
        minute: effectiveMinuteMs(c.effectiveFrom),
        price: c.hourlyUsd === null ? null : { hourlyUsd: c.hourlyUsd, demo: c.demo },
      });
      this.byClass.set(c.hardwareClass, list);
    }
    this.thresholds = [...new Set(sorted.map((c) => effectiveMinuteMs(c.effectiveFrom)))];
  }

  /** The class's latest change effective at or before the minute; null before its first change or after a removal. */
  priceAt(hardwareClass: string, minuteMs: number): PriceInEffect | null {
    let found: PriceInEffect | null = null;
    for (const c of this.byClass.get(hardwareClass) ?? []) {
      if (c.minute > minuteMs) break;
      found = c.price;
    }
    return found;
  }

  /** The class's price over width_bucket's epoch e: the one in effect at the epoch's first minute. */
  priceInEpoch(hardwareClass: string, epoch: number): PriceInEffect | null {
    if (epoch <= 0) return null;
    const start = this.thresholds[epoch - 1];
    if (start === undefined) throw new RangeError(`epoch ${epoch} is past the ${this.thresholds.length} thresholds`);
    return this.priceAt(hardwareClass, start);
  }
}
