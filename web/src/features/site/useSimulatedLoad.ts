import { useEffect, useState } from 'react';

/** SPEC §4/§9: product pages show a short loading state (500 ms, 300 ms for LRO) before their content. */
export function useSimulatedLoad(ms: number): boolean {
  const [loading, setLoading] = useState(true);
  useEffect(() => {
    const timer = setTimeout(() => setLoading(false), ms);
    return () => clearTimeout(timer);
  }, [ms]);
  return loading;
}
