import { Fragment } from 'react';

/** 'Occupants 2026-08-02 · NRI 2025-12', each date kept whole when the line wraps (never at its hyphens). */
export function DataDates({ text }: { text: string }) {
  const parts = text.split(' · ');
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={part}>
          {i > 0 && ' · '}
          <span className="nowrap">{part}</span>
        </Fragment>
      ))}
    </>
  );
}
