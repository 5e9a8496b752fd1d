// The hand-off between the dispatcher's thread and an instance thread without a message per request: a control
// block and two slabs (inputs, outputs) in SharedArrayBuffers. A side writes its tensors into its slab and their
// descriptors (index, datatype, shape, where the bytes are) into the control block, flips the state word and wakes
// the other side with Atomics.notify: the instance thread sleeps in Atomics.wait, the event-loop side in
// Atomics.waitAsync. A slab too small for a batch is replaced by a bigger one, sent once beside the hand-off over a
// MessagePort that the receiver drains synchronously (receiveMessageOnPort). Both sides own one slab each, and
// the state word says whose turn it is, so nothing is ever written while the other side reads it.
import { OIP_DATATYPES, type OipDatatype } from "@packrat/contracts/oip-datatypes";

/** Whose turn it is: idle (the event-loop side may write a request), request (the instance's), done (a result). */
export const IDLE = 0;
export const REQUEST = 1;
export const DONE = 2;

/** Control words. FLAGS: what comes with this hand-off; STATUS: of a result; COUNT: tensors described. */
export const STATE = 0;
const FLAGS = 1;
const STATUS = 2;
const COUNT = 3;
const MESSAGE_BYTES = 4;
/** Set by the event-loop side when a request is on its way (headsUp); the instance thread clears it. */
const HEADS_UP = 5;
/** Bytes 64..72 hold the instance's session.run time (a float64). */
const COMPUTE_BYTE_OFFSET = 64;
/** Descriptors (and a run error's message) start here. */
const DESCRIPTORS = 32;
/** 64 KiB: thousands of tensor dimensions; a request that needs more is refused with a message. */
export const CONTROL_BYTES = 64 * 1024;

/** A replacement slab travels over the side port before the hand-off that first uses it. */
export const FLAG_NEW_SLAB = 1;
/** Fault injection: the instance thread dies on this request (tests and the fault suite only). */
export const FLAG_FAULT = 2;
/** A large slice's tensors were moved (transferred) over the side port, not copied into the slab: only described. */
export const FLAG_MOVED = 4;
/** From this size a slice is moved rather than copied twice (into the slab, and out of it on the instance thread). */
export const MOVE_BYTES = 256 * 1024;

const STATUS_OK = 0;
const STATUS_ERROR = 1;

const DATATYPE_CODES = Object.keys(OIP_DATATYPES) as OipDatatype[];
const CODE_OF = new Map(DATATYPE_CODES.map((d, i) => [d, i]));

/** A tensor to hand over: which input/output of the model it is, and its bytes (dense, row-major). */
export interface SlabTensor {
  index: number;
  datatype: OipDatatype;
  shape: readonly number[];
  bytes: Uint8Array;
}

/** A tensor read from a slab: `bytes` is a view of the slab (valid until the turn passes back) or of a moved buffer. */
export interface SlabView {
  index: number;
  datatype: OipDatatype;
  shape: number[];
  bytes: Uint8Array;
}

export const createControl = (): Int32Array => new Int32Array(new SharedArrayBuffer(CONTROL_BYTES));

/** Offsets are 8-byte aligned, so every element type can be viewed in place. */
const align = (n: number) => (n + 7) & ~7;

/** Bytes a slab needs for these tensors. */
export function slabBytes(tensors: readonly { bytes: Uint8Array }[]): number {
  let total = 0;
  for (const t of tensors) total += align(t.bytes.byteLength);
  return total;
}

/** A replacement slab's size: at least `needed`, doubling so that a growing workload replaces it rarely. */
export function grownSlabBytes(current: number, needed: number): number {
  let size = Math.max(4096, current);
  while (size < needed) size *= 2;
  return size;
}

/**
 * Writes tensors into `slab` and their descriptors into `control`; the slab must hold slabBytes(tensors). Without a
 * slab only the descriptors are written (the bytes travel another way: FLAG_MOVED).
 */
export function writeTensors(
  control: Int32Array,
  slab: SharedArrayBuffer | undefined,
  tensors: readonly SlabTensor[],
): void {
  const bytes = slab && new Uint8Array(slab);
  let word = DESCRIPTORS;
  let offset = 0;
  for (const t of tensors) {
    const code = CODE_OF.get(t.datatype);
    if (code === undefined) throw new Error(`datatype ${t.datatype} cannot be handed to an instance`);
    if (word + 5 + t.shape.length > control.length)
      throw new Error(`the tensors' descriptors need more than ${CONTROL_BYTES} bytes`);
    const length = t.bytes.byteLength;
    if (slab && offset + length > slab.byteLength) throw new Error(`slab of ${slab.byteLength} bytes is too small`);
    control[word] = t.index;
    control[word + 1] = code;
    control[word + 2] = t.shape.length;
    control[word + 3] = offset;
    control[word + 4] = length;
    for (let d = 0; d < t.shape.length; d++) {
      const dim = t.shape[d]!;
      if (dim > 0x7fffffff) throw new Error(`dimension ${dim} is too large to hand over`);
      control[word + 5 + d] = dim;
    }
    word += 5 + t.shape.length;
    bytes?.set(t.bytes, offset);
    offset += align(length);
  }
  control[COUNT] = tensors.length;
  control[STATUS] = STATUS_OK;
}

