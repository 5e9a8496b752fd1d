// After a test run, before its database goes away: every session token and password hash still in it goes on
// the secret list (test/secrets-list.ts), whichever test or page minted it. Tokens of agents and enrollments
// are stored hashed, so the tests record those themselves when they create them. Only for tests.
import pg from "pg";
import { recordSecret, SECRETS_LIST_ENV } from "./secrets-list";
import { testEnv } from "./test-env";

/** Returns how many values were recorded (0 when no list is configured). */
export async function recordDatabaseSecrets(databaseUrl: string, file = testEnv[SECRETS_LIST_ENV]): Promise<number> {
  if (!file) return 0;
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const sessions = await client.query<{ token: string }>(`SELECT token FROM "session"`);
    const hashes = await client.query<{ password: string }>(
      `SELECT password FROM "account" WHERE password IS NOT NULL`,
    );
    for (const { token } of sessions.rows) recordSecret("session token", token, file);
    for (const { password } of hashes.rows) recordSecret("password hash", password, file);
    return sessions.rowCount! + hashes.rowCount!;
  } finally {
    await client.end();
  }
}
