/** A provider filter: "any" or one of the configured gateways. */
export function ProviderSelect({ providers, value }: { providers: readonly string[]; value: string | undefined }) {
  return (
    <label>
      Provider
      <select name="provider" defaultValue={value ?? ""}>
        <option value="">any</option>
        {providers.map((provider) => (
          <option key={provider}>{provider}</option>
        ))}
      </select>
    </label>
  );
}
