import { NotFoundPanel } from "@/app/_components/not-found-panel";

/** A missing event, payment, customer or run inside the console keeps the console around it. */
export default function ConsoleNotFound() {
  return <NotFoundPanel />;
}
