import { api } from '../../api/api';
import type { AppDispatch } from '../../app/store';
import { sessionCleared } from './authSlice';

/**
 * Sign out: tell the server (it drops the refresh cookie), then forget the
 * session and every cached answer whatever the server said. The caller
 * navigates to /login.
 */
export async function signOut(dispatch: AppDispatch): Promise<void> {
  try {
    await dispatch(api.endpoints.logout.initiate()).unwrap();
  } catch {
    /* signing out locally still happens */
  }
  dispatch(sessionCleared());
  dispatch(api.util.resetApiState());
}
