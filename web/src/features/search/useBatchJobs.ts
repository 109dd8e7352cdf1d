import { useCallback, useEffect, useRef, useState } from 'react';
import { api, useListBatchJobsQuery } from '../../api/api';
import type { BatchJob } from '../../api/types';
import { useAppDispatch } from '../../app/hooks';

export const JOB_POLL_MS = 1000;

/**
 * The caller's batch jobs as the server knows them, so leaving the dashboard loses nothing: on
 * mount the queued and running jobs come from GET /api/batch-jobs, and while any is unfinished
 * the list is polled for progress. A job that leaves the list has ended; its final state is read
 * once and handed to `onFinished` (done or failed).
 */
export function useBatchJobs(onFinished: (job: BatchJob) => void) {
  const dispatch = useAppDispatch();
  // Jobs seen unfinished (from the list, or just started here) whose end has not been reported.
  const [watched, setWatched] = useState<Record<string, BatchJob>>({});
  const watching = Object.keys(watched).length > 0;
  const { data: running = [], refetch, fulfilledTimeStamp } = useListBatchJobsQuery(undefined, {
    refetchOnMountOrArgChange: true,
    pollingInterval: watching ? JOB_POLL_MS : 0,
  });
  const finishedRef = useRef(onFinished);
  finishedRef.current = onFinished;
  const resolving = useRef(new Set<string>());

  useEffect(() => {
    if (running.length === 0) return;
    setWatched((current) => {
      const next = { ...current };
      for (const job of running) next[job.id] = job;
      return next;
    });
  }, [running]);

  useEffect(() => {
    const listed = new Set(running.map((job) => job.id));
    for (const id of Object.keys(watched)) {
      if (listed.has(id) || resolving.current.has(id)) continue;
      resolving.current.add(id);
      void (async () => {
        try {
          const job = await dispatch(api.endpoints.getBatchJob.initiate(id, { forceRefetch: true, subscribe: false })).unwrap();
          if (job.status === 'queued' || job.status === 'running') return; // not listed yet: the next poll shows it
          setWatched(({ [id]: _ended, ...rest }) => rest);
          finishedRef.current(job);
        } catch {
          setWatched(({ [id]: _gone, ...rest }) => rest); // no longer ours to follow (deleted, signed out)
        } finally {
          resolving.current.delete(id);
        }
      })();
    }
    // Every answer (fulfilledTimeStamp) looks again: an unchanged list keeps its identity.
  }, [running, watched, dispatch, fulfilledTimeStamp]);

  /** Follow a job this page just started. */
  const track = useCallback(
    (job: BatchJob) => {
      setWatched((current) => ({ ...current, [job.id]: job }));
      void refetch();
    },
    [refetch],
  );

  // Progress as last listed; a just-started job shows its first state until the list has it.
  const listedIds = new Set(running.map((job) => job.id));
  const jobs = [...running, ...Object.values(watched).filter((job) => !listedIds.has(job.id) && job.status !== 'done' && job.status !== 'failed')];
  return { jobs, running: watching || running.length > 0, track };
}
