import type { PgBoss } from "../queue/boss";
import type { AnyJobDefinition, JobDefinition, JobDeps } from "./job-definition";

/** Subscribes this worker to a job's queue, and schedules it (every worker does: pg-boss keeps one schedule per queue). */
export async function workJob(boss: PgBoss, job: AnyJobDefinition, deps: JobDeps): Promise<void> {
  if (job.schedule) await boss.schedule(job.name, job.schedule(deps.config), null, { tz: "UTC" });
  if ("runBatch" in job) {
    await boss.work(job.name, job.work(deps.config), (jobs) => job.runBatch(deps, jobs));
    return;
  }
  await boss.work(job.name, job.work(deps.config), async ([taken]) => {
    const result = await runJob(job, deps, taken!.data);
    job.report?.(result);
    return job.keepsResult ? result : undefined;
  });
}

/** Runs a job's work here and now on its data (validated as a queued job's is): the CLI's way in. */
export async function runJob<Data, Result>(job: JobDefinition<Data, Result>, deps: JobDeps, data: unknown): Promise<Result> {
  return job.run(deps, job.data.parse(data ?? {}));
}
