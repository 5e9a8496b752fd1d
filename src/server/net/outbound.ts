// The process's outbound guard, configured from the environment (PACKRAT_OUTBOUND_ALLOW). Every request to a URL a
// user gave goes through outboundGuard().fetch; outbound-guard.ts explains what it refuses and why.
import { env } from "@/server/env";
import { createOutboundGuard, type OutboundGuard } from "./outbound-guard";

let cached: { key: string; guard: OutboundGuard } | undefined;

export function outboundGuard(): OutboundGuard {
  const allow = env().PACKRAT_OUTBOUND_ALLOW;
  const key = allow.join(",");
  if (cached?.key !== key) cached = { key, guard: createOutboundGuard({ allow }) };
  return cached.guard;
}
