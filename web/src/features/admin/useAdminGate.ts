import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { errorMessage, errorStatus } from '../../api/errors';

/** The server's answer to an administrator who must set up two-factor sign-in first. */
export const MFA_SETUP_REQUIRED = 'Set up two-factor sign-in on Settings to continue';

/** SPEC §6: a 401 or 403 from the user list or the statistics sends the visitor to '/';
 * an administrator who must set up two-factor sign-in goes to /settings instead. */
export function useLeaveOnRefusal(error: unknown): void {
  const navigate = useNavigate();
  const status = errorStatus(error);
  const mustEnrol = status === 403 && errorMessage(error, '') === MFA_SETUP_REQUIRED;
  useEffect(() => {
    if (mustEnrol) navigate('/settings', { replace: true });
    else if (status === 401 || status === 403) navigate('/', { replace: true });
  }, [status, mustEnrol, navigate]);
}
