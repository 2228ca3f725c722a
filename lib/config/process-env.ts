import { resetConfig } from "./env";

// Changes to this process's environment, for itself and the children it starts.

/** Sets a variable for this process and the children it starts (the launcher's embedded database URL). */
export function setEnv(name: string, value: string): void {
  process.env[name] = value;
  resetConfig();
}

/** A copy of the environment for a child process. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

/** The server tests create their databases on (each test file gets its own database). */
export function testAdminDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
}
