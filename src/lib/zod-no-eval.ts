// In the browser, zod's compiled fast path first probes `new Function("")`; the page's Content-Security-Policy
// forbids eval, so that probe is reported as a violation (zod then falls back anyway). Skipping the fast path up front
// keeps the policy's report clean. Imported for its effect by the client's root provider.
import { z } from "zod";

z.config({ jitless: true });
