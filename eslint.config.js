import tseslint from "typescript-eslint";

// Architecture as lint rules: dependencies point inward (app and worker import lib, never back),
// providers know nothing of payments, payments know nothing of HTTP, and client components never
// reach the database.
// (A later block replaces an earlier block's rule, so each block lists the lib-wide patterns too.)
const restrict = (patterns) => ["error", { patterns }];
const libPatterns = [
  { group: ["@/app/*", "@/worker/*", "@/e2e/*", "**/app/*", "**/worker/*", "**/e2e/*"], message: "lib/ never imports app/, worker/ or e2e/." },
  { group: ["next", "next/*", "react", "react-dom", "next-auth", "next-auth/*"], message: "lib/ is framework-free." },
];

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", ".data/", "lib/db/generated/", "next-env.d.ts", "e2e/artifacts/"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "off",
    },
  },
  // No fire-and-forget: a promise nobody awaits or catches becomes an unhandled rejection that ends
  // the process (a database blip during a replay stopped the worker). `void p` doesn't count as
  // handling it. Needs type information, so only on the TypeScript sources.
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": ["error", { ignoreVoid: false }],
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false, attributes: false } }],
    },
  },
  {
    files: ["lib/**/*.ts"],
    ignores: ["lib/**/*.test.ts", "lib/testing/**"],
    rules: {
      "no-restricted-imports": restrict(libPatterns),
    },
  },
  {
    files: ["lib/providers/**/*.ts"],
    ignores: ["lib/**/*.test.ts"],
    rules: {
      "no-restricted-imports": restrict([
        ...libPatterns,
        { group: ["@/lib/payments/*", "../payments/*", "@/lib/inbox/*", "../inbox/*"], message: "providers know nothing of payments or the inbox." },
        { group: ["@/lib/db/*", "../db/*", "pg", "pg-boss", "@prisma/*"], message: "providers know nothing of the database." },
      ]),
    },
  },
  {
    files: ["lib/payments/**/*.ts"],
    ignores: ["lib/**/*.test.ts"],
    rules: {
      "no-restricted-imports": restrict([
        ...libPatterns,
        { group: ["@/lib/http/*", "../http/*"], message: "payments know nothing of HTTP." },
        { group: ["@/lib/providers/*", "../providers/*"], message: "payments know nothing of drivers: the shared vocabulary is lib/canonical." },
      ]),
    },
  },
  {
    files: ["lib/canonical/**/*.ts"],
    ignores: ["lib/**/*.test.ts"],
    rules: {
      "no-restricted-imports": restrict([
        ...libPatterns,
        { group: ["@/lib/*", "../*", "pg", "pg-boss", "@prisma/*"], message: "the canonical vocabulary depends on nothing else in lib/." },
      ]),
    },
  },
  {
    files: ["app/**/*.client.tsx", "app/**/components/**/*.tsx"],
    rules: {
      "no-restricted-imports": restrict([
        // Types are erased at build time: a client component may describe server data by its type.
        { group: ["@/lib/db/*", "@/lib/runtime/*", "@/lib/inbox/*", "pg", "pg-boss"], message: "client components never import the database layer.", allowTypeImports: true },
      ]),
    },
  },
);
