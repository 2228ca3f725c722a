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
