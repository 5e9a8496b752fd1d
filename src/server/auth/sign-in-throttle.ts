// Failed sign-ins per email and per client IP, in a fixed window, kept in PostgreSQL so that every
// control-plane replica sees the same counts. An attempt is counted *before* the password is checked, in one
// atomic upsert per key, so N concurrent guesses cannot all slip past a stale read; a successful sign-in then
// takes its attempt back (the email's count is cleared, the IP's decremented).
import type { PrismaClient } from "@/generated/prisma/client";

export interface ThrottleLimits {
  maxFailuresPerEmail: number;
  maxFailuresPerIp: number;
  windowMs: number;
}

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; key: string };

export const emailKey = (email: string) => `email:${email.trim().toLowerCase()}`;
export const ipKey = (ip: string) => `ip:${ip}`;

interface Row { key: string; failures: number; window_start_ms: number }

// Timestamps cross as epoch milliseconds and are stored as UTC (Prisma's convention for DateTime columns),
// whatever the server's TimeZone setting.
const utc = (ms: number) => new Date(ms).toISOString();

/** Counts one attempt for the email and the IP; refuses it when either is over its limit. */
export async function consumeSignInAttempt(
  prisma: PrismaClient, limits: ThrottleLimits, who: { email: string; ip: string }, nowMs: number,
): Promise<ThrottleDecision> {
  const keys = [emailKey(who.email), ipKey(who.ip)];
  const cutoff = utc(nowMs - limits.windowMs);
  const now = utc(nowMs);
  const rows = await prisma.$queryRaw<Row[]>`
    INSERT INTO "sign_in_throttle" ("key", "failures", "windowStart")
    SELECT k, 1, (${now}::timestamptz AT TIME ZONE 'UTC') FROM unnest(${keys}::text[]) AS k
    ON CONFLICT ("key") DO UPDATE SET
      "failures" = CASE WHEN "sign_in_throttle"."windowStart" <= (${cutoff}::timestamptz AT TIME ZONE 'UTC')
                        THEN 1 ELSE "sign_in_throttle"."failures" + 1 END,
      "windowStart" = CASE WHEN "sign_in_throttle"."windowStart" <= (${cutoff}::timestamptz AT TIME ZONE 'UTC')
                           THEN (${now}::timestamptz AT TIME ZONE 'UTC') ELSE "sign_in_throttle"."windowStart" END
    RETURNING "key", "failures",
      (extract(epoch FROM ("windowStart" AT TIME ZONE 'UTC')) * 1000)::float8 AS window_start_ms`;
  let decision: ThrottleDecision = { allowed: true };
  for (const row of rows) {
    const max = row.key.startsWith("email:") ? limits.maxFailuresPerEmail : limits.maxFailuresPerIp;
    if (row.failures <= max) continue;
    const retryAfterSeconds = Math.max(1, Math.ceil((row.window_start_ms + limits.windowMs - nowMs) / 1000));
    if (decision.allowed || retryAfterSeconds > decision.retryAfterSeconds) decision = { allowed: false, retryAfterSeconds, key: row.key };
  }
  return decision;
}

/** A successful sign-in: forget the email's failures and give the IP its attempt back. */
export async function recordSignInSuccess(prisma: PrismaClient, who: { email: string; ip: string }): Promise<void> {
  await prisma.$transaction([
    prisma.signInThrottle.deleteMany({ where: { key: emailKey(who.email) } }),
    prisma.signInThrottle.updateMany({ where: { key: ipKey(who.ip), failures: { gt: 0 } }, data: { failures: { decrement: 1 } } }),
  ]);
}
