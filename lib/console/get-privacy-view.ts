import type { Queryable } from "../db/pool";
import { PROVIDER_NAMES } from "../providers/registry";
import { getErasure, listErasures, type Erasure, type ErasureListRow } from "../erasure/erasures";

export type { ErasedPayment, ErasurePreview, ErasureListRow } from "../erasure/erasures";

const PAGE_SIZE = 50;

export type PrivacyView = {
  /** The gateways a customer id may be of. */
  providers: string[];
  erasures: ErasureListRow[];
  total: number;
  page: number;
  pageSize: number;
};

/** The subject form's choices and the erasures, newest first, paged (`page`, from 1) with their total. */
export async function getPrivacyView(db: Queryable, params: { page?: string }): Promise<PrivacyView> {
  const page = Math.max(1, Math.trunc(Number(params.page)) || 1);
  const { rows, total } = await listErasures(db, { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE });
  return { providers: [...PROVIDER_NAMES], erasures: rows, total, page, pageSize: PAGE_SIZE };
}

export type ErasureView = Omit<Erasure, "subjectHash"> & { finished: boolean };

/** One erasure's state and counts, and the payments it changed (not the identifier's keyed hash); null when there is no such erasure. */
export async function getErasureView(db: Queryable, id: number): Promise<ErasureView | null> {
  const found = await getErasure(db, id);
  if (!found) return null;
  const { subjectHash: _hash, ...erasure } = found;
  return { ...erasure, finished: erasure.status === "done" || erasure.status === "failed" };
}
