/**
 * A browser caps an element's height near 33 million px: 100,000 cards of ~300 px would pass it,
 * so long lists scroll in stretches of 20,000 (a few million px), one after the other.
 */
export const PER_STRETCH = 20_000;

const count = (value: number) => value.toLocaleString('en-US');

interface Props {
  place: 'top' | 'bottom';
  current: number;
  total: number;
  /** What is listed, capitalised and plural: "Rows", "Groups". */
  noun: string;
  onGo: (stretch: number) => void;
}

/** "Rows 20,001–40,000 of 100,000" between Previous and Next. */
export function StretchNav({ place, current, total, noun, onGo }: Props) {
  const stretches = Math.ceil(total / PER_STRETCH);
  const first = current * PER_STRETCH + 1;
  const last = Math.min(total, (current + 1) * PER_STRETCH);
  const lower = noun.toLowerCase();
  return (
    <nav className="button-row pager" aria-label={`${noun.slice(0, -1)} stretches (${place})`}>
      <button type="button" className="btn btn-outline btn-sm" disabled={current === 0} onClick={() => onGo(current - 1)}>Previous {lower}</button>
      <span>{noun} {count(first)}–{count(last)} of {count(total)}</span>
      <button type="button" className="btn btn-outline btn-sm" disabled={current + 1 >= stretches} onClick={() => onGo(current + 1)}>Next {lower}</button>
    </nav>
  );
}

/** The stretch to show (kept within the list) and going to another one, back at the top of the page. */
export function stretchOf(total: number, wanted: number): { current: number; start: number; size: number; many: boolean } {
  const stretches = Math.ceil(total / PER_STRETCH);
  const current = Math.min(wanted, Math.max(0, stretches - 1));
  const start = current * PER_STRETCH;
  return { current, start, size: Math.max(0, Math.min(PER_STRETCH, total - start)), many: stretches > 1 };
}
