// The leader lease against real PostgreSQL: one of two replicas holds it and keeps it while its connection lives; the
// other takes it once the holder gives it up, and when the holder's connection is killed (the holder learns it lost
// it when its connection ends).
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { pgLeaderLease, type LeaderLease } from "./leader-lease";
import { testEnv } from "../../../test/test-env";

const KEY = 0x7465737465737431n;
const leases: LeaderLease[] = [];
const lease = () => {
  const made = pgLeaderLease(testEnv.DATABASE_URL!, KEY);
  leases.push(made);
  return made;
};

afterAll(async () => {
  for (const l of leases) await l.release();
});

describe("leader lease", () => {
  it("is held by one replica at a time and passes on when the holder releases it or loses its connection", async () => {
    const a = lease();
    const b = lease();
    expect(await a.hold()).toBe(true);
    expect(await b.hold()).toBe(false);
    expect(await a.hold()).toBe(true); // kept while its connection answers
    expect(await b.hold()).toBe(false);

    await a.release();
    expect(a.held).toBe(false);
    expect(await b.hold()).toBe(true);
    expect(await a.hold()).toBe(false);

    // The holder's session ends (a crash, a network cut): PostgreSQL drops the lock with it.
    const admin = new pg.Client({ connectionString: testEnv.DATABASE_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND ((classid::bigint << 32) | objid::bigint) = $1",
        [KEY.toString()],
      );
      expect(rows).toHaveLength(1);
      await admin.query("SELECT pg_terminate_backend($1)", [rows[0].pid]);
    } finally {
      await admin.end();
    }
    // It learns it no longer holds the lease when its connection ends, and the other takes it.
    await vi.waitFor(() => expect(b.held).toBe(false), { timeout: 10_000, interval: 20 });
    await vi.waitFor(async () => expect(await a.hold()).toBe(true), { timeout: 10_000, interval: 50 });
    expect(await b.hold()).toBe(false);
  });
});
