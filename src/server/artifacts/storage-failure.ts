// The artifact store's disk failing (full, a path component that is a file, read-only, no permission), told apart
// from a client's broken upload: the client did nothing wrong, so it gets 507 (full) or 503 (unusable) with what
// happened in words, never the server's paths; the log line keeps the path for the operator.
const REASONS: Record<string, { status: 503 | 507; reason: string }> = {
  ENOSPC: { status: 507, reason: "the artifact store's disk is full" },
  EDQUOT: { status: 507, reason: "the artifact store's disk quota is exhausted" },
  EFBIG: { status: 507, reason: "the artifact store cannot hold a file this large" },
  ENOTDIR: {
    status: 503,
    reason: "the artifact store's data directory is unusable (a part of its path is a file, not a directory)",
  },
  EROFS: { status: 503, reason: "the artifact store's file system is read-only" },
  EACCES: { status: 503, reason: "the artifact store's data directory is not writable" },
  EPERM: { status: 503, reason: "the artifact store's data directory is not writable" },
  EIO: { status: 503, reason: "the artifact store's disk reported an I/O error" },
};

export interface StorageFailure {
  status: 503 | 507;
  code: "INSUFFICIENT_STORAGE" | "STORAGE_UNAVAILABLE";
  message: string;
  errno: string;
}

export function storageFailure(error: unknown): StorageFailure | undefined {
  const errno = (error as { code?: unknown } | undefined)?.code;
  if (typeof errno !== "string" || !(errno in REASONS)) return undefined;
  const { status, reason } = REASONS[errno]!;
  return {
    status,
    code: status === 507 ? "INSUFFICIENT_STORAGE" : "STORAGE_UNAVAILABLE",
    message: `${reason} (${errno}); nothing was kept`,
    errno,
  };
}
