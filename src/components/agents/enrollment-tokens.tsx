"use client";
// Enrollment tokens: one secret many hosts join with; each registration gets the agent its own token.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/react";
import { formatTime } from "../format-time";

const DAY_MS = 24 * 3_600_000;
// 30 days unless asked otherwise: a token that never expires stays valid in every pod spec and shell history it reached.
const EXPIRY_CHOICES = [
  { value: "1", label: "1 day" },
  { value: "7", label: "7 days" },
  { value: "30", label: "30 days" },
  { value: "90", label: "90 days" },
  { value: "365", label: "1 year" },
  { value: "never", label: "no expiry" },
] as const;

const expired = (expiresAt: Date | null, now: number) => expiresAt !== null && new Date(expiresAt).getTime() <= now;

function expiryText(expiresAt: Date | null, now: number): string {
  if (!expiresAt) return "never";
  const leftMs = new Date(expiresAt).getTime() - now;
  if (leftMs <= 0) return `${formatTime(expiresAt)} (expired)`;
  const days = Math.round(leftMs / DAY_MS);
  const hours = Math.max(1, Math.round(leftMs / 3_600_000));
  return `${formatTime(expiresAt)} (in ${days >= 1 ? `${days} day${days === 1 ? "" : "s"}` : `${hours} hour${hours === 1 ? "" : "s"}`})`;
}

export function EnrollmentTokens() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.enrollmentTokens.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.enrollmentTokens.list.queryKey() });
  const [created, setCreated] = useState<{ token: string; expiresAt: Date | null } | null>(null);
  const create = useMutation(
    trpc.enrollmentTokens.create.mutationOptions({
      onSuccess: (row) => {
        setCreated({ token: row.token, expiresAt: row.expiresAt });
        void refresh();
      },
    }),
  );
  // When the list was read: tokens past their expiry then show as expired.
  const now = tokens.dataUpdatedAt;
  const revoke = useMutation(trpc.enrollmentTokens.revoke.mutationOptions({ onSuccess: () => void refresh() }));
  return (
    <section className="section">
      <h2>Enrollment tokens</h2>
      {created && (
        <div className="token-once" data-testid="new-enrollment-token">
          <strong>
            Copy it now: it is not shown again. Every host that registers with it gets its own agent token.
            {created.expiresAt
              ? ` It expires ${formatTime(created.expiresAt)}.`
              : " It never expires: revoke it once your hosts have enrolled."}
          </strong>
          <div className="token-row">
            <code>{created.token}</code>
            <button type="button" className="btn small" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      <form
        className="form inline panel"
        style={{ gridTemplateColumns: "minmax(180px, 300px) 140px 200px max-content" }}
        data-testid="enrollment-token-form"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const maxUses = Number(f.get("maxUses"));
          const days = String(f.get("expiresIn") ?? "30");
          const expiresAt = days === "never" ? null : new Date(Date.now() + Number(days) * DAY_MS);
          create.mutate({ name: String(f.get("name")), ...(maxUses > 0 ? { maxUses } : {}), expiresAt });
        }}
      >
        <label className="form-field">
          <span>Name</span>
          <input name="name" required maxLength={100} placeholder="e.g. fleet-eu-1" />
        </label>
        <label className="form-field">
          <span>Maximum uses</span>
          <input name="maxUses" type="number" min={1} placeholder="unlimited" />
        </label>
        <label className="form-field">
          <span>Expires in</span>
          <select name="expiresIn" defaultValue="30">
            {EXPIRY_CHOICES.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn primary" disabled={create.isPending}>
          Create
        </button>
      </form>
      {create.error && (
        <div className="error-box" role="alert" style={{ marginTop: 10 }}>
          {create.error.message}
        </div>
      )}
      {tokens.data && tokens.data.length > 0 && (
        <div className="table-wrap" style={{ marginTop: 12 }}>
          <table className="data">
            <thead>
              <tr>
                <th>Name</th>
                <th>Token</th>
                <th>Uses</th>
                <th>Expires</th>
                <th>Status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((t) => (
                <tr
                  key={t.id}
                  className={t.revokedAt || expired(t.expiresAt, now) ? "inactive" : undefined}
                  data-testid="enrollment-token-row"
                >
                  <td>{t.name}</td>
                  <td className="mono">{t.prefix}…</td>
                  <td>
                    {t.uses}
                    {t.maxUses ? ` / ${t.maxUses}` : ""}
                  </td>
                  <td className="nowrap" data-testid="enrollment-token-expiry">
                    {expiryText(t.expiresAt, now)}
                  </td>
                  <td>
                    {t.revokedAt ? (
                      <span className="badge bad">revoked</span>
                    ) : expired(t.expiresAt, now) ? (
                      <span className="badge warn">expired</span>
                    ) : (
                      <span className="badge ok">active</span>
                    )}
                  </td>
                  <td className="actions">
                    {!t.revokedAt && (
                      <button type="button" className="btn small danger" onClick={() => revoke.mutate({ id: t.id })}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
