import { Fragment } from "react";

/** Text that may wrap after its dots and before its "@" (event types, e-mails), never mid-word. */
export function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=\.)|(?=@)/);
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </>
  );
}
