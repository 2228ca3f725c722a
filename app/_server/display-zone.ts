import { cookies } from "next/headers";
import { DEFAULT_DISPLAY_ZONE, DISPLAY_ZONE_COOKIE, isTimeZone } from "@/lib/time/format-time";

/** The viewer's display zone from the cookie; UTC when unset or unknown. */
export async function displayZone(): Promise<string> {
  const value = (await cookies()).get(DISPLAY_ZONE_COOKIE)?.value;
  return value && value.length <= 64 && isTimeZone(value) ? value : DEFAULT_DISPLAY_ZONE;
}
