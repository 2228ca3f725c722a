import { NextResponse } from "next/server";
import openApiDocument from "@/docs/openapi.json";

/**
 * The host API's OpenAPI 3.1 document (docs/openapi.json), public like the docs it belongs to: it
 * describes the API, it grants nothing. A generator or a client reads it from the running app.
 */
export function GET() {
  return NextResponse.json(openApiDocument, { headers: { "cache-control": "public, max-age=300" } });
}