/** The tensors the other side wrote, as views of its slab. */
export function readTensors(control: Int32Array, from: SharedArrayBuffer | readonly ArrayBuffer[]): SlabView[] {
  const moved = Array.isArray(from) ? (from as readonly ArrayBuffer[]) : undefined;
  const count = control[COUNT]!;
  const out: SlabView[] = new Array<SlabView>(count);
  let word = DESCRIPTORS;
  for (let i = 0; i < count; i++) {
    const rank = control[word + 2]!;
    const shape = new Array<number>(rank);
    for (let d = 0; d < rank; d++) shape[d] = control[word + 5 + d]!;
    out[i] = {
      index: control[word]!,
      datatype: DATATYPE_CODES[control[word + 1]!]!,
      shape,
      // A moved tensor is its own buffer, from offset 0.
      bytes: moved
        ? new Uint8Array(moved[i]!, 0, control[word + 4]!)
        : new Uint8Array(from as SharedArrayBuffer, control[word + 3]!, control[word + 4]!),
    };
    word += 5 + rank;
  }
  return out;
}

export const setFlags = (control: Int32Array, flags: number) => void (control[FLAGS] = flags);
export const flagsOf = (control: Int32Array) => control[FLAGS]!;

export const setComputeMs = (control: Int32Array, ms: number) =>
  void (new Float64Array(control.buffer, COMPUTE_BYTE_OFFSET, 1)[0] = ms);
export const computeMsOf = (control: Int32Array) => new Float64Array(control.buffer, COMPUTE_BYTE_OFFSET, 1)[0]!;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A failed run: its message (cut to what the control block holds) instead of tensors. */
export function writeError(control: Int32Array, message: string): void {
  const room = new Uint8Array(control.buffer, DESCRIPTORS * 4);
  const encoded = encoder.encode(message).subarray(0, room.byteLength);
  room.set(encoded);
  control[MESSAGE_BYTES] = encoded.byteLength;
  control[COUNT] = 0;
  control[STATUS] = STATUS_ERROR;
}

/** The failed run's message, or undefined when the result holds tensors. */
export function errorOf(control: Int32Array): string | undefined {
  if (control[STATUS] !== STATUS_ERROR) return undefined;
  // Copied out first: a decoder does not read shared memory.
  const bytes = new Uint8Array(new Uint8Array(control.buffer, DESCRIPTORS * 4, control[MESSAGE_BYTES]!));
  return decoder.decode(bytes);
}

/** Passes the turn and wakes the other side. */
export function handOver(control: Int32Array, state: typeof REQUEST | typeof DONE): void {
  Atomics.store(control, STATE, state);
  Atomics.notify(control, STATE);
}

/**
 * The instance thread's wait for a request: sleeps (no CPU) until the state word says REQUEST. Woken early by a
 * heads-up, it reads the state word in a loop for up to HEADS_UP_SPIN_MS instead, so that the request, when it
 * comes, finds it awake.
 */
export function waitForRequest(control: Int32Array): void {
  for (;;) {
    const state = Atomics.load(control, STATE);
    if (state === REQUEST) return;
    if (Atomics.exchange(control, HEADS_UP, 0) !== 0) {
      const until = performance.now() + HEADS_UP_SPIN_MS;
      while (Atomics.load(control, STATE) !== REQUEST && performance.now() < until);
      continue;
    }
    // Bounded, and the state re-read after it: a wake-up lost anywhere costs at most this, never a stuck instance.
    Atomics.wait(control, STATE, state, RECHECK_MS);
  }
}

/**
 * How long an instance thread woken by a heads-up stays awake for the request: long enough for a request's body to
 * be read and parsed, short enough that one that never comes (refused, or sent elsewhere) costs little.
 */
export const HEADS_UP_SPIN_MS = 1;

/**
 * Tells a sleeping instance thread that a request is on its way, before it is even parsed: a thread asleep in a
 * futex takes tens of microseconds to wake on a virtual CPU, which the parse then hides.
 */
export function headsUp(control: Int32Array): void {
  Atomics.store(control, HEADS_UP, 1);
  Atomics.notify(control, STATE);
}

/** Whether a heads-up is still waiting for the instance thread to take it. */
export const headsUpPending = (control: Int32Array) => Atomics.load(control, HEADS_UP) !== 0;

/**
 * How long either side sleeps before it looks at the state word again without being woken. Under load on 2 CPUs a
 * batch once stalled for good waiting on a wake-up (8 requests of a closed loop at concurrency 8, 2 instances); the
 * re-check turns any such loss into a delay.
 */
export const RECHECK_MS = 50;

/** Node 20 has it; the project's TypeScript lib (ES2022) does not declare it yet. */
interface AtomicsWaitAsync {
  waitAsync(
    array: Int32Array,
    index: number,
    value: number,
    timeoutMs?: number,
  ): { async: false; value: "not-equal" | "timed-out" } | { async: true; value: Promise<"ok" | "timed-out"> };
}

