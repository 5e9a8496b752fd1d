// A binary-extension request body decoded while it arrives. The JSON header comes first (its length is the
// Inference-Header-Content-Length header); once it is in, it is parsed and validated, every binary input gets its
// own buffer of exactly its size, and the rest of the body is copied chunk by chunk from the socket straight into
// those buffers: each tensor byte is copied once (socket chunk → tensor), never gathered into one body first. The
// buffers belong to the request alone (no instance's slab is reserved while the body is still arriving), so an
// aborted upload leaves nothing behind, and a large one is moved, not copied, to the instance thread that runs it.
import type { OipParameters } from "@packrat/contracts/oip-infer";
import {
  binarySizeProblem,
  binaryTruncated,
  binaryUnclaimed,
  decodeInferRequest,
  headerLengthProblem,
  parseJsonBytes,
  type BinaryInputs,
  type ParsedInferRequest,
} from "./oip-codec";
import type { ModelMetadata } from "./served-model";

/** Where one binary input's bytes go: [start, start + buffer.byteLength) of the binary block. */
interface Region {
  name: string;
  start: number;
  bytes: number;
  buffer: Uint8Array;
}

export class BinaryRequestStream {
  private readonly headerLength: number;
  private headerChunks: Buffer[] = [];
  private headerReceived = 0;
  /** Bytes of the binary block (after the header) received so far. */
  private binaryReceived = 0;
  private regions: Region[] = [];
  /** The region the next binary byte goes to (regions are in block order). */
  private regionAt = 0;
  /** Bytes the header's inputs claim. */
  private claimed = 0;
  private parsed?: ParsedInferRequest;
  /** The first thing found wrong; the rest of the body is then read and dropped, and this is the answer. */
  private problem?: Error;
  /** Time spent parsing and validating the header (the copies are spread over the upload). */
  parseMs = 0;

  /**
   * `declaredBytes`: the body's Content-Length when it has one; the binary block's size is then known up front and
   * checked as the buffered decoder checks it, in the same order, before a byte of it is copied.
   */
  constructor(
    private readonly rawHeaderLength: string,
    private readonly declaredBytes: number | undefined,
    private readonly metadata: ModelMetadata,
  ) {
    const n = Number(rawHeaderLength);
    // Not a length at all: the body is only counted (its size is in the message); without a Content-Length, the
    // problem is known once the body has ended.
    this.headerLength = Number.isInteger(n) && n >= 0 ? n : Infinity;
    if (declaredBytes !== undefined && this.headerLength > declaredBytes)
      this.problem = headerLengthProblem(rawHeaderLength, declaredBytes);
  }

  /** Whether the header is parsed (what remains is tensor bytes), or the request failed already. */
  get headerDone(): boolean {
    return this.parsed !== undefined || this.problem !== undefined;
  }

  /** What is wrong with the request, once known (the rest of the body is then only counted, never copied). */
  get failure(): Error | undefined {
    return this.problem;
  }

  /** Takes the next chunk of the body. Never throws: a problem is kept for finish(). */
  push(chunk: Buffer): void {
    if (this.problem) return;
    let rest = chunk;
    if (this.headerLength === Infinity) {
      this.headerReceived += chunk.length;
      return;
    }
    if (this.headerReceived < this.headerLength) {
      const want = this.headerLength - this.headerReceived;
      const head = rest.length <= want ? rest : rest.subarray(0, want);
      this.headerChunks.push(head);
      this.headerReceived += head.length;
      rest = rest.length <= want ? EMPTY : rest.subarray(want);
      if (this.headerReceived < this.headerLength) return;
    }
    if (!this.parsed) {
      this.parseHeader();
      if (this.problem) return;
    }
    if (rest.length > 0) this.copy(rest);
  }

  private parseHeader(): void {
    const started = performance.now();
    const header = this.headerChunks.length === 1 ? this.headerChunks[0]! : Buffer.concat(this.headerChunks);
    this.headerChunks = [];
    try {
      const json = parseJsonBytes(header);
      const known = this.declaredBytes === undefined ? undefined : this.declaredBytes - this.headerLength;
      this.parsed = decodeInferRequest(json, this.binaryInputs(known), this.metadata);
    } catch (error) {
      this.problem = error as Error;
      this.regions = [];
    }
    this.parseMs += performance.now() - started;
  }

  /** The binary block's inputs, each given its own buffer; with the block's size known, checked as it is taken. */
  private binaryInputs(blockBytes: number | undefined): BinaryInputs {
    return {
      dataFields: "data nor binary_data_size",
      take: (input: { name: string; parameters?: OipParameters }, _index: number, bytes: number, described: string) => {
        const binarySize = input.parameters?.binary_data_size;
        if (binarySize === undefined) return undefined;
        if (typeof binarySize !== "number" || !Number.isInteger(binarySize) || binarySize !== bytes)
          throw binarySizeProblem(input.name, binarySize, described, bytes);
        if (blockBytes !== undefined && this.claimed + bytes > blockBytes)
          throw binaryTruncated(input.name, blockBytes - this.claimed, bytes);
        // Uninitialised: every byte is written from the body before the tensor is used.
        const buffer = Buffer.allocUnsafeSlow(bytes).buffer as ArrayBuffer;
        this.regions.push({ name: input.name, start: this.claimed, bytes, buffer: new Uint8Array(buffer) });
        this.claimed += bytes;
        return buffer;
      },
      finish: () => {
        if (blockBytes !== undefined && blockBytes !== this.claimed) throw binaryUnclaimed(blockBytes - this.claimed);
      },
    };
  }

  /** Copies binary-block bytes into the regions they belong to; bytes past the last region are only counted. */
  private copy(bytes: Buffer): void {
    let at = 0;
    while (at < bytes.length && this.regionAt < this.regions.length) {
      const region = this.regions[this.regionAt]!;
      const into = this.binaryReceived - region.start;
      const n = Math.min(region.bytes - into, bytes.length - at);
      region.buffer.set(at === 0 && n === bytes.length ? bytes : bytes.subarray(at, at + n), into);
      at += n;
      this.binaryReceived += n;
      if (into + n === region.bytes) this.regionAt++;
    }
    this.binaryReceived += bytes.length - at;
  }

  /** After the whole body: the request, or the error that says what was wrong with it. */
  finish(): ParsedInferRequest {
    // An empty header of an empty body: no chunk came to parse it.
    if (!this.parsed && !this.problem && this.headerReceived === this.headerLength) this.parseHeader();
    if (this.problem) throw this.problem;
    if (!this.parsed) throw headerLengthProblem(this.rawHeaderLength, this.headerReceived);
    // A body without a Content-Length (chunked): its block's size is known only now.
    if (this.declaredBytes === undefined) {
      let offset = 0;
      for (const region of this.regions) {
        if (offset + region.bytes > this.binaryReceived)
          throw binaryTruncated(region.name, this.binaryReceived - offset, region.bytes);
        offset += region.bytes;
      }
      if (offset !== this.binaryReceived) throw binaryUnclaimed(this.binaryReceived - offset);
    }
    return this.parsed;
  }
}

const EMPTY = Buffer.alloc(0);
