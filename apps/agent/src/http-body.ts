// Reads a request body up to a limit; beyond it the request is answered 413 without reading the rest.
import type { IncomingMessage } from "node:http";

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
  }
}

/** The client stopped sending before the body was complete (connection closed, Content-Length not reached). */
export class BodyIncompleteError extends Error {
  constructor(
    readonly received: number,
    reason: string,
  ) {
    super(`request body ended after ${received} bytes: ${reason}`);
  }
}

/** The serving process holds as many body bytes as it may (body-budget.ts): try again shortly. */
export class BodyBudgetError extends Error {
  constructor() {
    super("the agent is holding as many request bodies as it may; retry shortly");
  }
}

/** Charges a body against the process's budget as it arrives; false: no room. */
export interface BodyCharger {
  take(bytes: number): boolean;
}

export function readBody(request: IncomingMessage, limit: number, charge?: BodyCharger): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return streamBody(request, limit, charge, (chunk) => void chunks.push(chunk)).then(() =>
    // A body that came in one chunk (most do) is that chunk: no copy.
    chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
  );
}

/**
 * Reads a body chunk by chunk into `onChunk` (which keeps what it needs: nothing is gathered here), with
 * readBody's limit, budget and errors: a declared length over the limit is refused before a byte is read.
 */
export function streamBody(
  request: IncomingMessage,
  limit: number,
  charge: BodyCharger | undefined,
  onChunk: (chunk: Buffer) => void,
): Promise<void> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLargeError(limit));
  // A declared length is charged whole before a byte is read; a chunked body chunk by chunk.
  const upFront = Number.isFinite(declared) && declared >= 0;
  if (charge && upFront && !charge.take(declared)) return Promise.reject(new BodyBudgetError());
  return new Promise((resolve, reject) => {
    let size = 0;
    let ended = false;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      const refusal =
        size > limit
          ? new BodyTooLargeError(limit)
          : charge && !upFront && !charge.take(chunk.length)
            ? new BodyBudgetError()
            : null;
      if (refusal) {
        request.removeAllListeners("data");
        request.resume();
        reject(refusal);
        return;
      }
      onChunk(chunk);
    });
    request.on("end", () => {
      ended = true;
      resolve();
    });
    // A client that goes away mid-upload is its own fault (4xx in the metrics), not the server's.
    request.on("error", (error) => reject(new BodyIncompleteError(size, error.message)));
    request.on("close", () => {
      if (!ended) reject(new BodyIncompleteError(size, "connection closed"));
    });
  });
}
