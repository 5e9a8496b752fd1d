import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DAY_MS, dayPartitionName, planDayPartitions, utcDayStart, type RangePartition } from "./partition-plan";

const T = "metrics_rollup";
const at = (iso: string) => Date.parse(iso);
const day = (iso: string): RangePartition => {
  const fromMs = at(`${iso}T00:00:00Z`);
  return { name: dayPartitionName(T, fromMs), fromMs, toMs: fromMs + DAY_MS };
};

describe("day partition names and day starts", () => {
  it("names a partition by its UTC day", () => {
    expect(dayPartitionName(T, at("2026-12-04T00:00:00Z"))).toBe("metrics_rollup_p20261204");
    expect(dayPartitionName(T, at("2027-01-01T00:00:00Z"))).toBe("metrics_rollup_p20270101");
  });
  it("floors to 00:00 UTC, midnight itself belonging to the new day", () => {
    expect(utcDayStart(at("2026-12-04T00:00:00Z"))).toBe(at("2026-12-04T00:00:00Z"));
    expect(utcDayStart(at("2026-12-03T23:59:59.999Z"))).toBe(at("2026-12-03T00:00:00Z"));
    expect(utcDayStart(-1)).toBe(-DAY_MS);
  });
});

describe("planDayPartitions", () => {
  it("creates today and the days ahead on an empty table", () => {
    const plan = planDayPartitions({
      table: T,
      existing: [],
      nowMs: at("2026-12-04T23:59:00Z"),
      retentionDays: 30,
      aheadDays: 2,
    });
    expect(plan.create.map((p) => p.name)).toEqual([
      "metrics_rollup_p20261204",
      "metrics_rollup_p20261205",
      "metrics_rollup_p20261206",
    ]);
    expect(plan.create[0]).toEqual(day("2026-12-04"));
    expect(plan.drop).toEqual([]);
    // cutoff = 12-04T23:59 − 30 d = 11-04T23:59; the oldest day kept starts at 11-04T00:00.
    expect(plan.keepFromMs).toBe(at("2026-11-04T00:00:00Z"));
  });

  it("is idempotent: applying a plan leaves nothing to do", () => {
    const input = { table: T, existing: [], nowMs: at("2026-12-04T10:00:00Z"), retentionDays: 7, aheadDays: 2 };
    const first = planDayPartitions(input);
    const second = planDayPartitions({ ...input, existing: first.create });
    expect(second.create).toEqual([]);
    expect(second.drop).toEqual([]);
  });

  it("drops a day only once all of it is older than now − retention", () => {
    const existing = [day("2026-11-03"), day("2026-11-04"), day("2026-11-05")];
    // now = 12-04T10:00, retention 30 → cutoff 11-04T10:00: 11-03 ended at 11-04T00:00 ≤ cutoff (dropped);
    // 11-04 ends at 11-05T00:00 > cutoff (kept, though its morning is past the cutoff).
    const plan = planDayPartitions({
      table: T,
      existing,
      nowMs: at("2026-12-04T10:00:00Z"),
      retentionDays: 30,
      aheadDays: 0,
    });
    expect(plan.drop).toEqual(["metrics_rollup_p20261103"]);
    expect(plan.keepFromMs).toBe(at("2026-11-04T00:00:00Z"));
  });

  it("at midnight exactly, the day that just ended is wholly past a retention of 0 days", () => {
    const existing = [day("2026-12-03"), day("2026-12-04")];
    const nowMs = at("2026-12-04T00:00:00Z");
    // cutoff = now: 12-03 ends at 12-04T00:00 ≤ cutoff → dropped; today ends tomorrow → kept.
    const zero = planDayPartitions({ table: T, existing, nowMs, retentionDays: 0, aheadDays: 0 });
    expect(zero.drop).toEqual(["metrics_rollup_p20261203"]);
    expect(zero.create).toEqual([]);
    expect(zero.keepFromMs).toBe(nowMs);
    // One millisecond earlier, 12-03 still has a millisecond in the future of the cutoff.
    const before = planDayPartitions({ table: T, existing, nowMs: nowMs - 1, retentionDays: 0, aheadDays: 0 });
    expect(before.drop).toEqual([]);
  });

  it("retention 1 keeps yesterday until today's same instant", () => {
    const existing = [day("2026-12-02"), day("2026-12-03"), day("2026-12-04")];
    // cutoff = 12-03T12:00: 12-02 (ended 12-03T00:00) goes, 12-03 (ends 12-04T00:00) stays.
    const plan = planDayPartitions({
      table: T,
      existing,
      nowMs: at("2026-12-04T12:00:00Z"),
      retentionDays: 1,
      aheadDays: 1,
    });
    expect(plan.drop).toEqual(["metrics_rollup_p20261202"]);
    expect(plan.create.map((p) => p.name)).toEqual(["metrics_rollup_p20261205"]);
  });

  it("fills gaps and never creates over a wider partition someone attached", () => {
    const wide: RangePartition = {
      name: "metrics_rollup_dec_5_6",
      fromMs: at("2026-12-05T00:00:00Z"),
      toMs: at("2026-12-07T00:00:00Z"),
    };
    const plan = planDayPartitions({
      table: T,
      existing: [day("2026-12-04"), wide],
      nowMs: at("2026-12-04T08:00:00Z"),
      retentionDays: 30,
      aheadDays: 4,
    });
    expect(plan.create.map((p) => p.name)).toEqual(["metrics_rollup_p20261207", "metrics_rollup_p20261208"]);
  });

  it("drops an unbounded-below partition only when its upper bound has passed, never one open above", () => {
    const low: RangePartition = { name: "low", fromMs: -Infinity, toMs: at("2026-10-01T00:00:00Z") };
    const high: RangePartition = { name: "high", fromMs: at("2027-01-01T00:00:00Z"), toMs: Infinity };
    const plan = planDayPartitions({
      table: T,
      existing: [high, low],
      nowMs: at("2026-12-04T08:00:00Z"),
      retentionDays: 30,
      aheadDays: 0,
    });
    expect(plan.drop).toEqual(["low"]);
  });

  it("rejects nonsense", () => {
    const base = { table: T, existing: [], nowMs: 0, retentionDays: 1, aheadDays: 1 };
    expect(() => planDayPartitions({ ...base, retentionDays: -1 })).toThrow(RangeError);
    expect(() => planDayPartitions({ ...base, retentionDays: 1.5 })).toThrow(RangeError);
    expect(() => planDayPartitions({ ...base, aheadDays: -1 })).toThrow(RangeError);
    expect(() => planDayPartitions({ ...base, nowMs: Number.NaN })).toThrow(RangeError);
  });

  it("agrees with a minute-by-minute brute force", () => {
    const t0 = at("2026-11-20T00:00:00Z");
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { maxLength: 20 }),
        // Any minute, or exactly midnight (where a day's end meets the cutoff) as often.
        fc.oneof(
          fc.integer({ min: 0, max: 30 * 1440 }),
          fc.integer({ min: 0, max: 30 }).map((d) => d * 1440),
        ),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: 4 }),
        (dayOffsets, nowMinute, retentionDays, aheadDays) => {
          const existing = dayOffsets.map((d) => {
            const fromMs = t0 + d * DAY_MS;
            return { name: dayPartitionName(T, fromMs), fromMs, toMs: fromMs + DAY_MS };
          });
          const nowMs = t0 + nowMinute * 60_000;
          const plan = planDayPartitions({ table: T, existing, nowMs, retentionDays, aheadDays });
          const cutoffMs = nowMs - retentionDays * DAY_MS;
          // Dropped ⇔ no minute of the partition is at or after the cutoff.
          for (const p of existing) {
            let anyKept = false;
            for (let m = p.fromMs; m < p.toMs; m += 60_000) if (m + 59_999 >= cutoffMs) anyKept = true;
            expect(plan.drop.includes(p.name)).toBe(!anyKept);
          }
          // After the plan, every minute from now to the end of today + aheadDays has exactly one partition.
          const after = [...existing.filter((p) => !plan.drop.includes(p.name)), ...plan.create];
          const horizon = utcDayStart(nowMs) + (aheadDays + 1) * DAY_MS;
          for (let m = nowMs; m < horizon; m += 60 * 60_000) {
            expect(after.filter((p) => p.fromMs <= m && m < p.toMs)).toHaveLength(1);
          }
          // Nothing is created beyond the horizon, and a row older than keepFrom is in no kept day.
          for (const p of plan.create) expect(p.toMs).toBeLessThanOrEqual(horizon);
          expect(plan.keepFromMs).toBeLessThanOrEqual(cutoffMs);
          expect(cutoffMs - plan.keepFromMs).toBeLessThan(DAY_MS);
          for (const p of after) expect(p.toMs).toBeGreaterThan(plan.keepFromMs);
        },
      ),
      { numRuns: 300 },
    );
  });
});
