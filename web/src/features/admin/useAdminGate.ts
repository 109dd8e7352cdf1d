import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { errorStatus } from '../../api/errors';

/** SPEC §6: a 401 or 403 from the user list or the statistics sends the visitor to '/'. */
export function useLeaveOnRefusal(error: unknown): void {
  const navigate = useNavigate();
  const status = errorStatus(error);
  useEffect(() => {
    if (status === 401 || status === 403) navigate('/', { replace: true });
  }, [status, navigate]);
}
