// better-auth behind our guard: endpoint allowlist, CSRF check, sign-in rate limit, audit (auth-handler.ts).
import { handleAuthRequest } from "@/server/auth/auth-handler";

export const dynamic = "force-dynamic";

const handler = (request: Request) => handleAuthRequest(request);
export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE };
