import { createQueues } from "../queue/boss";
import { JOBS } from "./job-list";

/** Creates the pg-boss schema and every queue of JOBS with its settings; part of `npm run db:migrate`. Idempotent. */
export function installQueues(connectionString: string): Promise<void> {
  return createQueues(
    connectionString,
    JOBS.map(({ name, queue }) => ({ name, ...queue })),
  );
}
