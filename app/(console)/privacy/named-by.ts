/** How a subject was named, in words (the list of erasures and an erasure's page). */
export const NAMED_BY: Record<string, string> = { email: "an e-mail", customerId: "a customer id", document: "a document (CPF/CNPJ)" };
