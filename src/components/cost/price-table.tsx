// The cost report's hardware prices: one row per class (admins edit them in place) and, for admins, each class's
// price history (past usage is priced at the price in effect then).
import type { listPriceHistory, listPrices } from "@/server/services/cost-service";
import { formatUsd, formatUtcMinute } from "./cost-data";
import { PriceEditor } from "./price-editor";

type Price = Awaited<ReturnType<typeof listPrices>>[number];
type PriceChange = Awaited<ReturnType<typeof listPriceHistory>>[number];

export function PriceTable({
  prices,
  history,
  canEdit,
}: {
  prices: Price[];
  history: PriceChange[];
  canEdit: boolean;
}) {
  const historyClasses = [...new Set(history.map((h) => h.hardwareClass))].sort();
  return (
    <section className="section" data-testid="cost-prices">
      <h2>Hardware prices</h2>
      <div className="table-wrap">
        <table className="data">
          <thead>
            <tr>
              <th>hardware class</th>
              <th>hosts</th>
              <th className="num">$ per hour</th>
              <th>note</th>
              {canEdit && <th className="no-print">edit</th>}
            </tr>
          </thead>
          <tbody>
            {prices.map((p) => (
              <tr key={p.hardwareClass} data-testid="price-row">
                <td>{p.hardwareClass}</td>
                <td>{p.hosts.join(", ") || <span className="muted">none now</span>}</td>
                <td className="num">
                  {p.hourlyUsd === null ? <span className="muted">no price</span> : formatUsd(p.hourlyUsd)}
                  {p.demo && (
                    <span className="badge cost-demo" data-testid="price-demo">
                      demo price
                    </span>
                  )}
                </td>
                <td className="small">{p.note}</td>
                {canEdit && (
                  <td className="no-print">
                    {/* The demo note describes the seeded price, not the real one an admin sets over it. */}
                    <PriceEditor hardwareClass={p.hardwareClass} hourlyUsd={p.hourlyUsd} note={p.demo ? "" : p.note} />
                  </td>
                )}
              </tr>
            ))}
            {prices.length === 0 && (
              <tr>
                <td colSpan={canEdit ? 5 : 4} className="muted">
                  No agents and no prices yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {!canEdit && (
        <p className="small muted no-print" data-testid="cost-prices-readonly">
          Prices are set by admins (every change is audited).
        </p>
      )}
      {canEdit && historyClasses.length > 0 && (
        <div className="price-history" data-testid="price-history">
          <h3>Price history</h3>
          <p className="small muted">
            Past usage is priced at the price in effect then; a change applies from the minute it was made in.
          </p>
          <div className="price-history-classes">
            {historyClasses.map((cls) => (
              <table key={cls} className="data price-history-table" data-testid="price-history-class">
                <caption>{cls}</caption>
                <thead>
                  <tr>
                    <th>from (UTC)</th>
                    <th className="num">$ per hour</th>
                    <th>by</th>
                  </tr>
                </thead>
                <tbody>
                  {history
                    .filter((h) => h.hardwareClass === cls)
                    .map((h) => (
                      <tr key={h.id} data-testid="price-history-row">
                        <td>{formatUtcMinute(h.effectiveFrom)}</td>
                        <td className="num">
                          {h.hourlyUsd === null ? <span className="muted">removed</span> : formatUsd(h.hourlyUsd)}
                          {h.demo && <span className="badge cost-demo">demo</span>}
                        </td>
                        <td className="small">
                          {h.changedBy ? (
                            h.changedBy.name || h.changedBy.email
                          ) : (
                            <span className="muted">{h.demo ? "npm start" : "unknown"}</span>
                          )}
                        </td>
                      </tr>
                    ))}
                </tbody>
              </table>
            ))}
          </div>
        </div>
      )}
    </section>
  );
}
