// The Models pages in a real Chromium against `npm start`: upload the tiny CNN (built here, written to a temp
// file) and read its analysis, see a bad file refused, set an SLO, and register MobileNetV2 from the zoo while
// its job's progress shows. Screenshots at 1366×768 go to e2e/.artifacts/screens/models-*.png.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { buildMobilenetV2 } from "@packrat/modelzoo/mobilenet-v2";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { zipArchive } from "../src/lib/model-bundle/test-archives";
import { externalWeightsModel } from "../src/lib/onnx/wild-models";
import { sel } from "./selectors";
import { signIn } from "./sign-in";

const VIEWPORT = { width: 1366, height: 768 } as const;
const run = Math.random().toString(36).slice(2, 7);
const dir = mkdtempSync(join(tmpdir(), "packrat-e2e-models-"));
const cnnPath = join(dir, "Tiny CNN (e2e).onnx");
// A seed of this run: the file (and its sha256) differs from every earlier upload.
writeFileSync(cnnPath, buildTinyCnn({ seed: 1000 + Math.floor(Math.random() * 1e6), producerVersion: "e2e" }));
const junkPath = join(dir, "not-a-model.onnx");
writeFileSync(junkPath, Buffer.from("this is a text file, not a protobuf".repeat(20)));
const modelName = `tiny-cnn-${run}`;
// A model whose weights live in external data files, zipped with them; and the same without one of its files.
const external = externalWeightsModel();
const externalEntries = [
  { name: "exported/model.onnx", data: external.onnx },
  ...Object.entries(external.files).map(([name, data]) => ({ name: `exported/${name}`, data, deflate: true })),
];
const externalZipPath = join(dir, "external-weights.zip");
writeFileSync(externalZipPath, zipArchive(externalEntries));
const missingZipPath = join(dir, "missing-data.zip");
writeFileSync(missingZipPath, zipArchive(externalEntries.filter((e) => !e.name.endsWith("v.bin"))));
const bigPath = join(dir, "mobilenet.onnx");
writeFileSync(bigPath, buildMobilenetV2({ seed: 17, producerVersion: "e2e" }));

test.describe.configure({ mode: "serial" });
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `e2e/.artifacts/screens/models-${name}.png`, fullPage: true });
}

async function expectNoHorizontalScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  await expect(page.locator("main")).not.toContainText(/\bNaN\b|Infinity|undefined|\[object Object\]/);
}

test.beforeEach(async ({ page }) => {
  await page.setViewportSize(VIEWPORT);
  await signIn(page, "ml@example.com");
});

test("upload the tiny CNN and see its analysis; a file that is not ONNX is refused and says why", async ({ page }) => {
  await page.locator(sel.mainNav).getByRole("link", { name: "Models" }).click();
  await expect(page.getByRole("heading", { name: "Models", level: 1 })).toBeVisible();

  // Not ONNX: refused with the reason, nothing stored.
  await page.locator(sel.uploadFile).setInputFiles(junkPath);
  await expect(page.locator(sel.uploadName)).toHaveValue("not-a-model");
  await page.locator(sel.uploadName).fill(`junk-${run}`);
  await page.locator(sel.uploadSubmit).click();
  await expect(page.locator(sel.uploadError)).toHaveAttribute("data-code", "NOT_ONNX");
  await expect(page.locator(sel.uploadError)).toContainText("Not an ONNX model");
  await expect(page.locator(sel.uploadError)).toContainText("Nothing was stored");

  await page.locator(sel.uploadFile).setInputFiles(cnnPath);
  // The name suggested from "Tiny CNN (e2e).onnx".
  await expect(page.locator(sel.uploadName)).toHaveValue("tiny-cnn-e2e");
  await page.locator(sel.uploadName).fill(modelName);
  await page.locator(sel.uploadSubmit).click();
  // The upload's answer waits for validation and analysis, each in an ONNX Runtime child process.
  await expect(page.locator(sel.uploadDone)).toContainText(`Uploaded ${modelName} as version 1`, { timeout: 30_000 });
  await expect(page.locator(sel.modelsTable).locator(`[data-model="${modelName}"]`)).toContainText("v1");
  await expect(page.locator(sel.modelsTable).locator(`[data-model="junk-${run}"]`)).toHaveCount(0);
  await expectNoHorizontalScroll(page);
  await shot(page, "list-after-upload");

  await page.locator(sel.uploadOpen).click();
  await expect(page.locator(sel.modelName)).toHaveText(modelName);
  // The tiny CNN: 1,570 parameters; 1,044,800 FLOPs per sample (see src/lib/onnx/analyze-model.test.ts).
  await expect(page.locator(sel.analysisParameters)).toContainText("1,570");
  await expect(page.locator(sel.analysisFlops)).toContainText("1.04 MFLOPs");
  await expect(page.locator(sel.analysisFlops)).toContainText("1,044,800");
  await expect(page.locator(sel.analysisIo)).toContainText("[batch, 3, 32, 32]");
  await expect(page.locator(sel.versionsTable)).toContainText("upload");
  await expect(page.locator(sel.deployedSection)).toContainText("Not deployed on any agent");
  await expect(page.locator(sel.profilesSection)).toContainText("No profiles yet");
  await expect(page.locator(sel.oipExample)).toContainText(`/v2/models/${modelName}/infer`);
  await expect(page.locator(sel.oipExample)).toContainText("shape:[1,3,32,32]");
  await expectNoHorizontalScroll(page);
  await shot(page, "detail-upload");
});

