// The first message for one form field from a tRPC error (the error formatter adds zod's fieldErrors).
interface TrpcLikeError {
  message: string;
  data?: unknown;
}

export function fieldError(error: TrpcLikeError | null | undefined, field: string): string | undefined {
  const data = error?.data as { fieldErrors?: Record<string, string[] | undefined> } | null | undefined;
  return data?.fieldErrors?.[field]?.[0];
}

export function hasFieldErrors(error: TrpcLikeError | null | undefined): boolean {
  const data = error?.data as { fieldErrors?: Record<string, unknown> } | null | undefined;
  return !!data?.fieldErrors && Object.keys(data.fieldErrors).length > 0;
}
