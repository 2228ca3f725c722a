import type { Metadata } from "next";
import { requirePageAccess } from "@/app/_server/session";
import { getPrivacyView } from "@/lib/console/get-privacy-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { ErasuresTable } from "./privacy-tables.client";
import { SubjectRequests } from "./subject-requests.client";
import { plural } from "@/lib/text/words";

export const metadata: Metadata = { title: "Personal data" };
export const dynamic = "force-dynamic";

export default async function PrivacyPage({ searchParams }: { searchParams: Promise<{ page?: string }> }) {
  await requirePageAccess("/privacy");
  const view = await getPrivacyView(webRuntime().pool, await searchParams);
  const pages = Math.max(1, Math.ceil(view.total / view.pageSize));
  return (
    <>
      <h1>Personal data</h1>
      <p className="muted">
        A data subject&apos;s access request (LGPD art. 18 II, GDPR art. 15) and erasure request (LGPD art. 18 VI, GDPR art. 17): the same
        export and erasure as <code>privacy:export</code> and <code>privacy:erase</code>, audited with a keyed hash of the identifier.
      </p>
      <SubjectRequests providers={view.providers} />
      <h2>Erasures</h2>
      <ErasuresTable
        rows={view.erasures}
        paging={{
          testId: "erasures-total",
          summary: `Page ${view.page} of ${pages} · ${plural(view.total, "erasure")}`,
          prevHref: view.page > 1 ? `/privacy?page=${view.page - 1}` : null,
          nextHref: view.page * view.pageSize < view.total ? `/privacy?page=${view.page + 1}` : null,
        }}
      />
    </>
  );
}
