// E2E in a real Chromium against a production build started the README way (`npm start`), on its own fresh
// embedded database under the system temp dir.
import { defineConfig } from "@playwright/test";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { realBrowserSearch, realProbe } from "./scripts/lib/browser-search";
import { findBrowser } from "./scripts/lib/find-browser";
import { testEnv } from "./test/test-env";

const port = Number(testEnv.E2E_PORT ?? 3100);
function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "packrat-e2e-"));
  chmodSync(dir, 0o755); // the embedded database runs as user postgres and must traverse it
  return dir;
}
const dataDir = testEnv.E2E_DATA_DIR ?? newDataDir();
testEnv.E2E_DATA_DIR = dataDir; // workers re-evaluate this file: keep one data dir per run

// `npm test` found (or installed) the browser and says which; run directly, look for one the same way
// (the system's Chromium, else Playwright's cached build), installing nothing.
const chromium =
  testEnv.PACKRAT_E2E_CHROMIUM || findBrowser(realBrowserSearch(testEnv), realProbe(testEnv))?.executable;

export default defineConfig({
  testDir: "e2e",
  outputDir: "e2e/.artifacts",
  // Records the run's secrets for the CI scan before the web server stops.
  globalTeardown: "./e2e/global-teardown.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  reporter: testEnv.PLAYWRIGHT_JSON_OUTPUT_NAME ? [["list"], ["json"]] : [["list"]],
  use: {
    baseURL: `http://localhost:${port}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  webServer: {
    command: "npm start",
    url: `http://localhost:${port}/api/health`,
    timeout: 600_000, // a cold production build on 2 shared cores can take 8 minutes
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
    env: {
      PORT: String(port),
      DATABASE_URL: "",
      PACKRAT_DATA_DIR: join(dataDir, "data"),
      PACKRAT_EMBEDDED_PG_PORT: String(Number(testEnv.E2E_PG_PORT ?? 54339)),
      PACKRAT_LOCAL_AGENT_PORT: String(Number(testEnv.E2E_AGENT_PORT ?? 8100)),
      PACKRAT_PUBLIC_URL: `http://localhost:${port}`,
      // Metrics every heartbeat (5 s), not every 15 s: the specs' 20 s waits for measured stages stay within it.
      METRICS_INTERVAL_MS: "5000",
    },
  },
});
