import Link from "next/link";

export default function Forbidden() {
  return (
    <main className="login panel">
      <h1>Not allowed</h1>
      <p>Your role does not give access to this page. Ask an admin if you need it.</p>
      <Link href="/">Back to the overview</Link>
    </main>
  );
}
