import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';

const ESTIMATED_CARD_PX = 360;

/**
 * A long list of cards of different heights scrolled with the page, with only the cards near the
 * viewport in the DOM (@tanstack/react-virtual measures each card as it renders), so 100,000
 * rows scroll as smoothly as 25.
 */
export function VirtualGroups({ count, render, label, estimate = ESTIMATED_CARD_PX }: {
  count: number;
  render: (position: number) => ReactNode;
  label: string;
  /** A card's height before it is measured, in px. */
  estimate?: number;
}) {
  const listRef = useRef<HTMLDivElement>(null);
  const [offset, setOffset] = useState(0);
  useLayoutEffect(() => {
    setOffset(listRef.current ? listRef.current.getBoundingClientRect().top + window.scrollY : 0);
  }, []);
  const virtualizer = useWindowVirtualizer({
    count,
    estimateSize: () => estimate,
    overscan: 3,
    scrollMargin: offset,
  });
  const items = virtualizer.getVirtualItems();
  return (
    <div ref={listRef} className="export-groups virtual-groups" role="region" aria-label={label}
      style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
      {items.map((item) => (
        <div
          key={item.key}
          data-index={item.index}
          ref={virtualizer.measureElement}
          className="virtual-group"
          style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${item.start - offset}px)` }}
        >
          {render(item.index)}
        </div>
      ))}
    </div>
  );
}
