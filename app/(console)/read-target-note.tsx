import type { LayoutView } from "@/lib/console/get-layout-view";

/** Where the console's lists read from, shown only when a replica is configured. */
export function ReadTargetNote({ readTarget }: { readTarget: LayoutView["readTarget"] }) {
  if (!readTarget) return null;
  return (
    <div className="read-target" data-read-target={readTarget.target} data-testid="read-target">
      {readTarget.sentence}
    </div>
  );
}
