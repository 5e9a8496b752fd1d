// Profile views (issue #15) and the profiling-job form (issue #14) in Chromium at 1366×768, with a real agent:
// the spec registers the tiny CNN (v1, v2) from the zoo, starts an agent process against the e2e server, deploys v1
// on it, then as an ML engineer profiles the deployment from its page over t ∈ {1, 2} × b ∈ {1, 2}, watches the
// bar reach 100% without a reload, reads the heatmap, profiles v2, compares the two, exports the CSV and reads it
// back through `npm run packrat -- optimize`, and sees the stale banner once the deployment moves to v2.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type APIRequestContext, type Browser, type Page, type TestInfo } from "@playwright/test";
import { listCores } from "@packrat/core/topology/topology-queries";
import type { HostTopology } from "@packrat/core/topology/types";
import { expectReadable, VIEWPORT } from "./planning-helpers";
import { sel } from "./selectors";
import { newSignedInPage } from "./sign-in";
import { until } from "./until";
import { testEnv } from "../test/test-env";

const BASE = `http://localhost:${Number(testEnv.E2E_PORT ?? 3100)}`;

test.use({ viewport: VIEWPORT });
test.describe.configure({ mode: "serial" });

async function trpcCall<T>(request: APIRequestContext, path: string, input?: unknown, mutation = false): Promise<T> {
  const res = mutation
    ? await request.post(`${BASE}/api/trpc/${path}`, {
        data: { json: input },
        headers: { origin: BASE, "content-type": "application/json" },
      })
    : await request.get(
        `${BASE}/api/trpc/${path}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`}`,
      );
  const body = (await res.json()) as { result?: { data: { json: T } }; error?: unknown };
  if (!res.ok() || !body.result) throw new Error(`${path}: HTTP ${res.status()} ${JSON.stringify(body.error ?? body)}`);
  return body.result.data.json;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

async function screenshot(page: Page, testInfo: TestInfo, name: string, fullPage = true): Promise<void> {
  await page.mouse.move(0, 0); // no tooltip left over from a hover
  if (fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  const body = await page.screenshot({ fullPage, path: `e2e/.artifacts/screens/profiles-${name}.png` });
  await testInfo.attach(`profiles-${name}`, { body, contentType: "image/png" });
}

const signedIn = (browser: Browser, email: string): Promise<Page> =>
  newSignedInPage(browser, email, { baseURL: BASE, viewport: VIEWPORT });

/** Registers a zoo model version through the registry API and waits for its job; returns the version's id. */
async function registerZoo(
  request: APIRequestContext,
  zooName: string,
  seed: number,
): Promise<{ versionId: string; modelId: string }> {
  const outcome = await trpcCall<{ status: string; jobId: string | null; modelId?: string; versionNumber?: number }>(
    request,
    "models.registerZoo",
    { zooName, seed },
    true,
  );
  if (outcome.status === "registered") {
    // Already there (a retried run): the registry answers with the version it has, and queues nothing.
    const versions = await trpcCall<Array<{ id: string; number: number }>>(request, "models.versions", {
      modelId: outcome.modelId,
    });
    return { versionId: versions.find((v) => v.number === outcome.versionNumber)!.id, modelId: outcome.modelId! };
  }
  expect(outcome.jobId).toBeTruthy();
  const job = await until(
    async () => {
      const j = await trpcCall<{
        state: string;
        error: string | null;
        result: { versionId: string; modelId: string } | null;
      }>(request, "models.job", { id: outcome.jobId });
      if (j.state === "failed") throw new Error(`zoo registration failed: ${j.error}`);
      return j.state === "done" ? j : null;
    },
    `${zooName} seed ${seed} to register`,
    180_000,
  );
  return job.result!;
}

let agent: ChildProcess | undefined;
let agentLog = "";
let stateDir = "";
let deploymentId = "";
let v1 = "";
let v2 = "";
let sre: Page;
let ml: Page;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(420_000);
  sre = await signedIn(browser, "sre@example.com");
  ml = await signedIn(browser, "ml@example.com");
  const first = await registerZoo(ml.request, "tiny-cnn", 1);
  const second = await registerZoo(ml.request, "tiny-cnn", 2);
  expect(second.modelId).toBe(first.modelId); // v2 of the same model
  v1 = first.versionId;
  v2 = second.versionId;

  const { token } = await trpcCall<{ token: string }>(
    sre.request,
    "agentTokens.create",
    { name: "e2e-profiles" },
    true,
  );
  const port = await freePort();
  stateDir = mkdtempSync(join(tmpdir(), "packrat-e2e-agent-"));
  const publicUrl = `http://127.0.0.1:${port}`;
  agent = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "apps/agent/src/cli.ts",
      "--control-plane",
      BASE,
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
    ],
    {
      env: {
        ...testEnv,
        AGENT_TOKEN: token,
        AGENT_STATE_DIR: stateDir,
        AGENT_PUBLIC_URL: publicUrl,
        RECONNECT_BACKOFF_MIN_MS: "100",
        RECONNECT_BACKOFF_MAX_MS: "500",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  agent.stdout!.on("data", (d) => {
    agentLog += d;
  });
  agent.stderr!.on("data", (d) => {
    agentLog += d;
  });
  type AgentRow = { id: string; inferenceUrl: string; topology: HostTopology; online: boolean };
  const registered = await until(
    async () => {
      const agents = await trpcCall<AgentRow[]>(sre.request, "agents.list");
      return agents.find((a) => a.inferenceUrl.startsWith(publicUrl) && a.online);
    },
    `the agent to register (log: ${agentLog.slice(-400)})`,
    60_000,
  );

  // A budget of two physical cores whatever the host has: the grids below are t ∈ {1, 2}.
  const twoCores = listCores(registered.topology).slice(0, 2);
  expect(twoCores, "the spec needs a host with 2 physical cores").toHaveLength(2);
  deploymentId = (
    await trpcCall<{ id: string }>(
      sre.request,
      "deployments.deploy",
      { agentId: registered.id, modelVersionId: v1, cpus: twoCores.flatMap((c) => c.cpus) },
      true,
    )
  ).id;
  await until(
    async () =>
      (await trpcCall<{ state: string }>(sre.request, "deployments.get", { id: deploymentId })).state === "serving",
    "the deployment to serve",
    120_000,
  );
});

