import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requirePageAccess } from "@/app/_server/session";
import { getDocView } from "@/lib/console/get-doc-view";

export const metadata: Metadata = { title: "Docs" };
export const dynamic = "force-dynamic";

/** A guide from docs/ as its Markdown text, where the console's pages link to it. */
export default async function DocPage({ params }: { params: Promise<{ name: string }> }) {
  await requirePageAccess("/docs/[name]");
  const view = await getDocView((await params).name);
  if (!view) notFound();
  return (
    <>
      <h1>{view.name}</h1>
      <pre className="panel doc" data-testid="doc-text">
        {view.text}
      </pre>
    </>
  );
}
