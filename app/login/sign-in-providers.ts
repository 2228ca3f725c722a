// next-auth's provider ids, shared by the login page's forms and the server's providers.

/** Single sign-on, and the one-time code after it for a user with two-step sign-in on. */
export const SSO_PROVIDERS = { signIn: "oidc", code: "oidc-code" } as const;
