"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { CopyButton } from "@/app/_components/copy-button.client";
import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import type { ActionResult } from "@/app/_server/action";
import { createUser, updateUser } from "./actions";

type User = { id: number; email: string; name: string | null; role: string; createdAt: string; disabledAt: string | null };

const column = dataColumns<User>();

export function UsersManager({ users, roles, me }: { users: User[]; roles: string[]; me: string }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [message, setMessage] = useState<{ kind: "ok" | "bad"; text: string; password?: string } | null>(null);
  /** Runs an action, shows its outcome (`describe` words a success), refreshes the list. */
  function run<T>(work: () => Promise<ActionResult<T>>, describe: (data: T) => string, password?: (data: T) => string | undefined) {
    startTransition(async () => {
      const result = await work();
      setMessage(
        result.ok ? { kind: "ok", text: describe(result.data), password: password?.(result.data) } : { kind: "bad", text: result.error },
      );
      router.refresh();
    });
  }
  const columns = column.columns([
    column.accessor("email", { header: "E-mail" }),
    column.accessor("name", { header: "Name" }),
    column.accessor("role", {
      header: "Role",
      cell: ({ row: { original: user } }) => (
        <>
          <label className="sr-only" htmlFor={`role-${user.id}`}>
            Role of {user.email}
          </label>
          <select
            id={`role-${user.id}`}
            value={user.role}
            disabled={pending}
            onChange={(event) => {
              const role = event.target.value;
              // A role grants or removes access at once: ask before changing it.
              if (!window.confirm(`Change ${user.email} from ${user.role} to ${role}? It takes effect on their next request.`)) return;
              run(
                () => updateUser({ id: user.id, role }),
                () => `Role of ${user.email} changed from ${user.role} to ${role}.`,
              );
            }}
          >
            {roles.map((role) => (
              <option key={role}>{role}</option>
            ))}
          </select>
        </>
      ),
    }),
    column.accessor("createdAt", { header: "Created", cell: (info) => <DisplayTime value={info.getValue()} withSeconds={false} /> }),
    column.accessor("disabledAt", {
      header: "Access",
      cell: ({ row: { original: user } }) => (
        <span className="row">
          {user.disabledAt ? <span className="badge failed">disabled</span> : <span className="badge processed">active</span>}
          {user.email === me ? null : (
            <button
              type="button"
              disabled={pending}
              onClick={() =>
                run(
                  () => updateUser({ id: user.id, disabled: !user.disabledAt }),
                  () => `${user.email} ${user.disabledAt ? "enabled" : "disabled"}.`,
                )
              }
            >
              {user.disabledAt ? "Enable" : "Disable"}
            </button>
          )}
        </span>
      ),
    }),
  ]);
  return (
    <>
      <form
        method="post"
        className="panel filters"
        aria-label="Add a user"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const input = {
            email: String(form.get("email")),
            role: String(form.get("role")),
            name: String(form.get("name") ?? "") || undefined,
            password: String(form.get("password") ?? "") || undefined,
          };
          event.currentTarget.reset();
          run(
            () => createUser(input),
            (data) => (data.password ? `Created ${data.user.email}. Password (shown once):` : `Created ${data.user.email}.`),
            (data) => data.password ?? undefined,
          );
        }}
      >
        <label>
          E-mail
          <input name="email" type="email" required />
        </label>
        <label>
          Name
          <input name="name" />
        </label>
        <label>
          Role
          <select name="role" defaultValue="viewer">
            {roles.map((role) => (
              <option key={role}>{role}</option>
            ))}
          </select>
        </label>
        <label>
          Password (empty: generate)
          <input name="password" type="password" autoComplete="new-password" minLength={12} />
        </label>
        <button className="primary" type="submit" disabled={pending}>
          Add user
        </button>
      </form>
      {message ? (
        <p role="status" className={`banner ${message.kind}`}>
          {message.text}
          {message.password ? (
            <>
              {" "}
              <code data-testid="generated-password">{message.password}</code> <CopyButton text={message.password} label="Copy password" />
            </>
          ) : null}
        </p>
      ) : null}
      <DataTable label="Users" columns={columns} rows={users} rowKey={(user) => String(user.id)} empty="No users." />
    </>
  );
}
