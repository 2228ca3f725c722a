import { z } from "zod";
import { checkAlerts } from "../../alerts/check-alerts";
import type { AlertOutcome } from "../../alerts/send-alert";
import { logger } from "../../observability/logger";
import type { JobDefinition } from "../job-definition";

const alertsData = z.object({});

/** Evaluates the alert conditions and sends each alert (rate-limited per kind); on ALERT_CRON. */
export const alertsJob: JobDefinition<z.infer<typeof alertsData>, AlertOutcome[]> = {
  name: "alerts",
  data: alertsData,
  queue: { policy: "exclusive", retryLimit: 0, expireInSeconds: 300, deleteAfterSeconds: 3600 },
  schedule: (config) => config.alerts.cron,
  work: () => ({ localConcurrency: 1, pollingIntervalSeconds: 5 }),
  run: (deps) => checkAlerts(deps),
  report: (outcomes) => {
    const sent = outcomes.filter((outcome) => outcome.sent).length;
    if (sent > 0) logger("alerts").info({ sent }, "alerts sent");
  },
};
