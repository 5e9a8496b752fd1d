// One time format for tables: UTC, to the second, the same on the server render and in the browser (a
// locale- or zone-dependent format would differ between the two and break hydration).
export function formatTime(value: Date | string | null | undefined): string {
  if (!value) return "—";
  const date = typeof value === "string" ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return "—";
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
