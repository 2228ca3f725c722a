import type { paymentFilterChoices, ParsedPaymentParams } from "@/lib/console/payment-filter-params";
import { ProviderSelect } from "@/app/_components/provider-select";
import { AccountInput } from "@/app/_components/account-input";
import { statusLabel } from "@/lib/text/words";

const day = (date: Date | undefined) => (date ? date.toISOString().slice(0, 10) : "");

const DATE_WORDS: Record<string, string> = {
  created: "created",
  paid: "paid",
  refunded: "refunded",
  disputed: "disputed",
  updated: "last changed",
};

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
  const on = filter.dated?.on ?? "created";
  const [from, to] = filter.dated ? [filter.dated.from, filter.dated.to] : [filter.createdFrom, filter.createdTo];
  return (
    <form method="get" className="panel filters" role="search" aria-label="Filter payments" action="/payments">
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
              {statusLabel(status)}
            </option>
          ))}
          {filter.statuses && filter.statuses.length > 1 ? (
            <option value={filter.statuses.join(",")}>{filter.statuses.map(statusLabel).join(" or ")}</option>
          ) : null}
        </select>
      </label>
      <ProviderSelect providers={choices.providers} value={filter.provider} />
      <AccountInput value={filter.account} />
      <label>
        Date
        <select name="on" defaultValue={on}>
          {choices.dates.map((date) => (
            <option key={date} value={date}>
              {DATE_WORDS[date]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Within
        <select name="range" defaultValue="">
          <option value="">{from || to ? "the dates set" : "any time, or the dates set"}</option>
          {Object.entries(choices.ranges).map(([range, words]) => (
            <option key={range} value={range}>
              {words}
            </option>
          ))}
        </select>
      </label>
      <label>
        From (UTC)
        <input name="from" type="date" defaultValue={day(from)} />
      </label>
      <label>
        Before (UTC)
        <input name="to" type="date" defaultValue={day(to)} />
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
