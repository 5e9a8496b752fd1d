// Shared steps of the planning specs: sign in as the planners' main user, read and type fields, compare charts,
// download a chart's CSV, and attach a full-page screenshot at 1366×768 to the test's output.
import { readFile } from "node:fs/promises";
import { expect, type Page, type TestInfo } from "@playwright/test";
import { sel } from "./selectors";
import { signIn } from "./sign-in";

export const PLANNER_USER = "ml@example.com";
export const VIEWPORT = { width: 1366, height: 768 } as const;

export const field = (key: string) => `[data-testid="field-${key}"]`;
export const fieldError = (key: string) => `[data-testid="field-${key}-error"]`;

export async function openPlanner(page: Page, path: string): Promise<void> {
  await signIn(page, PLANNER_USER);
  await page.goto(path);
  await expect(page.locator(sel.planningTabs)).toBeVisible();
}

export async function setField(page: Page, key: string, value: string): Promise<void> {
  const input = page.locator(field(key));
  if ((await input.evaluate((el) => el.tagName)) === "SELECT") await input.selectOption(value);
  else await input.fill(value);
}

/** The markup of a chart's drawing once it has settled (Recharts animates a change for about 1.5 s; a signature
 *  taken mid-animation would differ from any other): equal before and after a change means the chart did not change. */
export async function chartSignature(page: Page, chart: string): Promise<string> {
  const svg = page.locator(chart).locator(sel.chartSvg).first();
  await expect(svg).toBeVisible();
  let last = await svg.innerHTML();
  await expect
    .poll(
      async () => {
        const now = await svg.innerHTML();
        const settled = now === last;
        last = now;
        return settled;
      },
      { message: `the chart ${chart} to stop changing`, intervals: [300], timeout: 15_000 },
    )
    .toBe(true);
  return last;
}

export async function expectReadable(page: Page): Promise<void> {
  // No horizontal scroll at 1366 px, and nothing on screen that is not a number where one belongs.
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  await expect(page.locator("main")).not.toContainText(/\bNaN\b|Infinity|undefined/);
}

export async function attachScreenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  const body = await page.screenshot({ fullPage: true, path: `e2e/.artifacts/screens/planning-${name}.png` });
  await testInfo.attach(`planning-${name}`, { body, contentType: "image/png" });
}

/** Clicks a chart's CSV button and returns the file's name and text. */
export async function downloadCsv(page: Page, chart: string): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.locator(chart).getByRole("button", { name: "CSV" }).click(),
  ]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: await readFile(path, "utf8") };
}