test("import from URL: plain http and a loopback address are refused, each saying why, and nothing is listed", async ({
  page,
}) => {
  const name = `imported-${run}`;
  await page.goto("/models");
  // The name follows the URL's file name.
  await page.locator(sel.importUrl).fill("http://127.0.0.1:9/models/Tiny%20CNN.onnx");
  await expect(page.locator(sel.importName)).toHaveValue("tiny-cnn");
  await page.locator(sel.importName).fill(name);
  await page.locator(sel.importSubmit).click();
  await expect(page.locator(sel.importError)).toContainText("plain http:// imports are off");
  await expect(page.locator(sel.importError)).toContainText("MODEL_IMPORT_ALLOW_HTTP");
  // https to loopback: the outbound guard refuses it before connecting (no allow-list entry on this server).
  await page.locator(sel.importUrl).fill("https://127.0.0.1:9/models/tiny.onnx");
  await page.locator(sel.importName).fill(name);
  await page.locator(sel.importSubmit).click();
  await expect(page.locator(sel.importError)).toContainText("refused to connect to 127.0.0.1: a loopback address");
  await expect(page.locator(sel.importError)).toContainText("Nothing was stored");
  await expectNoHorizontalScroll(page);
  await shot(page, "import-refused");
  await page.locator(sel.modelsSearch).fill(name);
  await expect(page.locator(sel.modelsTable).locator(`[data-model="${name}"]`)).toHaveCount(0);
});

test("a model with external data as one .zip: the form says what archives are for; one missing data file is named", async ({
  page,
}) => {
  await page.goto("/models");
  await expect(page.locator(sel.uploadForm)).toContainText(".tar / .zip with external data");
  await expect(page.locator(sel.uploadFile)).toHaveAttribute("accept", /\.tar,\.zip/);
  await expect(page.locator(sel.uploadArchiveHint)).toContainText("external data files beside the .onnx");
  await page.locator(sel.uploadFile).setInputFiles(missingZipPath);
  await expect(page.locator(sel.uploadName)).toHaveValue("missing-data");
  await page.locator(sel.uploadName).fill(`missing-data-${run}`);
  await page.locator(sel.uploadSubmit).click();
  await expect(page.locator(sel.uploadError)).toHaveAttribute("data-code", "EXTERNAL_DATA", { timeout: 30_000 });
  await expect(page.locator(sel.uploadError)).toContainText('its data file "v.bin" is not in the archive');
  await expect(page.locator(sel.uploadError)).toContainText("Nothing was stored");
  await shot(page, "archive-refused");
  await page.locator(sel.uploadFile).setInputFiles(externalZipPath);
  await expect(page.locator(sel.uploadName)).toHaveValue("external-weights");
  await page.locator(sel.uploadName).fill(`external-weights-${run}`);
  await page.locator(sel.uploadSubmit).click();
  await expect(page.locator(sel.uploadDone)).toContainText(
    `Uploaded external-weights-${run} as version 1 with 2 external data files`,
    { timeout: 30_000 },
  );
  await expectNoHorizontalScroll(page);
  await shot(page, "archive-uploaded");
  await page.locator(sel.uploadOpen).click();
  await expect(page.locator('[data-testid="analysis-parameters"]')).toContainText("208");
  await expect(page.locator('[data-testid="analysis-bundle"]')).toContainText(
    "model.onnx with 2 external data files (data/weights.bin, v.bin), stored and sent to agents as one bundle",
  );
  await expectNoHorizontalScroll(page);
  await shot(page, "archive-detail");
});

