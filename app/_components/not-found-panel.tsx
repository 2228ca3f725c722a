import Link from "next/link";

/** The console's 404: says what happened and offers the ways back. */
export function NotFoundPanel() {
  return (
    <section className="not-found panel" aria-labelledby="not-found">
      <h1 id="not-found">Nothing here</h1>
      <p>This page doesn&apos;t exist, or the event, payment, customer or replay it points to isn&apos;t in the inbox.</p>
      <p className="row">
        <Link className="button primary" href="/events">
          Search events
        </Link>
        <Link className="button" href="/payments">
          Find a payment
        </Link>
        <Link className="button" href="/">
          Overview
        </Link>
      </p>
    </section>
  );
}
