import { TrpcReactProvider } from "@/trpc/react";
import { NotificationBell } from "@/components/notifications/notification-bell";
import { AppNav } from "@/components/app-nav";
import { linksFor } from "@/components/nav-links";
import { UserMenu } from "@/components/user-menu";
import { currentUser } from "@/server/auth/page-guard";
import { roleLabels } from "@/core/security/roles";
import { metadata as appMetadata, viewport as appViewport } from "@/lib/app-metadata";
import "./globals.css";

export const metadata = appMetadata;
export const viewport = appViewport;

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const user = await currentUser();
  return (
    <html lang="en">
      <body>
        <TrpcReactProvider>
          {user ? (
            <div className="shell">
              <aside className="sidebar">
                <div className="brand">Packrat</div>
                <div className="tagline">model serving control plane</div>
                <NotificationBell />
                <AppNav links={linksFor(user.role)} />
                <UserMenu name={user.name} email={user.email} role={roleLabels[user.role]} />
              </aside>
              <main className="main">{children}</main>
            </div>
          ) : (
            // Signed out: only the sign-in page renders (every other page redirects there).
            <main className="auth-page">{children}</main>
          )}
        </TrpcReactProvider>
      </body>
    </html>
  );
}
