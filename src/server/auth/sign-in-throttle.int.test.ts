// The limiter's arithmetic with a hand-held clock: max 3 failures per email, 5 per IP, window 60 s.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { consumeSignInAttempt, recordSignInSuccess } from "./sign-in-throttle";

const limits = { maxFailuresPerEmail: 3, maxFailuresPerIp: 5, windowMs: 60_000 };
const T0 = Date.parse("2026-11-29T12:00:00.000Z");
const who = () => ({ email: `${randomUUID()}@test.example`, ip: `ip-${randomUUID()}` });

describe("sign-in throttle (PostgreSQL)", () => {
  it("allows 3 attempts for an email, refuses the 4th with the seconds left in the window", async () => {
    const w = who();
    for (let i = 0; i < 3; i++) expect(await consumeSignInAttempt(db(), limits, w, T0 + i * 1000)).toEqual({ allowed: true });
    // Window opened at T0 and lasts 60 s; at T0 + 12.5 s, 47.5 s are left, rounded up to 48.
    expect(await consumeSignInAttempt(db(), limits, w, T0 + 12_500)).toEqual({ allowed: false, retryAfterSeconds: 48, key: `email:${w.email}` });
  });

  it("opens a new window once the old one has passed", async () => {
    const w = who();
    for (let i = 0; i < 4; i++) await consumeSignInAttempt(db(), limits, w, T0);
    expect((await consumeSignInAttempt(db(), limits, w, T0 + 59_999)).allowed).toBe(false);
    expect(await consumeSignInAttempt(db(), limits, w, T0 + 60_000)).toEqual({ allowed: true });
    const row = await db().signInThrottle.findUniqueOrThrow({ where: { key: `email:${w.email}` } });
    expect(row.failures).toBe(1);
    expect(row.windowStart.toISOString()).toBe(new Date(T0 + 60_000).toISOString()); // stored as UTC
  });

  it("counts an IP across emails: the 6th attempt from one IP is refused", async () => {
    const ip = `ip-${randomUUID()}`;
    for (let i = 0; i < 5; i++) expect((await consumeSignInAttempt(db(), limits, { email: `${i}-${randomUUID()}@x.example`, ip }, T0)).allowed).toBe(true);
    expect(await consumeSignInAttempt(db(), limits, { email: `${randomUUID()}@x.example`, ip }, T0 + 30_000)).toEqual({ allowed: false, retryAfterSeconds: 30, key: `ip:${ip}` });
  });

  it("treats an email the same in any case", async () => {
    const w = who();
    for (let i = 0; i < 3; i++) await consumeSignInAttempt(db(), limits, { ...w, email: i % 2 ? w.email.toUpperCase() : w.email }, T0);
    expect((await consumeSignInAttempt(db(), limits, { ...w, email: ` ${w.email.toUpperCase()} ` }, T0)).allowed).toBe(false);
  });

  it("a success clears the email and gives the IP its attempt back", async () => {
    const w = who();
    await consumeSignInAttempt(db(), limits, w, T0);
    await consumeSignInAttempt(db(), limits, w, T0);
    await recordSignInSuccess(db(), w);
    expect(await db().signInThrottle.findUnique({ where: { key: `email:${w.email}` } })).toBeNull();
    expect((await db().signInThrottle.findUniqueOrThrow({ where: { key: `ip:${w.ip}` } })).failures).toBe(1);
  });

  it("concurrent attempts cannot slip past the limit: of 12 at once, exactly 3 are allowed", async () => {
    const w = who();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => consumeSignInAttempt(db(), limits, { email: w.email, ip: `${w.ip}-${i}` }, T0)));
    expect(results.filter((r) => r.allowed)).toHaveLength(3);
  });
});
