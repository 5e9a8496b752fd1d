// Security headers, a user's own password and the enrollment form, in a real Chromium against `npm start`.
import { expect, test, type Page } from "@playwright/test";
import { recordSecret, recordSessionCookie } from "../test/secrets-list";
import { newE2ePrisma } from "./e2e-database";
import { sel } from "./selectors";
import { screenshot, signIn } from "./sign-in";

/** CSP violations the page reports (the securitypolicyviolation event) and console errors, from now on. */
async function watchViolations(page: Page): Promise<string[]> {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`${page.url()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`${page.url()}: uncaught ${error.message}`));
  await page.exposeFunction("reportCspViolation", (text: string) => problems.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { reportCspViolation: (t: string) => void }).reportCspViolation(
        `${location.pathname}: ${e.violatedDirective} blocked ${e.blockedURI || "inline"}`,
      );
    });
  });
  return problems;
}

test("pages carry a fresh nonce CSP (no framing), nosniff and a referrer policy; no HSTS over http; the API runs nothing", async ({
  request,
}) => {
  const first = await request.get("/sign-in");
  const second = await request.get("/sign-in");
  const csp = first.headers()["content-security-policy"]!;
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}' 'strict-dynamic'/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
  const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
  expect(second.headers()["content-security-policy"]).not.toContain(nonce);
  expect(first.headers()["x-content-type-options"]).toBe("nosniff");
  expect(first.headers()["referrer-policy"]).toBe("same-origin");
  expect(first.headers()["x-frame-options"]).toBe("DENY");
  expect(first.headers()["strict-transport-security"]).toBeUndefined();
  // Every script of the page carries this response's nonce (Next put it there from the policy).
  const html = await first.text();
  const scripts = html.match(/<script\b[^>]*>/g) ?? [];
  expect(scripts.length).toBeGreaterThan(0);
  for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
  const health = await request.get("/api/health");
  expect(health.headers()["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(health.headers()["x-content-type-options"]).toBe("nosniff");
});

test("with the CSP, pages render and hydrate (forms, charts) without a single violation", async ({ page }) => {
  test.setTimeout(180_000);
  const problems = await watchViolations(page);
  await signIn(page, "admin@example.com");
  for (const path of ["/", "/benchmarks", "/cost", "/planning/capacity", "/agents", "/admin", "/account"]) {
    await page.goto(path);
    await expect(page.locator("main h1").first()).toBeVisible();
    await page.waitForLoadState("networkidle");
  }
  // Hydrated: the form's own check (JavaScript, not the browser's) runs.
  const form = page.getByTestId("change-password-form");
  await form.getByLabel("Current password").fill("whatever-it-is");
  await form.getByLabel("New password", { exact: true }).fill("one-new-password-1");
  await form.getByLabel("New password again").fill("another-password-2");
  await form.getByRole("button", { name: "Change password" }).click();
  await expect
    .poll(() => form.getByLabel("New password again").evaluate((el) => (el as HTMLInputElement).validationMessage))
    .toBe("does not match the new password");
  await screenshot(page, "account");
  expect(problems).toEqual([]);
});

test("a user changes their own password: the current one is needed, their other sessions end, the new one signs in", async ({
  browser,
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page, "admin@example.com");
  const email = `pw-${Date.now()}@example.com`;
  const created = await page.request.post("/api/trpc/users.create", {
    headers: { origin: new URL(page.url()).origin, "content-type": "application/json" },
    data: { json: { email, name: "Pat Password", role: "ml_engineer", password: "first-password-123" } },
  });
  expect(created.status()).toBe(200);
  recordSecret("password", "first-password-123");
  recordSecret("password", "second-password-456");

  const elsewhere = await browser.newContext();
  const other = await elsewhere.newPage();
  await signIn(other, email, "first-password-123");
  const here = await browser.newContext();
  const me = await here.newPage();
  await signIn(me, email, "first-password-123");
  await me.locator(sel.userMenu).getByRole("link", { name: "Your account" }).click();
  await expect(me.getByRole("heading", { name: "Your account" })).toBeVisible();
  const form = me.getByTestId("change-password-form");
  await form.getByLabel("Current password").fill("not-my-password");
  await form.getByLabel("New password", { exact: true }).fill("second-password-456");
  await form.getByLabel("New password again").fill("second-password-456");
  await form.getByRole("button", { name: "Change password" }).click();
  await expect(me.locator("main").getByRole("alert")).toHaveText("the current password is not correct");
  await form.getByLabel("Current password").fill("first-password-123");
  await form.getByLabel("New password", { exact: true }).fill("second-password-456");
  await form.getByLabel("New password again").fill("second-password-456");
  await form.getByRole("button", { name: "Change password" }).click();
  await expect(me.getByTestId("change-password-notice")).toHaveText(
    "Password changed. 1 other session was signed out.",
  );
  await screenshot(me, "account-password-changed");
  // This browser stays signed in; the other one is out.
  await me.goto("/");
  await expect(me.locator(sel.userMenu)).toContainText(email);
  await other.goto("/");
  await expect(other).toHaveURL(/\/sign-in/);
  await signIn(other, email, "second-password-456");
  await elsewhere.close();
  await here.close();
});

test("an enrollment token expires in 30 days unless asked otherwise, and the Agents page says when", async ({
  page,
}) => {
  await signIn(page, "sre@example.com");
  await page.goto("/agents");
  const form = page.getByTestId("enrollment-token-form");
  await expect(form.getByLabel("Expires in")).toHaveValue("30");
  await form.getByLabel("Name").fill(`e2e-default-${Date.now()}`);
  await form.getByRole("button", { name: "Create" }).click();
  await expect(page.getByTestId("new-enrollment-token")).toContainText("It expires");
  recordSecret(
    "enrollment token",
    (await page.getByTestId("new-enrollment-token").locator("code").textContent()) ?? "",
  );
  await expect(page.getByTestId("enrollment-token-expiry").first()).toContainText("(in 30 days)");
  await page.getByTestId("new-enrollment-token").getByRole("button", { name: "Done" }).click();
  await form.getByLabel("Name").fill(`e2e-forever-${Date.now()}`);
  await form.getByLabel("Expires in").selectOption("never");
  await form.getByRole("button", { name: "Create" }).click();
  await expect(page.getByTestId("new-enrollment-token")).toContainText("It never expires");
  recordSecret(
    "enrollment token",
    (await page.getByTestId("new-enrollment-token").locator("code").textContent()) ?? "",
  );
  await expect(page.getByTestId("enrollment-token-expiry").first()).toHaveText("never");
  await screenshot(page, "enrollment-tokens");
});

test("the sign-in throttle and the audit log see the TCP peer, not a forged X-Forwarded-For", async ({
  request,
  baseURL,
}) => {
  const response = await request.post("/api/auth/sign-in/email", {
    headers: {
      origin: baseURL!,
      "content-type": "application/json",
      "x-forwarded-for": "203.0.113.77",
      "x-packrat-peer-address": "203.0.113.78",
    },
    data: { email: "manager@example.com", password: "packrat-demo" },
  });
  expect(response.status()).toBe(200);
  const cookie = response
    .headersArray()
    .find((h) => h.name.toLowerCase() === "set-cookie" && h.value.includes("session_token"));
  if (cookie) recordSessionCookie(cookie.value.split(";")[0]!);
  const prisma = newE2ePrisma();
  try {
    const event = await prisma.auditEvent.findFirstOrThrow({
      where: { action: "auth.sign_in", actorLabel: "manager@example.com" },
      orderBy: { id: "desc" },
    });
    expect((event.after as { ip: string }).ip).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
  } finally {
    await prisma.$disconnect();
  }
});
