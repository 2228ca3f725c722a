// Signs in to next-auth's credentials endpoint over plain HTTP (CSRF token, form post), keeping the
// cookies, as a browser would; for tests that look at headers and cookies directly.

export type HttpSession = {
  cookies: Map<string, string>;
  /** The Set-Cookie headers of the sign-in response. */
  setCookies: string[];
  status: number;
  /** Where next-auth would send the browser (its error code when sign-in failed). */
  url: string;
};

export function cookieHeader(cookies: Map<string, string>): string {
  return [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
}

function keep(cookies: Map<string, string>, response: Response) {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const index = pair!.indexOf("=");
    cookies.set(pair!.slice(0, index), pair!.slice(index + 1));
  }
}

export async function csrfToken(baseUrl: string, cookies: Map<string, string>, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/csrf`, { headers: { ...headers, cookie: cookieHeader(cookies) } });
  keep(cookies, response);
  return ((await response.json()) as { csrfToken: string }).csrfToken;
}

export async function httpSignIn(
  baseUrl: string,
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<HttpSession> {
  const cookies = new Map<string, string>();
  const token = await csrfToken(baseUrl, cookies, headers);
  const response = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { ...headers, cookie: cookieHeader(cookies), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, password, csrfToken: token, json: "true" }),
  });
  keep(cookies, response);
  const body = (await response.json().catch(() => ({}))) as { url?: string };
  return { cookies, setCookies: response.headers.getSetCookie(), status: response.status, url: body.url ?? "" };
}

export async function httpSignOut(baseUrl: string, session: HttpSession): Promise<number> {
  const cookies = new Map(session.cookies);
  const token = await csrfToken(baseUrl, cookies);
  const response = await fetch(`${baseUrl}/api/auth/signout`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: cookieHeader(cookies), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken: token, json: "true" }),
  });
  return response.status;
}
