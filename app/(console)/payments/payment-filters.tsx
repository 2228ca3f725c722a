import type { paymentFilterChoices, ParsedPaymentParams } from "@/lib/console/payment-filter-params";
import { ProviderSelect } from "@/app/_components/provider-select";

const day = (date: Date | undefined) => (date ? date.toISOString().slice(0, 10) : "");

/** The payments filters as a plain GET form: the URL is the list's state, and it works without script. */
export function PaymentFilters({
  filter,
  sort,
  choices,
  searchLabel,
}: {
  searchLabel: string;
  filter: Extract<ParsedPaymentParams, { ok: true }>["filter"];
  sort: string;
  choices: ReturnType<typeof paymentFilterChoices>;
}) {
  return (
    <form className="panel filters" role="search" aria-label="Filter payments" action="/payments">
      <label>
        {searchLabel}
        <input
          name="q"
          type="search"
          defaultValue={filter.search}
          size={34}
          data-search-box
          aria-keyshortcuts="/"
          placeholder="Press / to search"
        />
      </label>
      <label>
        Status
        <select name="status" defaultValue={filter.statuses?.join(",") ?? ""}>
          <option value="">any</option>
          {choices.statuses.map((status) => (
            <option key={status} value={status}>
              {status.replaceAll("_", " ")}
            </option>
          ))}
          {filter.statuses && filter.statuses.length > 1 ? (
            <option value={filter.statuses.join(",")}>{filter.statuses.join(" or ")}</option>
          ) : null}
        </select>
      </label>
      <ProviderSelect providers={choices.providers} value={filter.provider} />
      <label>
        Created from (UTC)
        <input name="from" type="date" defaultValue={day(filter.createdFrom)} />
      </label>
      <label>
        Created before (UTC)
        <input name="to" type="date" defaultValue={day(filter.createdTo)} />
      </label>
      {sort !== "updated_desc" ? <input type="hidden" name="sort" value={sort} /> : null}
      <button className="primary" type="submit">
        Apply
      </button>
      <a className="button" href="/payments">
        Clear
      </a>
    </form>
  );
}
