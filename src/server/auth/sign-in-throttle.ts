// Failed sign-ins, kept in PostgreSQL so that every control-plane replica sees the same counts. Three keys:
// - per (account, client): SIGN_IN_MAX_FAILURES_PER_CLIENT in a fixed window, then 429 until the window ends. Only
//   that client is held back: someone guessing an account's password does not lock its owner out.
// - per client: SIGN_IN_MAX_FAILURES_PER_IP across all accounts (one client spraying many accounts), then 429.
// - per account: a slowdown, never a lockout. After SIGN_IN_ACCOUNT_SLOWDOWN_AFTER failures in the window, one more
//   attempt is allowed per SIGN_IN_ACCOUNT_SLOWDOWN_MS from any client (a refused attempt takes no slot), so many
//   clients together guess no faster than that, and the owner waits at most one interval.
// An attempt is counted *before* the password is checked, in atomic upserts, so N concurrent guesses cannot all slip
// past a stale read; a successful sign-in then takes its attempt back (account and pair cleared, the client's count
// decremented). Rows whose window has passed mean nothing and are pruned.
import type { PrismaClient } from "@/generated/prisma/client";
import { env } from "@/server/env";

export interface ThrottleLimits {
  maxFailuresPerClient: number;
  maxFailuresPerIp: number;
  accountSlowdownAfter: number;
  accountSlowdownMs: number;
  windowMs: number;
}

/** The limits as configured (SIGN_IN_* in the environment). */
export function signInLimits(): ThrottleLimits {
  const config = env();
  return {
    maxFailuresPerClient: config.SIGN_IN_MAX_FAILURES_PER_CLIENT,
    maxFailuresPerIp: config.SIGN_IN_MAX_FAILURES_PER_IP,
    accountSlowdownAfter: config.SIGN_IN_ACCOUNT_SLOWDOWN_AFTER,
    accountSlowdownMs: config.SIGN_IN_ACCOUNT_SLOWDOWN_MS,
    windowMs: config.SIGN_IN_FAILURE_WINDOW_MS,
  };
}

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; key: string };

const normalized = (email: string) => email.trim().toLowerCase();
export const emailKey = (email: string) => `email:${normalized(email)}`;
export const ipKey = (ip: string) => `ip:${ip}`;
export const clientKey = (email: string, ip: string) => `client:${normalized(email)}|${ip}`;

interface Row {
  key: string;
  failures: number;
  window_start_ms: number;
}

// Timestamps cross as epoch milliseconds and are stored as UTC (Prisma's convention for DateTime columns),
// whatever the server's TimeZone setting.
const utc = (ms: number) => new Date(ms).toISOString();
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** Counts one attempt for the (account, client) pair, the client and the account; refuses it when one says so. */
export async function consumeSignInAttempt(
  prisma: PrismaClient,
  limits: ThrottleLimits,
  who: { email: string; ip: string },
  nowMs: number,
): Promise<ThrottleDecision> {
  const keys = [clientKey(who.email, who.ip), ipKey(who.ip)];
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
    const max = row.key.startsWith("client:") ? limits.maxFailuresPerClient : limits.maxFailuresPerIp;
    if (row.failures <= max) continue;
    const retryAfterSeconds = seconds(row.window_start_ms + limits.windowMs - nowMs);
    if (decision.allowed || retryAfterSeconds > decision.retryAfterSeconds)
      decision = { allowed: false, retryAfterSeconds, key: row.key };
  }
  if (!decision.allowed) return decision;
  return takeAccountSlot(prisma, limits, emailKey(who.email), nowMs);
}

/**
 * The account's slowdown: within a window, `accountSlowdownAfter` attempts, then one more per `accountSlowdownMs`
 * elapsed since the window opened. The slot is taken in the upsert's WHERE, so a refused attempt counts nothing.
 */
async function takeAccountSlot(
  prisma: PrismaClient,
  limits: ThrottleLimits,
  key: string,
  nowMs: number,
): Promise<ThrottleDecision> {
  const cutoff = utc(nowMs - limits.windowMs);
  const now = utc(nowMs);
  const taken = await prisma.$queryRaw<Row[]>`
    INSERT INTO "sign_in_throttle" ("key", "failures", "windowStart") VALUES (${key}, 1, (${now}::timestamptz AT TIME ZONE 'UTC'))
    ON CONFLICT ("key") DO UPDATE SET
      "failures" = CASE WHEN "sign_in_throttle"."windowStart" <= (${cutoff}::timestamptz AT TIME ZONE 'UTC')
                        THEN 1 ELSE "sign_in_throttle"."failures" + 1 END,
      "windowStart" = CASE WHEN "sign_in_throttle"."windowStart" <= (${cutoff}::timestamptz AT TIME ZONE 'UTC')
                           THEN (${now}::timestamptz AT TIME ZONE 'UTC') ELSE "sign_in_throttle"."windowStart" END
    WHERE "sign_in_throttle"."windowStart" <= (${cutoff}::timestamptz AT TIME ZONE 'UTC')
       OR "sign_in_throttle"."failures" < ${limits.accountSlowdownAfter}::int
            + floor(extract(epoch FROM ((${now}::timestamptz AT TIME ZONE 'UTC') - "sign_in_throttle"."windowStart")) * 1000 / ${limits.accountSlowdownMs}::float8)
    RETURNING "key", "failures", 0::float8 AS window_start_ms`;
  if (taken.length > 0) return { allowed: true };
  const row = await prisma.signInThrottle.findUniqueOrThrow({ where: { key } });
  // The next slot: the one after those already taken.
  const nextSlotMs =
    row.windowStart.getTime() + (row.failures - limits.accountSlowdownAfter + 1) * limits.accountSlowdownMs;
  const windowEndMs = row.windowStart.getTime() + limits.windowMs;
  return { allowed: false, retryAfterSeconds: seconds(Math.min(nextSlotMs, windowEndMs) - nowMs), key };
}

/** A successful sign-in: forget the account's and the pair's failures, and give the client its attempt back. */
export async function recordSignInSuccess(prisma: PrismaClient, who: { email: string; ip: string }): Promise<void> {
  await prisma.$transaction([
    prisma.signInThrottle.deleteMany({ where: { key: { in: [emailKey(who.email), clientKey(who.email, who.ip)] } } }),
    prisma.signInThrottle.updateMany({
      where: { key: ipKey(who.ip), failures: { gt: 0 } },
      data: { failures: { decrement: 1 } },
    }),
  ]);
}

/** Deletes the rows whose window has passed (the next attempt would start afresh anyway); returns how many. */
export async function pruneSignInThrottle(prisma: PrismaClient, windowMs: number, nowMs: number): Promise<number> {
  const { count } = await prisma.signInThrottle.deleteMany({
    where: { windowStart: { lte: new Date(nowMs - windowMs) } },
  });
  return count;
}
