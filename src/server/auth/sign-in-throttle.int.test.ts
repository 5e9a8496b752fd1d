// The limiter's arithmetic with a hand-held clock: 3 failures per (account, client), 5 per client, the account slowed
// after 4 failures to one attempt per 10 s, window 60 s.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import {
  clientKey,
  consumeSignInAttempt,
  emailKey,
  pruneSignInThrottle,
  recordSignInSuccess,
} from "./sign-in-throttle";

const limits = {
  maxFailuresPerClient: 3,
  maxFailuresPerIp: 5,
  accountSlowdownAfter: 4,
  accountSlowdownMs: 10_000,
  windowMs: 60_000,
};
const T0 = Date.parse("2026-11-29T12:00:00.000Z");
const who = () => ({ email: `${randomUUID()}@test.example`, ip: `ip-${randomUUID()}` });
const fromNewClient = (email: string) => ({ email, ip: `ip-${randomUUID()}` });

describe("sign-in throttle (PostgreSQL)", () => {
  it("allows 3 attempts for an (account, client), refuses the 4th with the seconds left in the window", async () => {
    const w = who();
    for (let i = 0; i < 3; i++)
      expect(await consumeSignInAttempt(db(), limits, w, T0 + i * 1000)).toEqual({ allowed: true });
    // Window opened at T0 and lasts 60 s; at T0 + 12.5 s, 47.5 s are left, rounded up to 48.
    expect(await consumeSignInAttempt(db(), limits, w, T0 + 12_500)).toEqual({
      allowed: false,
      retryAfterSeconds: 48,
      key: clientKey(w.email, w.ip),
    });
  });

  it("a client held back on an account leaves the account open to every other client", async () => {
    const attacker = who();
    for (let i = 0; i < 4; i++) await consumeSignInAttempt(db(), limits, attacker, T0);
    expect((await consumeSignInAttempt(db(), limits, attacker, T0 + 1000)).allowed).toBe(false);
    expect(await consumeSignInAttempt(db(), limits, fromNewClient(attacker.email), T0 + 1000)).toEqual({
      allowed: true,
    });
  });

  it("slows an account guessed from many clients, never locks it: one attempt per interval, refused ones take no slot", async () => {
    const { email } = who();
    // 4 failures from 4 clients at once: then the account is slowed.
    for (let i = 0; i < 4; i++)
      expect((await consumeSignInAttempt(db(), limits, fromNewClient(email), T0)).allowed).toBe(true);
    expect(await consumeSignInAttempt(db(), limits, fromNewClient(email), T0 + 2_000)).toEqual({
      allowed: false,
      retryAfterSeconds: 8,
      key: emailKey(email),
    });
    // However many clients hammer it, nothing changes: the next slot is still at T0 + 10 s.
    for (let i = 0; i < 20; i++)
      expect((await consumeSignInAttempt(db(), limits, fromNewClient(email), T0 + 5_000)).allowed).toBe(false);
    expect(await consumeSignInAttempt(db(), limits, fromNewClient(email), T0 + 9_000)).toEqual({
      allowed: false,
      retryAfterSeconds: 1,
      key: emailKey(email),
    });
    expect((await consumeSignInAttempt(db(), limits, fromNewClient(email), T0 + 10_000)).allowed).toBe(true);
    expect((await consumeSignInAttempt(db(), limits, fromNewClient(email), T0 + 10_500)).allowed).toBe(false);
    expect((await consumeSignInAttempt(db(), limits, fromNewClient(email), T0 + 20_000)).allowed).toBe(true);
    // In all, 4 + one per 10 s in the window: 6 so far, and the account row counts exactly those.
    expect((await db().signInThrottle.findUniqueOrThrow({ where: { key: emailKey(email) } })).failures).toBe(6);
    // A new window: the slowdown is over.
    expect((await consumeSignInAttempt(db(), limits, fromNewClient(email), T0 + 60_000)).allowed).toBe(true);
  });

  it("opens a new window once the old one has passed", async () => {
    const w = who();
    for (let i = 0; i < 4; i++) await consumeSignInAttempt(db(), limits, w, T0);
    expect((await consumeSignInAttempt(db(), limits, w, T0 + 59_999)).allowed).toBe(false);
    expect(await consumeSignInAttempt(db(), limits, w, T0 + 60_000)).toEqual({ allowed: true });
    const row = await db().signInThrottle.findUniqueOrThrow({ where: { key: clientKey(w.email, w.ip) } });
    expect(row.failures).toBe(1);
    expect(row.windowStart.toISOString()).toBe(new Date(T0 + 60_000).toISOString()); // stored as UTC
  });

  it("counts a client across accounts: the 6th attempt from one client is refused", async () => {
    const ip = `ip-${randomUUID()}`;
    for (let i = 0; i < 5; i++)
      expect(
        (await consumeSignInAttempt(db(), limits, { email: `${i}-${randomUUID()}@x.example`, ip }, T0)).allowed,
      ).toBe(true);
    expect(await consumeSignInAttempt(db(), limits, { email: `${randomUUID()}@x.example`, ip }, T0 + 30_000)).toEqual({
      allowed: false,
      retryAfterSeconds: 30,
      key: `ip:${ip}`,
    });
  });

  it("treats an email the same in any case", async () => {
    const w = who();
    for (let i = 0; i < 3; i++)
      await consumeSignInAttempt(db(), limits, { ...w, email: i % 2 ? w.email.toUpperCase() : w.email }, T0);
    expect((await consumeSignInAttempt(db(), limits, { ...w, email: ` ${w.email.toUpperCase()} ` }, T0)).allowed).toBe(
      false,
    );
  });

  it("a success clears the account and the pair and gives the client its attempt back", async () => {
    const w = who();
    await consumeSignInAttempt(db(), limits, w, T0);
    await consumeSignInAttempt(db(), limits, w, T0);
    await recordSignInSuccess(db(), w);
    expect(await db().signInThrottle.findUnique({ where: { key: emailKey(w.email) } })).toBeNull();
    expect(await db().signInThrottle.findUnique({ where: { key: clientKey(w.email, w.ip) } })).toBeNull();
    expect((await db().signInThrottle.findUniqueOrThrow({ where: { key: `ip:${w.ip}` } })).failures).toBe(1);
  });

  it("concurrent attempts cannot slip past the limit: of 12 at once from one client, exactly 3 are allowed", async () => {
    const w = who();
    const results = await Promise.all(Array.from({ length: 12 }, () => consumeSignInAttempt(db(), limits, w, T0)));
    expect(results.filter((r) => r.allowed)).toHaveLength(3);
  });

  it("concurrent attempts from 12 clients on one account: exactly the 4 before the slowdown are allowed", async () => {
    const { email } = who();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => consumeSignInAttempt(db(), limits, fromNewClient(email), T0)),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(4);
  });

  it("prunes the rows whose window has passed, and only those", async () => {
    const old = who();
    const fresh = who();
    await consumeSignInAttempt(db(), limits, old, T0 - 120_000);
    await consumeSignInAttempt(db(), limits, fresh, T0);
    expect(await pruneSignInThrottle(db(), limits.windowMs, T0 + 1_000)).toBeGreaterThanOrEqual(3);
    expect(
      await db().signInThrottle.count({
        where: { key: { in: [emailKey(old.email), clientKey(old.email, old.ip), `ip:${old.ip}`] } },
      }),
    ).toBe(0);
    expect(
      await db().signInThrottle.count({
        where: { key: { in: [emailKey(fresh.email), clientKey(fresh.email, fresh.ip), `ip:${fresh.ip}`] } },
      }),
    ).toBe(3);
  });
});
