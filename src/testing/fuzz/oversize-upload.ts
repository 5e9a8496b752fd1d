// Uploads a body larger than the server's limit in 1 MiB pieces (with backpressure), calling `sample` between
// pieces, and stops sending once the server has answered (as curl and undici do: the agent, like any Node server,
// closes a Connection: close socket right after its answer, and a client still writing then gets a reset). Used to check that an over-limit body is refused without
// being buffered: the caller samples the server's RSS.
import { connect } from "node:net";
import { parseHttpResponse, type RawHttpResponse } from "./raw-http";

const PIECE = 1024 * 1024;

export async function uploadOversizeBody(options: {
  port: number;
  path: string;
  bytes: number;
  /** true: Content-Length announces the size; false: chunked transfer encoding, no size up front. */
  declareLength: boolean;
  sample: () => void;
}): Promise<{ response?: RawHttpResponse; sentBytes: number; detail?: string }> {
  const socket = connect({ port: options.port, host: "127.0.0.1" });
  const chunks: Buffer[] = [];
  let answered = false;
  let failure: string | undefined;
  socket.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    if (Buffer.concat(chunks).includes("\r\n\r\n")) answered = true;
  });
  socket.on("error", (error) => {
    failure ??= error.message;
  });
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.on("end", () => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const framing = options.declareLength ? `Content-Length: ${options.bytes}` : "Transfer-Encoding: chunked";
  socket.write(
    `POST ${options.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`,
  );
  const piece = Buffer.alloc(PIECE, 0x20); // spaces: valid JSON padding, so only the size can be the objection
  let sent = 0;
  while (sent < options.bytes && !answered && !socket.destroyed) {
    const n = Math.min(PIECE, options.bytes - sent);
    const data = options.declareLength
      ? piece.subarray(0, n)
      : Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), piece.subarray(0, n), Buffer.from("\r\n")]);
    const flushed = socket.write(data);
    sent += n;
    options.sample();
    if (!flushed)
      await new Promise<void>((resolve) => {
        socket.once("drain", resolve);
        socket.once("close", resolve);
      });
  }
  if (sent === options.bytes && !socket.destroyed && !options.declareLength) socket.write("0\r\n\r\n");
  await closed;
  const data = Buffer.concat(chunks);
  if (data.length === 0) return { sentBytes: sent, detail: failure ?? "no response" };
  return { response: parseHttpResponse(data), sentBytes: sent, detail: failure };
}