/**
 * The event-loop side's wait for the result of its request: resolves once the state word leaves REQUEST, or after
 * RECHECK_MS (the caller looks at the state and waits again); undefined when the answer is there already.
 */
export function whenAnswered(control: Int32Array): Promise<unknown> | undefined {
  const waiting = (Atomics as unknown as AtomicsWaitAsync).waitAsync(control, STATE, REQUEST, RECHECK_MS);
  return waiting.async ? waiting.value : undefined;
}

/**
 * The event-loop side's synchronous wait: holds the thread until the state word leaves REQUEST or `timeoutMs` has
 * passed, and says whether the answer is there. Only for a request with nothing else in flight: the wake-up through
 * the event loop (waitAsync) costs tens of microseconds on a small model, holding a thread that has nothing else to
 * do costs nothing. For the first `spinMs` it reads the state word in a loop, then sleeps in Atomics.wait for the
 * rest: on this host a thread asleep in a futex takes about 40 µs to wake (its virtual CPU halted), a loop that
 * reads the word sees the answer within a microsecond or two. Bounded, so a dead or slow instance costs at most
 * `timeoutMs` before the caller falls back to whenAnswered.
 */
export function answeredWithin(control: Int32Array, timeoutMs: number, spinMs = 0): boolean {
  const started = performance.now();
  const until = started + timeoutMs;
  const spinUntil = started + Math.min(spinMs, timeoutMs);
  while (Atomics.load(control, STATE) === REQUEST) if (performance.now() >= spinUntil) break;
  for (;;) {
    if (Atomics.load(control, STATE) !== REQUEST) return true;
    const left = until - performance.now();
    if (left <= 0) return false;
    Atomics.wait(control, STATE, REQUEST, left);
  }
}

/** What a synchronous wait allows beyond twice the run time: the hand-off both ways and the copies. */
export const SYNC_WAIT_MARGIN_MS = 0.5;

/**
 * Whether a synchronous wait may spin. A spin that the answer outlasted says the CPUs are contended (a thread that
 * spins may then be the one keeping the instance thread off its CPU), so the next PAUSE_AFTER_MISS waits sleep
 * in Atomics.wait from the start instead.
 */
export class SpinGate {
  static readonly PAUSE_AFTER_MISS = 8;
  private paused = 0;

  /** The spin for a wait bounded by `boundMs`: all but the margin, or none while paused. */
  spinMs(boundMs: number): number {
    if (this.paused > 0) {
      this.paused--;
      return 0;
    }
    return Math.max(0, boundMs - SYNC_WAIT_MARGIN_MS);
  }

  /** After a wait that spun for up to `spinMs`: `tookMs` past it (or no answer at all) is a miss. */
  record(spinMs: number, tookMs: number, answered: boolean): void {
    if (spinMs > 0 && (!answered || tookMs > spinMs)) this.paused = SpinGate.PAUSE_AFTER_MISS;
  }
}

/** A synchronous wait is worth it only for an instance that answers this fast: longer, and the loop would stall. */
export const SYNC_WAIT_LIMIT_MS = 2;

/**
 * How long to wait synchronously on an instance whose recent session.run took `recentRunMs`: twice that plus the
 * hand-off's own margin, or undefined (wait asynchronously) when that is not under SYNC_WAIT_LIMIT_MS or nothing
 * has run yet.
 */
export function syncWaitBoundMs(recentRunMs: number | undefined): number | undefined {
  if (recentRunMs === undefined || !Number.isFinite(recentRunMs) || recentRunMs < 0) return undefined;
  const bound = 2 * recentRunMs + SYNC_WAIT_MARGIN_MS;
  return bound < SYNC_WAIT_LIMIT_MS ? bound : undefined;
}

/** A long run alone: the event loop comes back this long before the answer is due, and waits for it spinning. */
export const LATE_WAIT_LEAD_MS = 1.5;
/** How long that spin may hold the event loop: within what a synchronous wait may hold it (SYNC_WAIT_LIMIT_MS). */
export const LATE_WAIT_BOUND_MS = 2 * SYNC_WAIT_LIMIT_MS;

/**
 * For a request alone on an instance too slow for a synchronous wait (syncWaitBoundMs is undefined): when to
 * come back from the asynchronous wait, and for how long to spin on the state word then. The event loop asleep in
 * epoll when the answer comes takes tens of microseconds to wake through waitAsync; spinning for the last stretch
 * reads the answer within a microsecond or two. Undefined: nothing has run yet, or the run is short enough for a
 * synchronous wait.
 */
export function lateWaitPlan(recentRunMs: number | undefined): { afterMs: number; boundMs: number } | undefined {
  if (recentRunMs === undefined || !Number.isFinite(recentRunMs) || syncWaitBoundMs(recentRunMs) !== undefined)
    return undefined;
  return { afterMs: Math.max(0, recentRunMs - LATE_WAIT_LEAD_MS), boundMs: LATE_WAIT_BOUND_MS };
}