test.afterAll(async () => {
  if (agent && agent.exitCode === null && agent.signalCode === null) {
    await new Promise<void>((done) => {
      agent!.once("exit", () => done());
      agent!.kill("SIGTERM");
    });
  }
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  await sre?.context().close();
  await ml?.context().close();
});

/** Fills the form on the deployment page and starts the job; returns the new profile's id. */
async function startProfile(
  page: Page,
  testInfo: TestInfo,
  opts: {
    version: string;
    rule: "decision" | "adaptive" | "paper";
    shot?: string;
    expectEstimate: RegExp;
    beforeStart?: () => void;
  },
): Promise<string> {
  await page.goto(`/deployments/${deploymentId}`);
  const form = page.locator(sel.profileCreateForm);
  await expect(form).toBeVisible();
  await form.locator(sel.profileFieldVersion).selectOption(opts.version);
  await form.locator(sel.profileFieldMaxBatch).selectOption("2");
  await form
    .getByRole("radio", {
      name: opts.rule === "paper" ? /Paper/ : opts.rule === "adaptive" ? /Precision 2%/ : /Decision-aware/,
    })
    .check();
  // T = the deployment's budget (2 cores here): both thread counts are checked by default.
  await expect(form.locator(sel.profileFieldThreads).getByRole("checkbox")).toHaveCount(2);
  await expect(form.locator(sel.profileGridSize)).toHaveText("t ∈ {1, 2} × b ∈ {1, 2} = 4 cells");
  // The estimate waits for a real probe on the agent (for a version it has not served, after fetching its artifact).
  await expect(form.locator(sel.profileEstimate)).toContainText(opts.expectEstimate, { timeout: 60_000 });
  if (opts.shot) {
    await form.scrollIntoViewIfNeeded();
    await expectReadable(page);
    await screenshot(page, testInfo, opts.shot);
  }
  opts.beforeStart?.();
  await form.getByRole("button", { name: "Start profiling" }).click();
  await page.waitForURL(/\/profiles\/[^/?]+$/);
  return page.url().split("/profiles/")[1]!;
}

