// "The database is not there" as opposed to "the query was wrong": a refused or dropped connection, a server shutting
// down or starting up, or no pooled connection free within the wait (pg's connect timeout, Prisma's transaction
// maxWait): a replica short of connections sheds the request, and the caller retries. The edges answer these with 503 and a message that says so, and retrying later works; any
// other unexpected error stays a 500. The error may come from pg, the Prisma adapter or Prisma, wrapped in causes.
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  // PostgreSQL SQLSTATEs: connection exceptions (08xxx), admin/crash shutdown, cannot connect now.
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "57P01",
  "57P02",
  "57P03",
  // Prisma: can't reach the server, timed out, connection closed.
  "P1001",
  "P1002",
  "P1017",
]);
const CONNECTION_MESSAGES =
  /Connection terminated|connect ECONNREFUSED|Can't reach database server|DatabaseNotReachable|ConnectionClosed|Connection closed|the database system is (starting up|shutting down|in recovery mode)|terminating connection due to administrator command|timeout exceeded when trying to connect|Unable to start a transaction in the given time|(Client|connection) (has encountered a connection error and )?(was closed and )?is not queryable/i;

export const DATABASE_UNAVAILABLE_MESSAGE = "The database is unavailable; try again in a few seconds";

export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = error; e && typeof e === "object" && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const { code, kind, message, originalCode } = e as {
      code?: unknown;
      kind?: unknown;
      message?: unknown;
      originalCode?: unknown;
    };
    if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
    if (typeof originalCode === "string" && CONNECTION_CODES.has(originalCode)) return true;
    if (kind === "DatabaseNotReachable" || kind === "ConnectionClosed" || kind === "SocketTimeout") return true;
    if (typeof message === "string" && CONNECTION_MESSAGES.test(message)) return true;
    for (const inner of (e as { errors?: unknown }).errors instanceof Array ? (e as { errors: unknown[] }).errors : [])
      if (isDatabaseUnavailable(inner)) return true;
  }
  return false;
}
