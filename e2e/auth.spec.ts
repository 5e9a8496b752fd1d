// Users, roles, the audit log and agent tokens in a real Chromium against `npm start` (demo users seeded).
import { expect, test } from "@playwright/test";
import { recordSecret } from "../test/secrets-list";
import { sel } from "./selectors";
import { screenshot, signIn } from "./sign-in";

const navigation: Record<string, { email: string; role: string; links: string[] }> = {
  admin: {
    email: "admin@example.com",
    role: "Admin",
    links: [
      "Overview",
      "Models",
      "Planning",
      "Benchmarks",
      "Agents",
      "Optimizer",
      "Approvals",
      "Cost",
      "Alerts",
      "Audit",
      "Users",
    ],
  },
  sre: {
    email: "sre@example.com",
    role: "SRE",
    links: [
      "Overview",
      "Models",
      "Planning",
      "Benchmarks",
      "Agents",
      "Optimizer",
      "Approvals",
      "Cost",
      "Alerts",
      "Audit",
    ],
  },
  ml_engineer: {
    email: "ml@example.com",
    role: "ML engineer",
    links: ["Overview", "Models", "Planning", "Benchmarks", "Agents", "Optimizer", "Approvals", "Alerts"],
  },
  manager: {
    email: "manager@example.com",
    role: "Manager",
    links: ["Overview", "Models", "Planning", "Benchmarks", "Optimizer", "Approvals", "Cost", "Alerts"],
  },
};

test("an anonymous visitor is sent to the sign-in page and comes back after signing in", async ({ page }) => {
  await page.goto("/audit");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Faudit$/);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await screenshot(page, "sign-in");
  await page.locator(sel.signInForm).getByLabel("Email").fill("sre@example.com");
  await page.locator(sel.signInForm).getByLabel("Password").fill("packrat-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  // The run's first sign-in hashes a password and renders a first page: seconds on a loaded 2-core host.
  await expect(page).toHaveURL(/\/audit$/, { timeout: 30_000 });
  await expect(page.getByRole("heading", { name: "Audit log" })).toBeVisible();
});

for (const [role, expected] of Object.entries(navigation)) {
  test(`${role} signs in and sees its navigation and role`, async ({ page }) => {
    await signIn(page, expected.email);
    await expect(page.locator(sel.mainNav).getByRole("link")).toHaveText(expected.links);
    await expect(page.locator(sel.userRole)).toHaveText(expected.role);
    await screenshot(page, `overview-${role}`);
  });
}

test("a wrong password shows a clear message and no session", async ({ page }) => {
  await page.goto("/sign-in");
  await page.locator(sel.signInForm).getByLabel("Email").fill("ml@example.com");
  await page.locator(sel.signInForm).getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator(sel.signInError)).toHaveText("Wrong email or password.");
  await expect(page).toHaveURL(/\/sign-in/);
  await screenshot(page, "sign-in-wrong-password");
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in/);
});

test("a manager opening the admin page gets the 403 page, with none of its data", async ({ page }) => {
  await signIn(page, "manager@example.com");
  const response = await page.goto("/admin");
  expect(response?.ok()).toBe(true);
  await expect(page.locator(sel.forbidden)).toContainText("You need the admin role");
  await expect(page.locator(sel.usersTable)).toHaveCount(0);
  // Other users' emails would only be there if the user list had been sent.
  expect(await page.content()).not.toContain("sre@example.com");
  await screenshot(page, "forbidden-manager-admin");
  // And the API says the same to the same session.
  const api = await page.request.get("/api/trpc/users.list");
  expect(api.status()).toBe(403);
});

test("an admin creates a user, the user can sign in, and the audit page lists the creation", async ({
  page,
  browser,
}) => {
  const email = `new-${Date.now()}@example.com`;
  await signIn(page, "admin@example.com");
  await page.getByRole("link", { name: "Users" }).click();
  await expect(page.getByRole("heading", { name: "Users", level: 1 })).toBeVisible();
  const form = page.locator(sel.createUserForm);
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Name").fill("Nia New");
  await form.getByLabel("Role").selectOption("sre");
  await form.getByLabel("Password").fill("a-fresh-password-1");
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(page.locator(sel.usersNotice)).toHaveText(`Created ${email} (sre).`);
  await expect(page.locator(`${sel.usersTable} tr[data-email="${email}"]`)).toContainText("active");
  await screenshot(page, "admin-users");

  const other = await browser.newContext();
  const newUser = await other.newPage();
  await signIn(newUser, email, "a-fresh-password-1");
  await expect(newUser.locator(sel.userRole)).toHaveText("SRE");
  await other.close();

  await page.getByRole("link", { name: "Audit" }).click();
  const row = page.locator(`${sel.auditTable} tr[data-action="user.create"]`, { hasText: email });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("admin@example.com");
  await row.click();
  await expect(page.locator(sel.auditDetail)).toContainText(`"email": "${email}"`);
  await expect(page.locator(sel.auditDetail)).toContainText(`"role": "sre"`);
  await screenshot(page, "audit-with-detail");

  // Filter by action and target: only that event remains.
  const filters = page.locator(sel.auditFilters);
  await filters.getByLabel("Action").selectOption("user.create");
  await filters.getByLabel("Target", { exact: true }).fill(email);
  await filters.getByRole("button", { name: "Apply" }).click();
  await expect(page.locator(`${sel.auditTable} tbody tr`)).toHaveCount(1);
});

test("an agent token made in the UI authenticates to the agent API until it is revoked", async ({
  page,
  playwright,
}) => {
  await signIn(page, "sre@example.com");
  await page.locator(sel.mainNav).getByRole("link", { name: "Agents" }).click();
  const tokenName = `e2e-host-${Date.now().toString(36)}`; // unique: a retried run must not meet the first one's token
  await page.locator(sel.createTokenForm).getByLabel("Name").fill(tokenName);
  await page.locator(sel.createTokenForm).getByRole("button", { name: "Create token" }).click();
  const token = (await page.locator(sel.newTokenValue).textContent())!.trim();
  recordSecret("agent token", token); // shown once in the page: it must never reach a log or a bundle
  expect(token).toMatch(/^prat_[\w-]{43}$/);
  const row = page.locator(`${sel.tokensTable} tr[data-name="${tokenName}"]`);
  await expect(row).toContainText("never");
  await screenshot(page, "agents-token-created");

  // A client with no cookies at all, like an agent.
  const agent = await playwright.request.newContext({ baseURL: page.url().replace(/\/agents$/, "") });
  const ok = await agent.get("/api/agent/v1/whoami", { headers: { authorization: `Bearer ${token}` } });
  expect(ok.status()).toBe(200);
  expect(await ok.json()).toMatchObject({ name: tokenName });
  // The signed-in browser session is not an agent identity.
  expect((await page.request.get("/api/agent/v1/whoami")).status()).toBe(401);

  await page.reload();
  await expect(row).not.toContainText("never"); // last used is recorded
  await row.getByRole("button", { name: "Revoke" }).click();
  await expect(row).toContainText("revoked");
  await screenshot(page, "agents-token-revoked");
  const refused = await agent.get("/api/agent/v1/whoami", { headers: { authorization: `Bearer ${token}` } });
  expect(refused.status()).toBe(401);
  await agent.dispose();
});

test("signing out ends the session", async ({ page }) => {
  await signIn(page, "ml@example.com");
  await page.locator(sel.userMenu).getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in/);
});
