import { vi } from 'vitest';

/** The names of the files the app saves (lib/download's saveBlob clicks an a[download]), in order. */
export function captureSavedFiles(): string[] {
  Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:export'), revokeObjectURL: vi.fn() });
  const saved: string[] = [];
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push(this.download);
  });
  return saved;
}
