import { useMemo, useState, type KeyboardEvent } from 'react';
import { errorMessage } from '../../api/errors';
import { InitialsAvatar } from '../../components/Avatar';
import { Banner } from '../../components/Banner';
import { PageSpinner, Spinner } from '../../components/Spinner';
import { useFlash } from '../../components/useFlash';
import { usePageTitle } from '../../components/usePageTitle';
import { useAdminUserInfoQuery, useListUsersQuery, useUpdateUserRoleMutation, type AdminUser, type Role } from './adminApi';
import { ApiPlanForm } from './ApiPlanForm';
import { useLeaveOnRefusal } from './useAdminGate';
import './admin.css';

type SortKey = 'name' | 'email' | 'role' | 'created_at';
const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'name', label: 'Username' },
  { key: 'email', label: 'Email' },
  { key: 'role', label: 'Role' },
  { key: 'created_at', label: 'Registration Date' },
];

export function formatDay(iso: string | null | undefined): string {
  if (!iso) return 'Unknown';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? 'Unknown' : date.toLocaleDateString();
}

function RoleBadge({ role }: { role: Role }) {
  return <span className={`status-badge ${role === 'admin' ? 'role-admin' : 'role-user'}`}>{role === 'admin' ? 'Admin' : 'User'}</span>;
}

function sortUsers(users: AdminUser[], key: SortKey, ascending: boolean): AdminUser[] {
  const value = (user: AdminUser) => (user[key] ?? '').toString().toLowerCase();
  const sorted = [...users].sort((a, b) => value(a).localeCompare(value(b)));
  return ascending ? sorted : sorted.reverse();
}

/** /admin/users: find users, sort them, open one, change their role (SPEC §2). */
export default function UsersPage() {
  usePageTitle('User Management');
  const { data, error, isLoading } = useListUsersQuery();
  useLeaveOnRefusal(error);
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<{ key: SortKey; ascending: boolean }>({ key: 'created_at', ascending: false });
  const [selectedId, setSelectedId] = useState<string | null>(null);

  const users = useMemo(() => {
    const needle = query.trim().toLowerCase();
    const all = data?.users ?? [];
    const found = needle ? all.filter((u) => `${u.name ?? ''} ${u.email}`.toLowerCase().includes(needle)) : all;
    return sortUsers(found, sort.key, sort.ascending);
  }, [data, query, sort]);

  const listError = error
    ? errorMessage(error, 'Error retrieving user list')
    : data && data.status !== 'success'
      ? 'Failed to get user list'
      : null;

  function sortBy(key: SortKey) {
    setSort((current) => ({ key, ascending: current.key === key ? !current.ascending : true }));
  }

  function openOnKey(event: KeyboardEvent, uid: string) {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      setSelectedId(uid);
    }
  }

  return (
    <div className="page admin-page">
      <header className="page-header">
        <h1>User Management</h1>
        <p className="muted lead">Find a user, review their searches and change their role.</p>
      </header>
      {listError && <Banner kind="error">{listError}</Banner>}
      <div className="admin-users">
        <section className="card" aria-label="Users">
          <div className="field">
            <label className="visually-hidden" htmlFor="user-search">Search users</label>
            <input
              id="user-search"
              type="search"
              placeholder="Search users..."
              value={query}
              onChange={(event) => setQuery(event.target.value)}
            />
          </div>
          {isLoading ? (
            <PageSpinner label="Loading users..." />
          ) : users.length === 0 ? (
            <p className="muted">{query ? 'No users match your search.' : 'No users yet.'}</p>
          ) : (
            <div className="table-scroll">
              <table className="table admin-table">
                <thead>
                  <tr>
                    {COLUMNS.map((column) => (
                      <th
                        key={column.key}
                        scope="col"
                        aria-sort={sort.key === column.key ? (sort.ascending ? 'ascending' : 'descending') : 'none'}
                      >
                        <button type="button" className="sort-button" onClick={() => sortBy(column.key)}>
                          {column.label}
                          <span aria-hidden="true">{sort.key === column.key ? (sort.ascending ? ' ▲' : ' ▼') : ''}</span>
                        </button>
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {users.map((user) => (
                    <tr
                      key={user.uid}
                      tabIndex={0}
                      className={user.uid === selectedId ? 'row-selected' : undefined}
                      aria-selected={user.uid === selectedId}
                      onClick={() => setSelectedId(user.uid)}
                      onKeyDown={(event) => openOnKey(event, user.uid)}
                    >
                      <td>{user.name || 'Name not set'}</td>
                      <td>{user.email}</td>
                      <td><RoleBadge role={user.role} /></td>
                      <td>{formatDay(user.created_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
        {selectedId && <UserDetails key={selectedId} uid={selectedId} />}
      </div>
    </div>
  );
}

function UserDetails({ uid }: { uid: string }) {
  const { data, error, isFetching } = useAdminUserInfoQuery(uid);
  const [updateRole, { isLoading: saving }] = useUpdateUserRoleMutation();
  const [saved, flashSaved] = useFlash();
  const [saveError, setSaveError] = useState<string | null>(null);
  const user = data?.user;

  async function setRole(role: Role) {
    setSaveError(null);
    try {
      const answer = await updateRole({ uid, role }).unwrap();
      if (answer.status !== 'success') throw new Error();
      flashSaved('Role updated successfully');
    } catch (failure) {
      setSaveError(errorMessage(failure, 'Failed to update user role'));
    }
  }

  if (error) return <section className="card user-details"><Banner kind="error">{errorMessage(error, 'Error retrieving user list')}</Banner></section>;
  if (!user) return <section className="card user-details"><Spinner label="Loading user..." /></section>;
  const stats = user.search_stats;
  return (
    <section className="card user-details" aria-label="User details" aria-busy={isFetching}>
      {saved && <Banner kind="success">{saved}</Banner>}
      {saveError && <Banner kind="error">{saveError}</Banner>}
      <div className="user-heading">
        <InitialsAvatar name={user.name} email={user.email} size={64} />
        <div>
          <h2 className="card-title">{user.name || 'Name not set'}</h2>
          <p className="muted">{user.email}</p>
          <p>Current role: <RoleBadge role={user.role} /></p>
        </div>
      </div>
      <div className="button-row">
        <button type="button" className="btn btn-outline" disabled={saving || user.role === 'user'} onClick={() => void setRole('user')}>
          Set as User
        </button>
        <button type="button" className="btn btn-accent" disabled={saving || user.role === 'admin'} onClick={() => void setRole('admin')}>
          Set as Admin
        </button>
      </div>
      <dl className="kv-grid">
        <div><dt>Registration Date</dt><dd>{formatDay(user.created_at)}</dd></div>
        <div>
          <dt>Searches this month</dt>
          <dd>{stats.current_month_searches} / {stats.search_limit ?? 'No limit'}</dd>
        </div>
        <div><dt>Total searches</dt><dd>{stats.total_searches}</dd></div>
        <div><dt>Last search</dt><dd>{formatDay(stats.last_search_date)}</dd></div>
      </dl>
      <ApiPlanForm key={uid} uid={uid} current={user.api_plan} />
    </section>
  );
}
