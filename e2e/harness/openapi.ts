import { readFileSync } from "node:fs";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

// The host API's OpenAPI 3.1 document (docs/openapi.json) as a checker of real answers: each
// response and pushed message is validated by Ajv (JSON Schema 2020-12, the dialect OpenAPI 3.1
// schemas are written in) against the schema the document gives for it, references resolved
// against the document itself.

type Media = { schema: object; example?: unknown };
type Operation = {
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
export type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: { schemas: Record<string, object & { enum?: string[] }> };
};

export const OPENAPI_PATH = "docs/openapi.json";

export function readOpenApiDocument(): OpenApiDocument {
  return JSON.parse(readFileSync(OPENAPI_PATH, "utf8")) as OpenApiDocument;
}

export type OpenApiChecker = {
  document: OpenApiDocument;
  /** Problems with an answer of `method path` (the document's path template) with `status`; [] when it matches. */
  answer: (method: string, path: string, status: number, body: unknown) => string[];
  /** Problems with a pushed message of webhook `type`; [] when it matches. */
  message: (type: string, body: unknown) => string[];
  /** Problems with `body` as the document's component schema `name`; [] when it matches. */
  schema: (name: string, body: unknown) => string[];
  /** Every example the document shows, with its problems against its own schema. */
  examples: () => { where: string; example: unknown; problems: string[] }[];
};

const OPERATION_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

const DOCUMENT_ID = "https://webhook-inbox.test/openapi.json";

const describe = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? ""} ${JSON.stringify(error.params)}`);

function jsonOf(content: Record<string, Media> | undefined, where: string): Media {
  const json = content?.["application/json"];
  if (!json) throw new Error(`${where}: the document gives no application/json content`);
  return json;
}

export function openApiChecker(document: OpenApiDocument = readOpenApiDocument()): OpenApiChecker {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  // The whole document as one schema resource, so `#/components/schemas/X` resolves inside it.
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const compiled = new Map<string, ValidateFunction>();
  const check = (schema: object, body: unknown): string[] => {
    const pointer = pointerTo(document, schema);
    const validate = compiled.get(pointer) ?? ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
    compiled.set(pointer, validate);
    return validate(body) ? [] : describe(validate.errors);
  };
  const operation = (method: string, path: string): Operation => {
    const found = document.paths[path]?.[method.toLowerCase()];
    if (!found) throw new Error(`the document has no ${method} ${path}`);
    return found;
  };
  return {
    document,
    answer: (method, path, status, body) => {
      const responses = operation(method, path).responses;
      const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`];
      if (!response) return [`the document gives no ${status} answer to ${method} ${path}`];
      return check(jsonOf(response.content, `${method} ${path} ${status}`).schema, body);
    },
    message: (type, body) => {
      const hook = document.webhooks[type];
      if (!hook) return [`the document has no webhook ${type}`];
      return check(jsonOf(hook.post.requestBody?.content, `webhook ${type}`).schema, body);
    },
    schema: (name, body) => {
      const schema = document.components.schemas[name];
      return schema ? check(schema, body) : [`the document has no schema ${name}`];
    },
    examples: () => {
      const found: { where: string; media: Media | undefined }[] = [];
      for (const [path, operations] of Object.entries(document.paths)) {
        for (const [method, op] of Object.entries(operations)) {
          // A path item holds its operations beside what they share (`parameters`).
          if (!OPERATION_METHODS.has(method)) continue;
          const name = `${method.toUpperCase()} ${path}`;
          found.push({ where: `${name} request`, media: op.requestBody?.content["application/json"] });
          for (const [status, response] of Object.entries(op.responses)) {
            found.push({ where: `${name} ${status}`, media: response.content?.["application/json"] });
          }
        }
      }
      for (const [type, hook] of Object.entries(document.webhooks)) {
        found.push({ where: `webhook ${type}`, media: hook.post.requestBody?.content["application/json"] });
      }
      return found.flatMap(({ where, media }) =>
        media?.example === undefined ? [] : [{ where, example: media.example, problems: check(media.schema, media.example) }],
      );
    },
  };
}

/** The JSON pointer (`#/...`, URI-encoded) to `target`, an object inside the document. */
function pointerTo(document: object, target: object): string {
  const segment = (key: string) => encodeURIComponent(key.replaceAll("~", "~0").replaceAll("/", "~1"));
  const search = (node: unknown, path: string): string | null => {
    if (node === target) return path;
    if (!node || typeof node !== "object") return null;
    for (const [key, value] of Object.entries(node)) {
      const found = search(value, `${path}/${segment(key)}`);
      if (found !== null) return found;
    }
    return null;
  };
  const found = search(document, "#");
  if (found === null) throw new Error("the schema is not inside the document");
  return found;
}
