// What a newcomer meets on the `npm start` system: the icons and manifest load, signing in at 127.0.0.1 (a
// loopback alias of the configured localhost address) works, a refused origin names the configured address, and
// no page logs an error in the browser console (a hydration mismatch, a failed resource, an uncaught exception).
import { expect, test, type Page } from "@playwright/test";
import { navLinks } from "../src/components/nav-links";
import { sel } from "./selectors";
import { signIn } from "./sign-in";
import { testEnv } from "../test/test-env";

const port = Number(testEnv.E2E_PORT ?? 3100);

/** Every console error and uncaught page error from now on, with the page it happened on. */
function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`${page.url()}: uncaught ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error")
      errors.push(`${page.url()}: console.error ${message.text()} ${message.location().url ?? ""}`);
  });
  return errors;
}

test("the favicon, app icons and web manifest are served to a signed-out visitor", async ({ request }) => {
  for (const [path, type] of [
    ["/favicon.ico", /image\/(x-icon|vnd\.microsoft\.icon)/],
    ["/icon.svg", /image\/svg\+xml/],
    ["/icon-192.png", /image\/png/],
    ["/apple-touch-icon.png", /image\/png/],
  ] as const) {
    const response = await request.get(path);
    expect(response.status(), path).toBe(200);
    expect(response.headers()["content-type"], path).toMatch(type);
  }
  const manifest = await request.get("/manifest.webmanifest");
  expect(manifest.status()).toBe(200);
  expect((await manifest.json()).name).toBe("Packrat");
});

test("signing in at 127.0.0.1 works although the dashboard is configured at localhost", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: `http://127.0.0.1:${port}` });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await signIn(page, "sre@example.com");
  expect(new URL(page.url()).host).toBe(`127.0.0.1:${port}`);
  await page.goto("/agents");
  await expect(page.getByRole("heading", { name: "Agents" })).toBeVisible();
  expect(errors).toEqual([]);
  await context.close();
});

test("a sign-in from an origin the dashboard does not accept names the configured address as a link", async ({
  page,
}) => {
  // A browser sets Origin itself (and will not let a page change it): the sign-in goes to the real server with the
  // Origin of a page opened at another address, and the browser gets the server's real answer.
  await page.route("**/api/auth/sign-in/email", async (route) => {
    const response = await route.fetch({ headers: { ...route.request().headers(), origin: "http://127.0.0.1:1" } });
    await route.fulfill({ response });
  });
  await page.goto("/sign-in");
  const form = page.locator(sel.signInForm);
  await form.getByLabel("Email").fill("sre@example.com");
  await form.getByLabel("Password").fill("packrat-demo");
  await form.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator(sel.signInError)).toContainText("the dashboard is configured at another address");
  const link = page.locator(sel.signInError).getByTestId("configured-address");
  await expect(link).toHaveText(`http://localhost:${port}`);
  await expect(link).toHaveAttribute("href", `http://localhost:${port}/sign-in?next=%2F`);
});

test("no page logs an error in the browser console", async ({ page }) => {
  test.setTimeout(300_000);
  const errors = collectErrors(page);
  await page.goto("/sign-in");
  await expect(page.locator(sel.signInForm)).toBeVisible();
  await signIn(page, "admin@example.com");
  // Every page of the navigation (an admin may open them all), the planning tools, then one of each page that
  // shows a single object, reached from its list.
  const paths = [
    ...navLinks.map((l) => l.href),
    "/planning/capacity",
    "/planning/batching",
    "/planning/kv-cache",
    "/planning/latency-budget",
    "/profiles/compare",
    "/account",
  ];
  for (const path of paths) {
    await page.goto(path);
    await expect(page.locator("main h1").first()).toBeVisible();
    await page.waitForLoadState("networkidle");
  }
  for (const [list, prefix] of [
    ["/models", "/models/"],
    ["/agents", "/deployments/"],
  ] as const) {
    await page.goto(list);
    const link = page.locator(`main a[href^="${prefix}"]`).first();
    await expect(async () => {
      await page.reload();
      await expect(link).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 200_000, intervals: [2000] });
    await link.click();
    await expect(page).toHaveURL(new RegExp(prefix));
    await expect(page.locator("main h1").first()).toBeVisible();
    await page.waitForLoadState("networkidle");
  }
  expect(errors).toEqual([]);
});
