// better-auth, configured once: email + password against our Prisma tables, sessions in the database (so a
// role change or deactivation can revoke them), no self sign-up (admins create users). Rate limiting is ours
// (sign-in-throttle.ts: per email and per IP, in PostgreSQL); so are the CSRF check and the audit of sign-in
// events (auth-handler.ts), which wrap every request before it reaches better-auth.
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError } from "better-auth/api";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { log } from "@/server/log";
import { passwords } from "./password";
import { acceptedOrigins } from "./request-guard";
import { resolveAuthSecret } from "./secret";

export const SESSION_COOKIE_PREFIX = "packrat";
export const ACCOUNT_DEACTIVATED = "ACCOUNT_DEACTIVATED";

function createAuth() {
  const config = env();
  const publicUrl = new URL(config.PACKRAT_PUBLIC_URL);
  return betterAuth({
    appName: "Packrat",
    baseURL: publicUrl.origin,
    // better-auth checks Origin too; it accepts the same origins as our CSRF guard (request-guard.ts).
    trustedOrigins: acceptedOrigins(config.PACKRAT_PUBLIC_URL),
    basePath: "/api/auth",
    secret: resolveAuthSecret({ secret: config.BETTER_AUTH_SECRET, dataDir: config.PACKRAT_DATA_DIR }),
    database: prismaAdapter(db(), { provider: "postgresql" }),
    emailAndPassword: {
      enabled: true,
      disableSignUp: true,
      password: {
        hash: (password) => passwords.hash(password),
        verify: ({ hash, password }) => passwords.verify(hash, password),
      },
    },
    user: {
      additionalFields: {
        // input: false — no better-auth endpoint may set them; only the admin's users service does.
        role: { type: "string", input: false, required: false },
        active: { type: "boolean", input: false, required: false },
      },
    },
    session: { expiresIn: 7 * 24 * 3600, updateAge: 24 * 3600 },
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    advanced: {
      cookiePrefix: SESSION_COOKIE_PREFIX,
      // httpOnly and SameSite=Lax are better-auth's defaults; Secure follows the public URL's scheme.
      useSecureCookies: publicUrl.protocol === "https:",
    },
    logger: {
      level: config.LOG_LEVEL,
      log: (level, message) => log[level](`better-auth: ${message}`),
    },
    databaseHooks: {
      session: {
        create: {
          // Runs after the password matched: a deactivated account learns only then that it is deactivated.
          before: async (session) => {
            const user = await db().user.findUnique({ where: { id: session.userId }, select: { active: true } });
            if (!user?.active)
              throw new APIError("FORBIDDEN", { message: "This account is deactivated", code: ACCOUNT_DEACTIVATED });
          },
        },
      },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;

// One instance per process; route handlers and server components do not share module state in Next.
const holder = globalThis as unknown as { packratAuth?: Auth };

export function auth(): Auth {
  holder.packratAuth ??= createAuth();
  return holder.packratAuth;
}

/** Tests change the environment between files; production never calls this. */
export function resetAuthForTests(): void {
  holder.packratAuth = undefined;
}
