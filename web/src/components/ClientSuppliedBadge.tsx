export const CLIENT_SUPPLIED_LABEL = 'Client-supplied data';
export const CLIENT_SUPPLIED_NOTE =
  'These rows were sent by a client through the API (POST /api/export) and stored as given: PerilScope did not compute or check them.';

/** The badge every client-supplied export carries, wherever it is listed or shown. */
export function ClientSuppliedBadge() {
  return (
    <span className="badge badge-client" title={CLIENT_SUPPLIED_NOTE}>
      {CLIENT_SUPPLIED_LABEL}
    </span>
  );
}
