import type { Permission } from "./permissions";

// Every console page, server action and console route handler, with the permission it requires.
// Each one checks its entry itself (the proxy only redirects signed-out visitors); the permission
// test walks this table for every role.

export const PAGE_ACCESS = {
  "/": "events.read",
  "/events": "events.read",
  "/events/[id]": "events.read",
  "/replays": "events.replay",
  "/replays/new": "events.replay",
  "/replays/[id]": "events.replay",
  "/payments": "events.read",
  "/payments/[id]": "events.read",
  "/customers/[reference]": "payload.unmasked",
  "/signatures": "signatures.debug",
  "/users": "users.manage",
  "/audit": "audit.read",
  "/alerts": "alerts.read",
  "/reconciliation": "payments.reconcile",
  "/destinations": "destinations.manage",
  "/destinations/[id]": "destinations.manage",
  "/privacy": "privacy.manage",
  "/privacy/erasures/[id]": "privacy.manage",
  "/gateway-accounts": "gateways.manage",
  "/account": "account.own",
  "/docs/[name]": "events.read",
} as const satisfies Record<string, Permission>;

export const ACTION_ACCESS = {
  replayEvent: "events.replay",
  restoreEvent: "payload.restore",
  startBulkReplay: "events.replay",
  debugSignature: "signatures.debug",
  createUser: "users.manage",
  updateUser: "users.manage",
  reconcileGateway: "payments.reconcile",
  createDestination: "destinations.manage",
  updateDestination: "destinations.manage",
  setDestinationEnabled: "destinations.manage",
  rotateDestinationSecret: "destinations.manage",
  resendDeliveries: "destinations.manage",
  countResendable: "destinations.manage",
  retryDeliveries: "destinations.manage",
  setDestinationPaused: "destinations.manage",
  previewRecovery: "destinations.manage",
  recoverChanges: "destinations.manage",
  sendTestMessage: "destinations.manage",
  exportSubject: "privacy.manage",
  previewErasure: "privacy.manage",
  startErasure: "privacy.manage",
  addGatewayAccount: "gateways.manage",
  rotateGatewayAccount: "gateways.manage",
  setGatewayAccountEnabled: "gateways.manage",
  removeGatewayAccount: "gateways.manage",
  changePassword: "account.own",
  startTwoFactorEnrolment: "account.own",
  confirmTwoFactorEnrolment: "account.own",
  disableTwoFactor: "account.own",
} as const satisfies Record<string, Permission>;

export const ROUTE_ACCESS = {
  "GET /api/replays/[id]": "events.replay",
  "GET /api/events/[id]/raw": "payload.unmasked",
  // Masked for the role, as the lists are.
  "GET /api/exports/events": "events.read",
  "GET /api/exports/payments": "events.read",
} as const satisfies Record<string, Permission>;

export type PageRoute = keyof typeof PAGE_ACCESS;
export type ActionName = keyof typeof ACTION_ACCESS;
export type ConsoleRoute = keyof typeof ROUTE_ACCESS;
