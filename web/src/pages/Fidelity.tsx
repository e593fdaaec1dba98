/**
 * The mind page's trust line: how faithfully this mind answers, measured on the person's own
 * conversations held out in turn (GET /minds/{id}/fidelity), in one plain sentence, with the
 * numbers behind it and two example questions with the real and the simulated answer. Polled
 * while a check is pending (it runs in the background after the snapshots change).
 */
import { useEffect } from 'react';
import type { MindFidelity } from '@mindprint/client';
import { fmtDateTime, useLoad, useSession } from '../ui.tsx';

const POLL_MS = 2000;
const f3 = (x: number | null) => (x === null ? '—' : x.toFixed(3));

/** `version` changes whenever the mind's snapshots do (their ids, statuses, links): the check is read again. */
export function FidelityLine({ mindId, version }: { mindId: string; version: string }) {
  const { client } = useSession();
  const f = useLoad<MindFidelity>(() => client.getMindFidelity(mindId), [client, mindId, version]);
  const pending = f.data?.status === 'pending';
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => f.reload(), POLL_MS);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pending, f.data]);
  if (!f.data) return null;
  const d = f.data;
  const level = d.status === 'ready' ? (d.specificity === null ? 'unknown' : d.specificity >= 0.75 ? 'high' : d.specificity >= 0.6 ? 'moderate' : 'low') : d.status;
  const measured = d.computedAt !== null && (d.status === 'ready' || d.status === 'pending') && d.questions > 0;
  return (
    <section className={`fidelity fidelity-${level}`} aria-label="Fidelity">
      <p className="fidelity-line">
        <strong>Trust: </strong>
        <span data-testid="fidelity-summary">{d.summary}</span>
      </p>
      {measured && (
        <details>
          <summary>The numbers behind it</summary>
          <dl className="fidelity-numbers">
            <div><dt>Specificity AUC</dt><dd>{f3(d.specificity)}</dd></div>
            <div><dt>Beyond the question</dt><dd>{f3(d.beyondQuestion)}</dd></div>
            <div><dt>Declined</dt><dd>{f3(d.abstentionRate)}</dd></div>
            <div><dt>Median source turns</dt><dd>{d.medianSourceTurns ?? '—'}</dd></div>
            <div><dt>Questions</dt><dd>{d.questions}</dd></div>
            <div><dt>Conversations</dt><dd>{d.conversations}</dd></div>
          </dl>
          <p className="muted">
            0.5 is chance: an answer no more about its question than about the person’s other answers. Engine {d.engine}, computed {fmtDateTime(d.computedAt)}
            {d.current ? '' : ' (before the latest change; being checked again)'}.
          </p>
          {d.examples.map((e, i) => (
            <figure key={i} className="fidelity-example">
              <figcaption>Example {i + 1}{e.specificity !== null ? ` (specificity ${f3(e.specificity)})` : ''}</figcaption>
              <p><b>Asked:</b> {e.question}</p>
              <p><b>They said:</b> {e.real}</p>
              <p><b>The mind said:</b> {e.simulated}</p>
            </figure>
          ))}
        </details>
      )}
    </section>
  );
}
