import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Webhook Inbox", template: "%s · Webhook Inbox" },
  description: "Payment webhooks stored, deduplicated, ordered and replayable.",
};

// Every page renders per request: its scripts carry the nonce of that response's CSP (proxy.ts),
// which a page prerendered at build time could not.
export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
