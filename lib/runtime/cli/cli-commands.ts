import type { CliCommand } from "./cli-command";
import {
  addAccountCommand,
  disableAccountCommand,
  enableAccountCommand,
  listAccountsCommand,
  removeAccountCommand,
  resealAccountsCommand,
  rotateAccountCommand,
} from "./account-commands";
import { replayCommand, restoreCommand, retentionCommand, sweepCommand } from "./event-commands";
import { migrateCommand } from "./migrate-command";
import { privacyEraseCommand, privacyExportCommand } from "./privacy-commands";
import { archivePartitionCommand, createPartitionCommand, partitionsCommand, restorePartitionCommand } from "./partition-commands";
import { reconcileCommand, reconcileRunsCommand } from "./reconcile-commands";
import { createUserCommand, resetPasswordCommand, resetTwoFactorCommand, unlinkSsoCommand } from "./user-commands";

/**
 * Every `npm run cli` command, in the order the help lists them. A new command is an entry made
 * with `command` (in the file of the room it works on) and one entry here.
 */
export const CLI_COMMANDS: readonly CliCommand[] = [
  migrateCommand,
  replayCommand,
  sweepCommand,
  retentionCommand,
  restoreCommand,
  partitionsCommand,
  createPartitionCommand,
  archivePartitionCommand,
  restorePartitionCommand,
  reconcileCommand,
  reconcileRunsCommand,
  addAccountCommand,
  listAccountsCommand,
  rotateAccountCommand,
  disableAccountCommand,
  enableAccountCommand,
  removeAccountCommand,
  resealAccountsCommand,
  privacyExportCommand,
  privacyEraseCommand,
  createUserCommand,
  resetPasswordCommand,
  resetTwoFactorCommand,
  unlinkSsoCommand,
];
