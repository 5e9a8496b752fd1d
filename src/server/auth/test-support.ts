// Helpers for integration tests of auth, users, audit and agent tokens. Not imported by production code.
// Every secret minted here (passwords, their hashes, agent and enrollment tokens) goes on the CI secret list
// (test/secrets-list.ts), which scripts/scan-secrets.ts looks for in the logs and client bundles.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { PrismaClient } from "@/generated/prisma/client";
import type { TrpcContext } from "@/server/api/trpc";
import { createLogger } from "@/server/log";
import { createAgentToken } from "@/server/services/agent-tokens-service";
import { createEnrollmentToken } from "@/server/services/enrollment-tokens-service";
import type { ServiceCaller } from "@/server/services/users-service";
import { recordSecret } from "../../../test/secrets-list";
import type { PasswordHasher } from "./password";
import type { Role } from "@/core/security/roles";
import type { SessionUser } from "./session";

/** A salted SHA-256 instead of scrypt: microseconds instead of 150 ms. Never outside tests. */
export const cheapHasher: PasswordHasher = {
  async hash(password) {
    const salt = randomBytes(8).toString("hex");
    const hash = `test:${salt}:${createHash("sha256")
      .update(salt + password)
      .digest("hex")}`;
    // Whatever a test hashes (its users' passwords, PACKRAT_ADMIN_PASSWORD values for the seed) is a secret.
    recordSecret("password", password);
    recordSecret("password hash", hash);
    return hash;
  },
  async verify(hash, password) {
    const [kind, salt, digest] = hash.split(":");
    return kind === "test" && digest === createHash("sha256").update(`${salt}${password}`).digest("hex");
  },
};

export const uniqueEmail = (label: string) => `${label}-${randomUUID().slice(0, 8)}@test.example`;

/** A user with a credential account, straight into the database (no audit: fixtures are not events). */
export async function insertTestUser(
  prisma: PrismaClient,
  role: Role,
  options: { email?: string; password?: string; active?: boolean } = {},
): Promise<SessionUser & { password: string }> {
  const id = randomUUID();
  const email = options.email ?? uniqueEmail(role.replace("_", "-"));
  const password = options.password ?? `pw-${randomUUID()}`;
  await prisma.user.create({
    data: {
      id,
      email,
      name: `Test ${role}`,
      role,
      active: options.active ?? true,
      accounts: {
        create: {
          id: randomUUID(),
          accountId: id,
          providerId: "credential",
          password: await cheapHasher.hash(password),
        },
      },
    },
  });
  return { id, email, name: `Test ${role}`, role, password };
}

/** A tRPC context as createTrpcContext would build it for this user (null: anonymous), signed in with `sessionId`. */
export function contextFor(
  user: SessionUser | null,
  requestId = `test-${randomUUID()}`,
  sessionId: string | null = null,
): TrpcContext {
  return {
    headers: new Headers(),
    requestId,
    log: createLogger({ level: "error" }),
    getUser: async () => user,
    getSessionId: async () => (user ? sessionId : null),
  };
}

/** createAgentToken, with the token put on the secret list. */
export async function createTestAgentToken(caller: ServiceCaller, input: { name: string }, prisma?: PrismaClient) {
  const created = await createAgentToken(caller, input, prisma);
  recordSecret("agent token", created.token);
  return created;
}

/** createEnrollmentToken, with the token put on the secret list. */
export async function createTestEnrollmentToken(
  caller: ServiceCaller,
  input: Parameters<typeof createEnrollmentToken>[1],
  prisma?: PrismaClient,
) {
  const created = await createEnrollmentToken(caller, input, prisma);
  recordSecret("enrollment token", created.token);
  return created;
}
