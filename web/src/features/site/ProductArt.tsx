import type { ReactElement } from 'react';

/** A small drawing per product, inline so the page needs no image files or outside requests. */
export function ProductArt({ kind, label }: { kind: string; label: string }) {
  const shapes: Record<string, ReactElement> = {
    commercial: (
      <>
        <rect x="40" y="40" width="60" height="90" rx="4" fill="#1d4e89" />
        <rect x="110" y="20" width="70" height="110" rx="4" fill="#0b7a72" />
        {[0, 1, 2, 3].map((row) => [0, 1].map((col) => (
          <rect key={`${row}-${col}`} x={122 + col * 26} y={32 + row * 22} width="16" height="12" fill="#ddf4f2" />
        )))}
      </>
    ),
    personal: (
      <>
        <polygon points="60,80 110,35 160,80" fill="#0b7a72" />
        <rect x="72" y="80" width="76" height="50" fill="#1d4e89" />
        <rect x="100" y="100" width="20" height="30" fill="#ddf4f2" />
      </>
    ),
    health: (
      <>
        <circle cx="110" cy="80" r="48" fill="#0b7a72" />
        <rect x="100" y="52" width="20" height="56" fill="#ffffff" />
        <rect x="82" y="70" width="56" height="20" fill="#ffffff" />
      </>
    ),
    lro: (
      <>
        <rect x="50" y="30" width="120" height="100" rx="4" fill="#1d4e89" />
        <circle cx="110" cy="80" r="26" fill="none" stroke="#ddf4f2" strokeWidth="6" />
        <line x1="128" y1="98" x2="150" y2="120" stroke="#ddf4f2" strokeWidth="8" strokeLinecap="round" />
      </>
    ),
  };
  return (
    <svg className="product-art" viewBox="0 0 220 150" role="img" aria-label={label}>
      <rect width="220" height="150" fill="#e8eef7" />
      {shapes[kind]}
    </svg>
  );
}
