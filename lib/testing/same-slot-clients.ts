import { connectClient } from "../db/pool";

type Client = Awaited<ReturnType<typeof connectClient>>;

/**
 * Two connections whose backend pids are equal modulo 16: the pair that shared one counter row per
 * key when the hourly rollups' triggers wrote to a slot per `pg_backend_pid() % 16`, so one waited
 * on the other's commit. Connects until two collide (17 at most) and closes the others.
 */
export async function sameSlotClients(url: string): Promise<[Client, Client]> {
  const bySlot = new Map<number, Client>();
  try {
    for (;;) {
      const client = await connectClient({ connectionString: url, application_name: "test:same-slot" });
      const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      const slot = rows[0]!.pid % 16;
      const first = bySlot.get(slot);
      if (first) {
        bySlot.delete(slot);
        return [first, client];
      }
      bySlot.set(slot, client);
    }
  } finally {
    await Promise.all([...bySlot.values()].map((client) => client.end()));
  }
}
