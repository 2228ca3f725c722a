import { runCli } from "@/lib/runtime/cli/cli-command";
import { CLI_COMMANDS } from "@/lib/runtime/cli/cli-commands";
import { openCliRuntime } from "@/lib/runtime/cli-runtime";

// `npm run cli -- <command>`: the operator commands of lib/runtime/cli/cli-commands.ts; `npm run
// cli` prints the help made from them. `npm run db:migrate` is `cli migrate`.
const code = await runCli(CLI_COMMANDS, process.argv.slice(2), () =>
  openCliRuntime((urlFile) =>
    console.error(`using the embedded database that the running \`npm run dev\` or \`npm start\` started (${urlFile})`),
  ),
);
process.exit(code);