/** Polls the bar without reloading until it reads 100; returns every value it showed (and a shot of it running). */
async function watchProgress(page: Page, testInfo?: TestInfo): Promise<number[]> {
  const seen: number[] = [];
  let shot = false;
  const bar = page.locator(sel.profileProgressBar);
  const navigations = await page.evaluate(() => performance.getEntriesByType("navigation").length);
  await until(
    async () => {
      const v = Number(await bar.getAttribute("aria-valuenow"));
      if (seen[seen.length - 1] !== v) seen.push(v);
      if (testInfo && !shot && v > 0 && v < 100) {
        shot = true; // best effort: the job may finish before a middle value is seen
        await screenshot(page, testInfo, "profile-running", false);
      }
      return v === 100;
    },
    "the progress bar to reach 100%",
    240_000,
  );
  expect(await page.evaluate(() => performance.getEntriesByType("navigation").length)).toBe(navigations); // no reload
  return seen;
}

test("profile the deployment live, read the heatmap and charts", async ({}, testInfo) => {
  test.setTimeout(360_000);
  const page = ml;
  await page.goto(`/deployments/${deploymentId}`);
  await expect(page.locator(sel.deploymentProfilesEmpty)).toContainText("No profiles of this deployment yet");
  // No profile of v1 has measured t=1, b=1 yet: the estimate comes from the form's own probe on the agent (3 iterations
  // at t=1, b=1, scaled by b / t per cell), a range for the decision-aware rule (the default).
  // The agent is held (SIGSTOP) from the click until the page has drawn the job below 100%: on a fast machine the
  // 4 cells take under a second, and the page must be seen filling in, not arriving complete. The hold is far
  // shorter than the 15 s after which an agent counts as offline.
  let first = "";
  let initialPercent = Number.NaN;
  try {
    first = await startProfile(page, testInfo, {
      version: v1,
      rule: "decision",
      shot: "form-probe-estimate",
      beforeStart: () => agent!.kill("SIGSTOP"),
      expectEstimate:
        /Estimated duration: .+ of measuring \(from a 3-iteration probe at t=1, b=1: [\d.]+ ms, scaled by b \/ t per cell\)/,
    });
    initialPercent = Number(await page.locator(sel.profileProgressBar).getAttribute("aria-valuenow"));
  } finally {
    agent!.kill("SIGCONT");
  }
  expect(initialPercent).toBeLessThan(100); // it started below 100% …
  const seen = await watchProgress(page, testInfo); // … and fills in on the page without a reload
  testInfo.annotations.push({ type: "progress values seen", description: [initialPercent, ...seen].join(", ") });
  await expect(page.locator(sel.profileStatus)).toHaveText("complete");
  await expect(page.locator(sel.profileHeadline)).toHaveText("Complete: all 4 cells measured.");
  await expect(page.locator(sel.profileCellsCount)).toContainText("4 / 4 cells · 100%");

  // The heatmap: 2 × 2 cells, each with a latency; hovering one shows its exact figures.
  const heatmap = page.locator(sel.profileHeatmap);
  await expect(heatmap.locator("[data-cell]")).toHaveCount(4);
  for (const cell of ["1x1", "1x2", "2x1", "2x2"])
    expect(Number(await heatmap.locator(`[data-cell="${cell}"]`).getAttribute("data-value"))).toBeGreaterThan(0);
  await expect(heatmap).toContainText("Mean batch latency L(t, b), ms");
  await expect(heatmap).toContainText("intra-op threads t");
  await expect(heatmap).toContainText("batch size b (samples per batch)");
  await heatmap.locator('[data-cell="2x2"]').hover();
  const tooltip = page.locator(sel.profileHeatmapTooltip);
  await expect(tooltip).toContainText(/t = 2 threads, b = 2.*mean [\d.]+ ms.*p99 [\d.]+ ms/s);
  // The tooltip's mean is the cell's own figure (no claim on which cell is faster: sub-millisecond cells on a shared
  // host can swap order from run to run).
  const tooltipMeanMs = Number(/mean ([\d.]+) ms/.exec((await tooltip.textContent()) ?? "")?.[1]);
  const cellMeanMs = Number(await heatmap.locator('[data-cell="2x2"]').getAttribute("data-value"));
  expect(Math.abs(tooltipMeanMs - cellMeanMs)).toBeLessThanOrEqual(Math.max(0.01, cellMeanMs * 0.01));

  for (const chart of [
    sel.profileLatencyThreads,
    sel.profileSpeedup,
    sel.profileEfficiency,
    sel.profileThroughput,
    sel.profilePerSample,
  ]) {
    await expect(page.locator(chart).locator(sel.chartSvg)).toBeVisible();
  }
  await expect(page.locator(sel.profileSpeedup)).toContainText("speedup L(1, b) / L(t, b)");
  await expect(page.locator(sel.threadsVerdicts)).toContainText("Where threads stop paying: b = 1: fastest at t =");
  await expect(page.locator(sel.profileCells).locator("tbody tr")).toHaveCount(4);
  // Every cell says how much of its CPUs other processes took; the profile has a verdict, and where it was measured
  // (its serving cores when the budget leaves no free ones, as on a 2-core host).
  await expect(page.locator(sel.profileCells).locator('[data-testid="cell-quality"]')).toHaveCount(4);
  await expect(page.locator(sel.profileCells).locator('[data-testid="cell-quality"]').first()).toContainText(
    /others [\d.]+%/,
  );
  await expect(page.locator('[data-testid="profile-verdict"]')).toContainText(
    /Measurement quality: (clean|unreliable|\d+ of 4 cells flagged).*Measured on (the deployment's serving cores|free CPUs [\d, ]+, outside every deployment's budget)\./,
  );
  await expect(page.locator(sel.profileSpread).locator("[data-cell]")).toHaveCount(4);
  await expect(page.locator(sel.staleBanner)).toHaveCount(0);
  await expectReadable(page);
  await screenshot(page, testInfo, "profile-complete");

  // Its creator hears of it in the app: the bell counts it, its panel links to the profile, opening it marks it read.
  await expect(page.locator(sel.notificationCount)).toBeVisible({ timeout: 30_000 });
  await page.locator(sel.notificationBell).click();
  const note = page
    .locator(sel.notificationPanel)
    .locator(`[data-testid="notification-item"]:has(a[href="/profiles/${first}"])`);
  await expect(note).toContainText(/Profile of .+ v1 on .+ finished/);
  await expect(note).toContainText("4 of 4 cells measured");
  await expect(note).toHaveAttribute("data-read", "false");
  await expectReadable(page);
  await screenshot(page, testInfo, "notification-panel");
  await note.getByRole("link").click();
  await page.waitForURL(new RegExp(`/profiles/${first}$`));
  await page.locator(sel.notificationBell).click();
  await expect(note).toHaveAttribute("data-read", "true");
  await page.keyboard.press("Escape");

  // The deployment page lists it with its status and a full bar.
  await page.goto(`/deployments/${deploymentId}`);
  const row = page.locator(`${sel.deploymentProfilesTable} tr[data-profile="${first}"]`);
  await expect(row).toContainText("complete");
  await expect(row.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "100");
});

