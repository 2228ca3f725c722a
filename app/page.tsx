export default function HomePage() {
  return (
    <main style={{ padding: 24, maxWidth: 720 }}>
      <h1>Webhook Inbox</h1>
      <p>
        Gateways deliver to <code>POST /api/webhooks/&#123;provider&#125;</code>. Health:{" "}
        <a href="/api/health">/api/health</a>.
      </p>
    </main>
  );
}
