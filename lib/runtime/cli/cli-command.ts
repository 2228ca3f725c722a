import { userInfo } from "node:os";
import { parseArgs, type ParseArgsOptionDescriptor } from "node:util";
import { z, ZodError } from "zod";
import { describeZodError } from "../../errors/app-error";
import type { CliRuntime } from "../cli-runtime";

/** What the help shows of an option: the placeholder after it (`--since T`) and its line. */
export type OptionHelp = {
  arg?: string;
  /** Unset: shown on one line with the options after it, up to one that has help (`--since T --until T`). */
  help?: string;
};

/** Each option's help, kept beside its schema. */
const optionHelp = z.registry<OptionHelp>();

/** An option: its schema (which says its kind: a boolean is a flag, an array repeats) and its help. */
export function option<S extends z.ZodType>(schema: S, help: OptionHelp = {}): S {
  optionHelp.add(schema, help);
  return schema;
}

/** A flag, false unless given. */
export const flag = (help: string) => option(z.boolean().default(false), { help });

/** A command's options: an object of options, or one piped into the input its run takes. */
type OptionsSchema = z.ZodObject | z.ZodPipe<z.ZodObject, z.ZodType>;

export type CliCommand = {
  name: string;
  summary: string;
  options: OptionsSchema;
  /** The command's work on its parsed options; returns the exit code. */
  run(runtime: CliRuntime, values: unknown): Promise<number>;
};

export function command<const S extends OptionsSchema = z.ZodObject<Record<never, z.ZodType>>>(spec: {
  name: string;
  summary: string;
  options?: S;
  run: (runtime: CliRuntime, values: z.output<S>) => Promise<number>;
}): CliCommand {
  return {
    name: spec.name,
    summary: spec.summary,
    options: spec.options ?? z.object({}),
    run: (runtime, values) => spec.run(runtime, values as z.output<S>),
  };
}

/** Who a command acts as, in the audit log. */
export const cliActor = () => `cli:${userInfo().username}`;

const shapeOf = (options: OptionsSchema) => (options instanceof z.ZodPipe ? options.in : options).shape as Record<string, z.ZodType>;

function kindOf(schema: z.ZodType): ParseArgsOptionDescriptor {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) return kindOf(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodPipe) return kindOf(schema.in as z.ZodType);
  if (schema instanceof z.ZodBoolean) return { type: "boolean" };
  return schema instanceof z.ZodArray ? { type: "string", multiple: true } : { type: "string" };
}

/** The help, made from the table: each command with its summary, then its options. */
export function usage(commands: readonly CliCommand[]): string {
  const lines = ["usage: npm run cli -- <command> [options]", ""];
  const column = (text: string, width: number) => (text.length < width ? text.padEnd(width) : `${text}   `);
  for (const { name, summary, options } of commands) {
    lines.push(`  ${column(name, 24)}${summary}`);
    let flags: string[] = [];
    for (const [name, schema] of Object.entries(shapeOf(options))) {
      const { arg, help } = optionHelp.get(schema) ?? {};
      flags.push(kindOf(schema).type === "string" ? `--${name} ${arg ?? "V"}` : `--${name}`);
      if (help === undefined) continue;
      lines.push(`      ${column(flags.join(" "), 22)}${help}`);
      flags = [];
    }
    if (flags.length > 0) lines.push(`      ${flags.join(" ")}`);
  }
  return lines.join("\n");
}

/**
 * The options after the command's name, parsed as its schema says. A command without options
 * ignores what follows it; the others refuse an unknown option. Each error names its option.
 */
export function parseOptions(found: CliCommand, args: string[]): unknown {
  const shape = shapeOf(found.options);
  let values = {};
  if (Object.keys(shape).length > 0) {
    const descriptors = Object.fromEntries(Object.entries(shape).map(([name, schema]) => [name, kindOf(schema)]));
    try {
      values = parseArgs({ args, options: descriptors }).values;
    } catch (error) {
      throw new Error(error instanceof Error ? error.message : String(error));
    }
  }
  const parsed = found.options.safeParse(values);
  if (parsed.success) return parsed.data;
  const messages = parsed.error.issues.map(({ path, message }) => {
    const name = path.length > 0 ? `--${String(path[0])}` : undefined;
    return name && !message.includes(name) ? `${name}: ${message}` : message;
  });
  throw new Error(messages.join("\n"));
}

/**
 * `npm run cli -- <command> [options]`: the command's options parsed, then the runtime opened, the
 * command run and the runtime closed. Returns the exit code: 2 with the help for an unknown
 * command, 1 with the reason when the options or the command fail, else what the command returned.
 */
export async function runCli(commands: readonly CliCommand[], argv: string[], openRuntime: () => CliRuntime): Promise<number> {
  const [name, ...args] = argv;
  const found = commands.find((entry) => entry.name === name);
  if (!found) {
    console.error(usage(commands));
    return 2;
  }
  try {
    const values = parseOptions(found, args);
    const runtime = openRuntime();
    try {
      return await found.run(runtime, values);
    } finally {
      await runtime.close();
    }
  } catch (error) {
    console.error(error instanceof ZodError ? describeZodError(error, "\n") : error instanceof Error ? error.message : String(error));
    return 1;
  }
}
