import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { resetSessionModule } from '../api/session';
import { resetDb } from './db';
import { server } from './server';

// jsdom has no layout and logs "Not implemented" for scrolling, which every navigation does
// (useScrollRestoration); the scroll tests spy on this no-op.
window.scrollTo = (() => undefined) as typeof window.scrollTo;

// findBy/waitFor give up after 1 s by default; on a busy 2-core CI machine a render with charts
// sometimes takes longer, and a test then fails for the machine, not the code.
configure({ asyncUtilTimeout: 5000 });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  cleanup();
  server.resetHandlers();
  resetDb();
  resetSessionModule();
});
afterAll(() => server.close());
