"use server";

import { runAction } from "@/app/_server/action";
import * as actions from "@/lib/console/destination-actions";

export async function createDestination(input: unknown) {
  return runAction("createDestination", actions.createDestination, input);
}

export async function updateDestination(input: unknown) {
  return runAction("updateDestination", actions.updateDestination, input);
}

export async function setDestinationEnabled(input: unknown) {
  return runAction("setDestinationEnabled", actions.setDestinationEnabled, input);
}

export async function rotateDestinationSecret(input: unknown) {
  return runAction("rotateDestinationSecret", actions.rotateDestinationSecret, input);
}

export async function resendDeliveries(input: unknown) {
  return runAction("resendDeliveries", actions.resendDeliveries, input);
}

export async function sendTestMessage(input: unknown) {
  return runAction("sendTestMessage", actions.sendTestMessage, input);
}

export async function countResendable(input: unknown) {
  return runAction("countResendable", actions.countResendable, input);
}

export async function retryDeliveries(input: unknown) {
  return runAction("retryDeliveries", actions.retryDeliveries, input);
}

export async function setDestinationPaused(input: unknown) {
  return runAction("setDestinationPaused", actions.setDestinationPaused, input);
}

export async function previewRecovery(input: unknown) {
  return runAction("previewRecovery", actions.previewRecovery, input);
}

export async function recoverChanges(input: unknown) {
  return runAction("recoverChanges", actions.recoverChanges, input);
}
