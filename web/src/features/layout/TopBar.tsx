import { useEffect, useId, useState } from 'react';
import { Link, NavLink, useLocation, useNavigate } from 'react-router-dom';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Avatar } from '../../components/Avatar';
import { selectIsAdmin, selectUser } from '../../lib/auth/authSlice';
import { signOut } from '../../lib/auth/signOut';
import { MobileMenu } from './MobileMenu';
import { ACCOUNT_NAV, ADMIN_NAV, DOCS_NAV, MAIN_NAV } from './navConfig';
import { useDisclosure } from './useDisclosure';

function navClass({ isActive }: { isActive: boolean }) {
  return isActive ? 'nav-link active' : 'nav-link';
}

export function TopBar() {
  const user = useAppSelector(selectUser);
  const isAdmin = useAppSelector(selectIsAdmin);
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const location = useLocation();
  const [mobileOpen, setMobileOpen] = useState(false);
  const docs = useDisclosure<HTMLLIElement>();
  const account = useDisclosure<HTMLDivElement>();
  const docsMenuId = useId();
  const accountMenuId = useId();
  const mobileMenuId = useId();
  const { close: closeDocs } = docs;
  const { close: closeAccount } = account;

  // Any navigation closes every menu.
  useEffect(() => {
    setMobileOpen(false);
    closeDocs();
    closeAccount();
  }, [location.pathname, closeDocs, closeAccount]);

  async function handleSignOut() {
    account.close();
    setMobileOpen(false);
    await signOut(dispatch);
    navigate('/login', { replace: true });
  }

  const docsActive = location.pathname.startsWith('/docs');

  return (
    <header className="topbar">
      <div className="topbar-inner">
        <Link to="/" className="brand" aria-label="PerilScope home">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">
            Peril<span>Scope</span>
          </span>
        </Link>

        <nav className="main-nav" aria-label="Main">
          <ul>
            {MAIN_NAV.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end={item.to === '/'} className={navClass}>
                  {item.label}
                </NavLink>
              </li>
            ))}
            <li className="dropdown" ref={docs.containerRef}>
              <button
                type="button"
                ref={docs.triggerRef}
                className={docsActive ? 'nav-link nav-button active' : 'nav-link nav-button'}
                aria-expanded={docs.open}
                aria-controls={docsMenuId}
                onClick={docs.toggle}
              >
                Docs <span className="caret" aria-hidden="true" />
              </button>
              <ul id={docsMenuId} className="dropdown-menu" hidden={!docs.open}>
                {DOCS_NAV.map((item) => (
                  <li key={item.to}>
                    <NavLink to={item.to} className="dropdown-item" onClick={docs.close}>
                      {item.label}
                    </NavLink>
                  </li>
                ))}
              </ul>
            </li>
            <li>
              <NavLink to="/contact" className={navClass}>
                Contact
              </NavLink>
            </li>
          </ul>
        </nav>

        <div className="topbar-actions">
          {user ? (
            <div className="dropdown dropdown-right" ref={account.containerRef}>
              <button
                type="button"
                ref={account.triggerRef}
                className="avatar-button"
                aria-label="Account menu"
                aria-expanded={account.open}
                aria-controls={accountMenuId}
                onClick={() => {
                  setMobileOpen(false);
                  account.toggle();
                }}
              >
                <Avatar name={user.displayName} email={user.email} photoURL={user.photoURL} size={36} />
              </button>
              <div id={accountMenuId} className="dropdown-menu account-menu" hidden={!account.open}>
                <div className="account-summary">
                  <strong>{user.displayName || 'Name not set'}</strong>
                  <span className="muted small">{user.email}</span>
                </div>
                <ul>
                  {ACCOUNT_NAV.map((item) => (
                    <li key={item.to}>
                      <NavLink to={item.to} className="dropdown-item" onClick={account.close}>
                        {item.label}
                      </NavLink>
                    </li>
                  ))}
                  {isAdmin &&
                    ADMIN_NAV.map((item) => (
                      <li key={item.to}>
                        <NavLink to={item.to} className="dropdown-item" onClick={account.close}>
                          {item.label}
                        </NavLink>
                      </li>
                    ))}
                  <li>
                    <button type="button" className="dropdown-item danger" onClick={handleSignOut}>
                      Sign out
                    </button>
                  </li>
                </ul>
              </div>
            </div>
          ) : (
            <div className="auth-links">
              <Link to="/login" className="btn btn-ghost btn-sm">
                Sign in
              </Link>
              <Link to="/signup" className="btn btn-primary btn-sm">
                Sign up
              </Link>
            </div>
          )}

          <button
            type="button"
            className="hamburger"
            aria-label={mobileOpen ? 'Close menu' : 'Open menu'}
            aria-expanded={mobileOpen}
            aria-controls={mobileMenuId}
            onClick={() => {
              account.close();
              docs.close();
              setMobileOpen((v) => !v);
            }}
          >
            <span aria-hidden="true" />
            <span aria-hidden="true" />
            <span aria-hidden="true" />
          </button>
        </div>
      </div>
      <MobileMenu
        id={mobileMenuId}
        open={mobileOpen}
        signedIn={!!user}
        isAdmin={isAdmin}
        onNavigate={() => setMobileOpen(false)}
        onSignOut={handleSignOut}
      />
    </header>
  );
}
