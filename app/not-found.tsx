import type { Metadata } from "next";
import { NotFoundPanel } from "./_components/not-found-panel";

export const metadata: Metadata = { title: "Not found" };

export default function NotFound() {
  return (
    <main id="content">
      <NotFoundPanel />
    </main>
  );
}
