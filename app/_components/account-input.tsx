/** A gateway account filter: the account's name as events and payments carry it (empty: any). */
export function AccountInput({ value }: { value: string | undefined }) {
  return (
    <label>
      Account
      <input name="account" defaultValue={value} size={16} placeholder="any" autoComplete="off" />
    </label>
  );
}
