// The typed writer: what it stores is what JSON.stringify makes (undefined members drop, Dates become strings), and
// its input type follows the column's schema: read-only arrays pass, a value the reader would refuse does not.
import { describe, expect, it } from "vitest";
import { auditAfterColumn } from "@/contracts/audit-columns";
import { deliveryLogColumn } from "@/contracts/alert-columns";
import { proposalItemsColumn } from "@/contracts/proposal-columns";
import type { StoredJsonValue } from "@/contracts/json-column";
import type { Prisma } from "@/generated/prisma/client";
import { writeJsonColumn, writeOptionalJsonColumn } from "./json-column";

/** The value as the database hands it back. */
const stored = (value: Prisma.InputJsonValue): StoredJsonValue => JSON.parse(JSON.stringify(value)) as StoredJsonValue;

describe("writeJsonColumn", () => {
  it("stores what JSON makes of the value, and its column reads it back", () => {
    const items = [{ count: 1, threads: 2, batch: 4 }] as const;
    const written = writeJsonColumn(proposalItemsColumn, items);
    expect(proposalItemsColumn.read(stored(written))).toEqual([{ count: 1, threads: 2, batch: 4 }]);
    const after = writeJsonColumn(auditAfterColumn, { name: "resnet", note: undefined, tags: ["a"] });
    expect(after).toEqual({ name: "resnet", tags: ["a"] });
    expect(auditAfterColumn.read(stored(after))).toEqual(after);
  });

  it("leaves an optional column out when there is no value", () => {
    expect(writeOptionalJsonColumn(auditAfterColumn, undefined)).toBeUndefined();
    expect(writeOptionalJsonColumn(auditAfterColumn, null)).toBeNull();
  });

  it("refuses at compile time what the reader would refuse", () => {
    // @ts-expect-error ms must be a number
    const log = writeJsonColumn(deliveryLogColumn, [{ at: "2026-12-03T06:00:00.000Z", ms: "slow" }]);
    expect(() => deliveryLogColumn.read(stored(log))).toThrow(/alert_delivery\.log/);
    // @ts-expect-error a Date is not the ISO string the reader expects (stored, it would be one: typed, it is not)
    expect(writeJsonColumn(deliveryLogColumn, [{ at: new Date(0), ms: 1 }])).toEqual([
      { at: "1970-01-01T00:00:00.000Z", ms: 1 },
    ]);
  });
});
