import { useLocation, useNavigate } from 'react-router-dom';

/** Back to the previous page; opened directly (no history here), back to the home page. */
export function BackButton({ label = 'Back' }: { label?: string }) {
  const navigate = useNavigate();
  const location = useLocation();
  return (
    <button type="button" className="btn btn-outline" onClick={() => (location.key === 'default' ? navigate('/') : navigate(-1))}>
      {label}
    </button>
  );
}
