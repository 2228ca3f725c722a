import type { AnyJobDefinition } from "./job-definition";
import { alertsJob } from "./definitions/alerts";
import { erasuresJob } from "./definitions/erasures";
import { erasuresAbandonedJob } from "./definitions/erasures-abandoned";
import { maintenanceJob } from "./definitions/maintenance";
import { reconcileJob } from "./definitions/reconcile";
import { reconcileAccountJob } from "./definitions/reconcile-accounts";
import { reconcileRequestJob } from "./definitions/reconcile-requests";
import { replaysAbandonedJob } from "./definitions/replays-abandoned";
import { replaysJob } from "./definitions/replays";
import { retentionJob } from "./definitions/retention";
import { sweeperJob } from "./definitions/sweeper";
import { webhooksJob } from "./definitions/webhooks";

/**
 * Every queue, each described once, in its definition file. `npm run db:migrate` creates them from
 * this list and every worker takes them from it: a new queue is a file in definitions/ and one entry
 * here.
 */
export const JOBS: readonly AnyJobDefinition[] = [
  webhooksJob,
  sweeperJob,
  maintenanceJob,
  reconcileJob,
  reconcileAccountJob,
  reconcileRequestJob,
  replaysJob,
  replaysAbandonedJob,
  retentionJob,
  alertsJob,
  erasuresJob,
  erasuresAbandonedJob,
];
