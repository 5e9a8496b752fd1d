// Signing in through the real form, as a person would.
import { expect, type Browser, type Page } from "@playwright/test";
import { recordSecret, recordSessionCookie } from "../test/secrets-list";
import { sel } from "./selectors";

export const DEMO_PASSWORD = "packrat-demo";

export async function signIn(page: Page, email: string, password = DEMO_PASSWORD): Promise<void> {
  await page.goto("/sign-in");
  const form = page.locator(sel.signInForm);
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Password").fill(password);
  await form.getByRole("button", { name: "Sign in" }).click();
  // The first page a fresh server renders can take a while on a loaded machine.
  await expect(page.locator(sel.userMenu)).toContainText(email, { timeout: 30_000 });
  // The session is a secret the CI scan looks for in the server's output and the bundles (so is a password
  // other than the documented demo one).
  for (const c of await page.context().cookies())
    if (c.name.includes("session_token")) recordSessionCookie(`${c.name}=${c.value}`);
  if (password !== DEMO_PASSWORD) recordSecret("password", password);
}

/** A page in a fresh browser context (its own cookies), signed in as `email`. */
export async function newSignedInPage(
  browser: Browser,
  email: string,
  options: { baseURL: string; viewport: { width: number; height: number } },
): Promise<Page> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await signIn(page, email);
  return page;
}

/** A full-page screenshot for the record (e2e/.artifacts/screens/NAME.png; not compared against anything). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `e2e/.artifacts/screens/${name}.png`, fullPage: true });
}