test("a second profile (v2, paper rule) with an estimate, compared cell by cell; CSV into the optimizer; stale banner", async ({}, testInfo) => {
  test.setTimeout(360_000);
  const page = ml;
  await page.goto(`/deployments/${deploymentId}`);
  const firstId = (await page.locator(`${sel.deploymentProfilesTable} tbody tr`).first().getAttribute("data-profile"))!;
  // v1 now has a t=1, b=1 cell: the estimate is a duration range before the job starts.
  const form = page.locator(sel.profileCreateForm);
  await form.locator(sel.profileFieldMaxBatch).selectOption("2");
  await form.getByRole("radio", { name: /Paper/ }).check();
  // The form asks the agent for a fresh probe (a job: a child process, 3 iterations): as long as startProfile allows.
  await expect(form.locator(sel.profileEstimate)).toContainText(
    /Estimated duration: (about |under )?\d.* of measuring \(from a 3-iteration probe at t=1, b=1: [\d.]+ ms/,
    { timeout: 60_000 },
  );
  await screenshot(page, testInfo, "form-estimate");

  // v2 is not deployed and never profiled: the agent fetches its artifact for the probe, and the paper rule's fixed
  // count makes the estimate one figure.
  const second = await startProfile(page, testInfo, {
    version: v2,
    rule: "paper",
    expectEstimate: /Estimated duration: .+ of measuring \(from a 3-iteration probe at t=1, b=1/,
  });
  await watchProgress(page);
  await expect(page.locator(sel.profileStatus)).toHaveText("complete");
  await expect(page.locator(sel.profileConditions)).toContainText("paper rule: 10 warm-up + 100 iterations");
  await expect(page.locator(sel.profileCells).locator("tbody tr").first()).toContainText("100");

  // Compare with the first profile, picked on this page.
  await page.locator(sel.comparePicker).locator("select").selectOption(firstId);
  await page.locator(sel.comparePicker).getByRole("button", { name: "Compare" }).click();
  await page.waitForURL(/\/profiles\/compare\?a=/);
  expect(page.url()).toContain(`a=${second}&b=${firstId}`);
  await expect(page.locator(sel.compareConditions).locator('tr[data-field="model version"]')).toContainText("differs");
  await expect(page.locator(sel.compareConditions).locator('tr[data-field="stopping rule"]')).toContainText("differs");
  await expect(page.locator(sel.compareConditions).locator('tr[data-field="host"]')).toContainText("same");
  await expect(page.locator(sel.compareTable).locator("tbody tr")).toHaveCount(4);
  const ratios = await page
    .locator(sel.compareRatioHeatmap)
    .locator("[data-cell]")
    .evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-value"))));
  expect(ratios).toHaveLength(4);
  for (const r of ratios) expect(r).toBeGreaterThan(0);
  // The table's ratio is B ÷ A of its own two columns.
  const firstRow = await page.locator(sel.compareTable).locator("tbody tr").first().locator("td").allInnerTexts();
  const [aMs, bMs, ratio] = [parseFloat(firstRow[2]!), parseFloat(firstRow[3]!), parseFloat(firstRow[4]!)];
  expect(ratio).toBeCloseTo(bMs / aMs, 1);
  await expect(page.locator(sel.compareSummary)).toContainText("geometric mean over 4 common cells");
  await expect(page.locator(sel.compareHeatmapA).locator("[data-cell]")).toHaveCount(4);
  await expect(page.locator(sel.compareHeatmapB).locator("[data-cell]")).toHaveCount(4);
  await expectReadable(page);
  await screenshot(page, testInfo, "compare");

  // CSV export of the first profile, read back by the optimizer CLI.
  await page.goto(`/profiles/${firstId}`);
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator(sel.profileCsv).click()]);
  expect(download.suggestedFilename()).toMatch(/^profile-tiny-cnn-v1-.+\.csv$/);
  const file = testInfo.outputPath("profile.csv");
  await download.saveAs(file);
  const csv = readFileSync(file, "utf8").trimEnd().split("\r\n");
  expect(csv[0]).toBe("threads,batch,latency_ms,p50_ms,p90_ms,p99_ms,stddev_ms,iterations");
  expect(csv.slice(1).map((line) => line.split(",").slice(0, 2).join(","))).toEqual(["1,1", "1,2", "2,1", "2,2"]);
  await testInfo.attach("profile.csv", { path: file, contentType: "text/csv" });
  const run = spawnSync(
    "npm",
    ["run", "-s", "packrat", "--", "optimize", "--profile", file, "--cores", "2", "--batch", "2", "--json"],
    { encoding: "utf8", timeout: 120_000 },
  );
  expect(run.status, run.stderr).toBe(0);
  const plan = JSON.parse(run.stdout) as {
    kind: string;
    cores: number;
    batch: number;
    latencyMs: number;
    instances: Array<{ count: number; threads: number; batch: number }>;
  };
  await testInfo.attach("optimizer.json", { body: run.stdout, contentType: "application/json" });
  expect(plan).toMatchObject({ kind: "plan", cores: 2, batch: 2 });
  // The plan's latency is one of the profile's cells (a batch latency is the slowest instance's cell).
  const latencies = csv.slice(1).map((line) => Number(line.split(",")[2]));
  expect(latencies).toContain(plan.latencyMs);
  expect(plan.instances.reduce((s, g) => s + g.count * g.batch, 0)).toBe(2);

  // The deployment moves to v2: the v1 profile is stale for it, and the page says what differs.
  await trpcCall(sre.request, "deployments.changeVersion", { deploymentId, modelVersionId: v2 }, true);
  await page.reload();
  const banner = page.locator(sel.staleBanner);
  await expect(banner).toContainText("Stale profile");
  await expect(banner).toContainText("model version: measured with v1, the deployment now has v2");
  await expectReadable(page);
  await screenshot(page, testInfo, "stale");
  await page.goto(`/profiles/${second}`);
  await expect(page.locator(sel.profileStatus)).toHaveText("complete");
  await expect(page.locator(sel.staleBanner)).toHaveCount(0); // v2's profile matches the deployment now
});

