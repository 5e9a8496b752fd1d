// Next's proxy (the file convention once called middleware): every page request gets a fresh CSP nonce. The policy
// goes on the request too, where Next reads the nonce to put it on its own scripts and styles; pages are rendered
// per request anyway (the layout reads the session). API routes are left out (their headers come from
// next.config.ts), so upload bodies never pass through here.
import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/server/env";
import { newNonce, pageContentSecurityPolicy, strictTransportSecurity } from "@/server/http/security-headers";

export function proxy(request: NextRequest): NextResponse {
  const nonce = newNonce();
  const https = env().PACKRAT_PUBLIC_URL?.startsWith("https:") ?? false;
  const policy = pageContentSecurityPolicy({ nonce, https, development: env().NODE_ENV === "development" });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", policy);
  if (https) response.headers.set("strict-transport-security", strictTransportSecurity);
  return response;
}

export const config = {
  matcher: [
    {
      // Everything but the API, built assets and icons; link prefetches carry no document.
      source: "/((?!api/|_next/static|_next/image|favicon.ico|icon|apple-touch-icon|manifest.webmanifest).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