test("set an SLO on the uploaded model; the list shows it", async ({ page }) => {
  await page.goto("/models");
  await page.locator(sel.modelsSearch).fill(modelName);
  await page.locator(sel.modelsTable).getByRole("link", { name: modelName }).click();
  await expect(page.locator(sel.sloCurrent)).toHaveText("not set");
  await page.locator(sel.sloEdit).click();
  await page.locator(sel.sloDeadline).fill("50");
  await page.locator(sel.sloPercentile).fill("99");
  await shot(page, "slo-editor");
  await page.locator(sel.sloSave).click();
  await expect(page.locator(sel.sloCurrent)).toHaveText("p99 ≤ 50 ms");
  await page.reload();
  await expect(page.locator(sel.sloCurrent)).toHaveText("p99 ≤ 50 ms");
  await page.goto("/models");
  await expect(page.locator(sel.modelsTable).locator(`[data-model="${modelName}"]`)).toContainText("p99 ≤ 50 ms");
});

test("register MobileNetV2 from the zoo and watch its job finish", async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto("/models");
  const seed = String(5000 + Math.floor(Math.random() * 1e6));
  await page.locator(sel.zooSeed).fill(seed);
  const row = page.locator(sel.zooTable).locator(sel.zooRow("mobilenet-v2"));
  await expect(row).toContainText("synthetic weights");
  await row.locator(sel.zooRegister).click();
  // The job shows while it runs (queued, then building, validating, analysing), with a progress bar.
  await expect(row.locator(sel.zooJob).filter({ hasText: `seed ${seed}` })).toBeVisible();
  await shot(page, "zoo-job-running");
  await expect(row.locator(sel.zooJob)).toHaveCount(0, { timeout: 150_000 });
  await expect(
    row
      .locator(sel.zooStatus)
      .locator("div", { hasText: `seed ${seed}` })
      .getByRole("link"),
  ).toHaveText(/^v\d+$/);
  await expect(page.locator(sel.modelsTable).locator('[data-model="mobilenet-v2"]')).toContainText("synthetic weights");
  await shot(page, "list-after-zoo");

  await row
    .locator(sel.zooStatus)
    .locator("div", { hasText: `seed ${seed}` })
    .getByRole("link")
    .click();
  await expect(page.locator(sel.modelName)).toHaveText("mobilenet-v2");
  await expect(page.getByText("synthetic weights").first()).toBeVisible();
  // MobileNetV2 1.0: 3,504,872 parameters (torchvision's count, which the builder matches).
  await expect(page.locator(sel.analysisParameters)).toContainText("3,504,872");
  await expect(page.locator(sel.analysisFlops)).toContainText("MFLOPs");
  await expect(page.locator(sel.versionsTable)).toContainText(`seed ${seed}`);
  await expectNoHorizontalScroll(page);
  await shot(page, "detail-zoo");
});

test("a large upload shows its progress while the bytes travel (upload throttled to 4 MB/s)", async ({ page }) => {
  await page.goto("/models");
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  // 14.2 MB at 4 MB/s: about 3.5 s of progress to see.
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: 4_000_000,
  });
  await page.locator(sel.uploadFile).setInputFiles(bigPath);
  await page.locator(sel.uploadName).fill(`mobilenet-upload-${run}`);
  await page.locator(sel.uploadSubmit).click();
  const bar = page.locator(sel.uploadProgress).getByRole("progressbar");
  await expect(bar).toBeVisible();
  await expect
    .poll(async () => Number(await bar.getAttribute("aria-valuenow")), { timeout: 10_000 })
    .toBeGreaterThan(0);
  await expect(page.locator(sel.uploadProgress)).toContainText(/of 14\.2 MB/);
  await shot(page, "upload-progress");
  await expect(page.locator(sel.uploadDone)).toContainText(`Uploaded mobilenet-upload-${run} as version 1`, {
    timeout: 60_000,
  });
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
});

test("a manager reads the registry and a model's page, with nothing to change", async ({ page }) => {
  await page.context().clearCookies();
  await signIn(page, "manager@example.com");
  await page.goto("/models");
  await expect(page.locator(sel.modelsTable)).toContainText(modelName);
  await expect(page.locator(sel.uploadForm)).toHaveCount(0);
  await expect(page.locator(sel.zooRegister)).toHaveCount(0);
  await expect(page.locator(sel.zooTable)).toContainText("synthetic weights");
  await page.locator(sel.modelsTable).getByRole("link", { name: modelName }).click();
  await expect(page.locator(sel.sloCurrent)).toHaveText("p99 ≤ 50 ms");
  await expect(page.locator(sel.sloEdit)).toHaveCount(0);
  await expect(page.getByRole("button", { name: /Delete/ })).toHaveCount(0);
  await expect(page.locator(sel.analysisParameters)).toContainText("1,570");
  await shot(page, "detail-manager");
});
