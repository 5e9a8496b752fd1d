// Reads a request body up to a limit; beyond it the request is answered 413 without reading the rest.
import type { IncomingMessage } from "node:http";

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) { super(`request body exceeds ${limit} bytes`); }
}

/** The client stopped sending before the body was complete (connection closed, Content-Length not reached). */
export class BodyIncompleteError extends Error {
  constructor(readonly received: number, reason: string) { super(`request body ended after ${received} bytes: ${reason}`); }
}

export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners("data");
        request.resume();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => { ended = true; resolve(Buffer.concat(chunks)); });
    // A client that goes away mid-upload is its own fault (4xx in the metrics), not the server's.
    request.on("error", (error) => reject(new BodyIncompleteError(size, error.message)));
    request.on("close", () => { if (!ended) reject(new BodyIncompleteError(size, "connection closed")); });
  });
}
