// The CSRF defence for every state-changing request (tRPC mutations, sign-in, sign-out): POST only, with a
// JSON body, from a page of this dashboard (Origin equal to PACKRAT_PUBLIC_URL's origin). A plain HTML form
// cannot send application/json, and another site's page cannot send our Origin; anything else gets 403.
// A loopback public URL (localhost, 127.0.0.1, [::1]) accepts its loopback aliases on the same scheme and port:
// they are the same machine and no other site can be served from them, so opening 127.0.0.1 out of habit works.

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/** The origins a dashboard at `publicUrl` accepts changes from: its own first, then its loopback aliases. */
export function acceptedOrigins(publicUrl: string): string[] {
  const url = new URL(publicUrl);
  if (!LOOPBACK_HOSTS.includes(url.hostname)) return [url.origin];
  const port = url.port ? `:${url.port}` : "";
  return [
    url.origin,
    ...LOOPBACK_HOSTS.filter((host) => host !== url.hostname).map((host) => `${url.protocol}//${host}${port}`),
  ];
}

/**
 * Why a state-changing request is refused, or null when it may proceed. `bearer`: the caller authenticates with a
 * personal API token, not a cookie, so no other site can make a browser send it: the Origin check does not apply
 * (POST and JSON still do).
 */
export function mutationRejection(
  request: Request,
  publicUrl: string,
  options: { bearer?: boolean } = {},
): string | null {
  if (request.method !== "POST") return `changes are accepted only as POST (got ${request.method})`;
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json")
    return `changes are accepted only as application/json (got ${type ?? "no content type"})`;
  if (options.bearer) return null;
  const origin = request.headers.get("origin");
  if (!origin) return "the request has no Origin header";
  if (!acceptedOrigins(publicUrl).includes(origin))
    return `the request's Origin ${origin} is not this dashboard's (${new URL(publicUrl).origin})`;
  return null;
}

export function forbiddenResponse(reason: string, requestId: string): Response {
  return Response.json(
    { error: { code: "FORBIDDEN", message: reason } },
    { status: 403, headers: { "x-request-id": requestId, "cache-control": "no-store" } },
  );
}
