// An HTTP/1.1 error answer written straight onto a socket, for the places that have no HTTP server in front of
// them (the supervisor's held connections) or must not go through it (a refused upload, malformed HTTP).
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";

/** How long a closing connection keeps reading (and dropping) what the client still sends before it is cut. */
export const LINGER_MS = 10_000;

export function rawErrorResponse(status: number, message: string, headers: Record<string, string> = {}): string {
  const payload = JSON.stringify({ error: message });
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n${extra}connection: close\r\n\r\n${payload}`;
}

/**
 * Answers and closes with a lingering close: the answer, then FIN, then whatever the client still sends is read and
 * dropped (never buffered) for at most LINGER_MS. Closing with unread data in the buffer sends a reset, which can
 * destroy the answer before the client reads it.
 */
export function answerAndClose(
  socket: Socket,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  socket.on("error", () => socket.destroy()); // the client may have gone already: nothing to tell it
  socket.end(rawErrorResponse(status, message, headers));
  socket.resume();
  socket.setTimeout(LINGER_MS, () => socket.destroy());
}
