/** A full-page navigation (leaves the single-page app), e.g. to a sign-in provider. */
export function fullPageNavigate(url: string): void {
  window.location.assign(url);
}
