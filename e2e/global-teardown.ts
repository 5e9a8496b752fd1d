// After the e2e run, while `npm start` still runs (Playwright stops its web server after this): the secrets that
// run minted go on the CI secret list (test/secrets-list.ts) — every session and password hash in its database,
// the local agent's token and the generated cookie-signing secret in its data dir.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { recordDatabaseSecrets } from "../test/record-database-secrets";
import { e2eDatabaseUrl } from "./e2e-database";
import { recordSecret, SECRETS_LIST_ENV } from "../test/secrets-list";
import { testEnv } from "../test/test-env";

export default async function globalTeardown(): Promise<void> {
  if (!testEnv[SECRETS_LIST_ENV]) return;
  const dataDir = join(testEnv.E2E_DATA_DIR ?? "", "data");
  for (const [file, kind] of [
    ["local-agent.token", "agent token"],
    ["auth-secret", "auth secret"],
  ] as const) {
    const path = join(dataDir, file);
    if (existsSync(path)) recordSecret(kind, readFileSync(path, "utf8").trim());
  }
  try {
    const url = e2eDatabaseUrl();
    recordSecret("database password", decodeURIComponent(new URL(url).password));
    await recordDatabaseSecrets(url);
  } catch (error) {
    console.warn(`[e2e] could not record the database's secrets: ${(error as Error).message}`);
  }
}
