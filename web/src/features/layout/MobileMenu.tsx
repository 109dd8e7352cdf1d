import { NavLink } from 'react-router-dom';
import { ACCOUNT_NAV, ADMIN_NAV_MOBILE, DOCS_NAV_MOBILE, MAIN_NAV } from './navConfig';

interface MobileMenuProps {
  id: string;
  open: boolean;
  signedIn: boolean;
  isAdmin: boolean;
  onNavigate: () => void;
  onSignOut: () => void;
}

function linkClass({ isActive }: { isActive: boolean }) {
  return isActive ? 'mobile-link active' : 'mobile-link';
}

/** The collapsible equivalent of the top bar for narrow screens (SPEC §2). */
export function MobileMenu({ id, open, signedIn, isAdmin, onNavigate, onSignOut }: MobileMenuProps) {
  return (
    <nav id={id} className="mobile-menu" aria-label="Mobile" hidden={!open}>
      <ul>
        {MAIN_NAV.map((item) => (
          <li key={item.to}>
            <NavLink to={item.to} end={item.to === '/'} className={linkClass} onClick={onNavigate}>
              {item.label}
            </NavLink>
          </li>
        ))}
      </ul>
      <p className="mobile-heading">Docs</p>
      <ul>
        {DOCS_NAV_MOBILE.map((item) => (
          <li key={item.to}>
            <NavLink to={item.to} className={linkClass} onClick={onNavigate}>
              {item.label}
            </NavLink>
          </li>
        ))}
        <li>
          <NavLink to="/contact" className={linkClass} onClick={onNavigate}>
            Contact
          </NavLink>
        </li>
      </ul>
      <p className="mobile-heading">Account</p>
      <ul>
        {signedIn ? (
          <>
            {ACCOUNT_NAV.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} className={linkClass} onClick={onNavigate}>
                  {item.label}
                </NavLink>
              </li>
            ))}
            {isAdmin &&
              ADMIN_NAV_MOBILE.map((item) => (
                <li key={item.to}>
                  <NavLink to={item.to} className={linkClass} onClick={onNavigate}>
                    {item.label}
                  </NavLink>
                </li>
              ))}
            <li>
              <button type="button" className="mobile-link danger" onClick={onSignOut}>
                Sign out
              </button>
            </li>
          </>
        ) : (
          <>
            <li>
              <NavLink to="/login" className={linkClass} onClick={onNavigate}>
                Sign in
              </NavLink>
            </li>
            <li>
              <NavLink to="/signup" className={linkClass} onClick={onNavigate}>
                Sign up
              </NavLink>
            </li>
          </>
        )}
      </ul>
    </nav>
  );
}
