/** When deliveries were queued, as `from` and `to` inputs on the viewer's wall clock: the list's filter and the bulk resend's. */
export function QueuedWindow({ from, to }: { from: string; to: string }) {
  return (
    <>
      <label>
        Queued from
        <input name="from" type="datetime-local" defaultValue={from} />
      </label>
      <label>
        Queued before
        <input name="to" type="datetime-local" defaultValue={to} />
      </label>
    </>
  );
}
