// Calls one tRPC HTTP request may batch. The server refuses more (400, JSON error) so one GET cannot fan out
// into thousands of procedure calls; the browser's batch link splits at the same number.
export const TRPC_MAX_BATCH_CALLS = 20;
