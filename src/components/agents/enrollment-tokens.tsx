"use client";
// Enrollment tokens: one secret many hosts join with; each registration gets the agent its own token.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/react";
import { formatTime } from "../format-time";

export function EnrollmentTokens() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.enrollmentTokens.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.enrollmentTokens.list.queryKey() });
  const [created, setCreated] = useState<string | null>(null);
  const create = useMutation(trpc.enrollmentTokens.create.mutationOptions({ onSuccess: (row) => { setCreated(row.token); void refresh(); } }));
  const revoke = useMutation(trpc.enrollmentTokens.revoke.mutationOptions({ onSuccess: () => void refresh() }));
  return (
    <section className="section">
      <h2>Enrollment tokens</h2>
      {created && (
        <div className="token-once" data-testid="new-enrollment-token">
          <strong>Copy it now: it is not shown again. Every host that registers with it gets its own agent token.</strong>
          <div className="token-row"><code>{created}</code><button type="button" className="btn small" onClick={() => setCreated(null)}>Done</button></div>
        </div>
      )}
      <form className="form inline panel" style={{ gridTemplateColumns: "minmax(180px, 300px) 140px 200px max-content" }} onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const maxUses = Number(f.get("maxUses"));
        const expires = String(f.get("expiresAt") ?? "");
        create.mutate({ name: String(f.get("name")), ...(maxUses > 0 ? { maxUses } : {}), ...(expires ? { expiresAt: new Date(expires) } : {}) });
      }}>
        <label className="form-field"><span>Name</span><input name="name" required maxLength={100} placeholder="e.g. fleet-eu-1" /></label>
        <label className="form-field"><span>Maximum uses</span><input name="maxUses" type="number" min={1} placeholder="unlimited" /></label>
        <label className="form-field"><span>Expires</span><input name="expiresAt" type="datetime-local" /></label>
        <button type="submit" className="btn primary" disabled={create.isPending}>Create</button>
      </form>
      {create.error && <div className="error-box" role="alert" style={{ marginTop: 10 }}>{create.error.message}</div>}
      {tokens.data && tokens.data.length > 0 && (
        <div className="table-wrap" style={{ marginTop: 12 }}>
          <table className="data">
            <thead><tr><th>Name</th><th>Token</th><th>Uses</th><th>Expires</th><th>Status</th><th /></tr></thead>
            <tbody>
              {tokens.data.map((t) => (
                <tr key={t.id} className={t.revokedAt ? "inactive" : undefined}>
                  <td>{t.name}</td><td className="mono">{t.prefix}…</td>
                  <td>{t.uses}{t.maxUses ? ` / ${t.maxUses}` : ""}</td>
                  <td className="nowrap">{t.expiresAt ? formatTime(t.expiresAt) : "never"}</td>
                  <td>{t.revokedAt ? <span className="badge bad">revoked</span> : <span className="badge ok">active</span>}</td>
                  <td className="actions">{!t.revokedAt && <button type="button" className="btn small danger" onClick={() => revoke.mutate({ id: t.id })}>Revoke</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
