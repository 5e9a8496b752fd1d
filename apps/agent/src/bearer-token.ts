// The data plane's credential check, shared by HTTP and gRPC: `Bearer <token>`, compared in constant time.
import { timingSafeEqual } from "node:crypto";

export function tokenMatches(header: string | undefined, token: string): boolean {
  const presented = header?.startsWith("Bearer ") ? Buffer.from(header.slice(7)) : Buffer.alloc(0);
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
