"use server";

import { runAction } from "@/app/_server/action";
import * as actions from "@/lib/console/gateway-account-actions";

export async function addGatewayAccount(input: unknown) {
  return runAction("addGatewayAccount", actions.addGatewayAccount, input);
}

export async function rotateGatewayAccount(input: unknown) {
  return runAction("rotateGatewayAccount", actions.rotateGatewayAccount, input);
}

export async function setGatewayAccountEnabled(input: unknown) {
  return runAction("setGatewayAccountEnabled", actions.setGatewayAccountEnabled, input);
}

export async function removeGatewayAccount(input: unknown) {
  return runAction("removeGatewayAccount", actions.removeGatewayAccount, input);
}