test("a job cancelled mid-way keeps its cells and says what is missing", async ({}, testInfo) => {
  test.setTimeout(240_000);
  const page = ml;
  await page.goto(`/deployments/${deploymentId}`);
  const form = page.locator(sel.profileCreateForm);
  await form.locator(sel.profileFieldMaxBatch).selectOption("4096");
  await form.getByRole("radio", { name: /Paper/ }).check();
  await expect(form.locator(sel.profileGridSize)).toHaveText("t ∈ {1, 2} × b ∈ {1, 2, 4, …, 4096} = 26 cells");
  // Batches up to 4096: the tiny CNN's large cells take seconds each, so the job is still running when the
  // cancel lands even on a fast, quiet machine (up to b = 64 it finished in about a second).
  await form.getByRole("button", { name: "Start profiling" }).click();
  await page.waitForURL(/\/profiles\/[^/?]+$/);
  // Cells are measured in interleaved rounds (under the paper rule they all end in the 10th): cancel while it runs,
  // past its 3rd round, so every cell has rounds to keep.
  await expect(page.locator(sel.profileStatus)).toHaveText("running", { timeout: 120_000 });
  await expect(page.locator(sel.profileHeadline)).toContainText(/Measuring t=\d, b=\d+: \d+ of 26 cells measured/);
  await expect(page.locator(sel.profileJobMessage)).toContainText(/round ([3-9]|\d\d+)\b/, { timeout: 120_000 });
  await screenshot(page, testInfo, "profile-live", false);
  page.once("dialog", (dialog) => void dialog.accept());
  await page.getByRole("button", { name: "Cancel job" }).click();
  await expect(page.locator(sel.profileStatus)).toHaveText("cancelled");
  // The agent hands in what its rounds measured once it sees the cancel: the page shows those cells, cut short.
  await expect(page.locator(sel.profileHeadline)).toContainText(
    /^Cancelled with \d+ of 26 cells measured, (all|\d+) cut short by the cancel\.$/,
    { timeout: 60_000 },
  );
  await expect(page.locator(sel.profileMissing)).toContainText(
    /cells? (was|were) cut short by the cancel: (its estimate rests|their estimates rest) on \d+(–\d+)? rounds, fewer than the rule asks\./,
  );
  await expect(page.locator(sel.profileMissing)).toContainText("the optimizer plans from complete profiles only");
  await expect(page.locator(sel.profileCells)).toContainText("cancelled");
  const measured = await page
    .locator(sel.profileHeatmap)
    .locator("[data-cell]")
    .evaluateAll((els) => els.filter((e) => e.getAttribute("data-value") !== "").length);
  expect(measured).toBeGreaterThan(0);
  await expectReadable(page);
  await screenshot(page, testInfo, "profile-cancelled");
});
