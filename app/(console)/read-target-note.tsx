import { webRuntime } from "@/lib/runtime/web-runtime";
import { describeReadTarget } from "@/lib/db/read-replica";

/** Where the console's lists read from, shown only when a replica is configured. */
export async function ReadTargetNote() {
  const target = await webRuntime().reads.target();
  if (target.target === "primary" && target.reason === "no_replica") return null;
  return (
    <div className="read-target" data-read-target={target.target} data-testid="read-target">
      {describeReadTarget(target)}
    </div>
  );
}
