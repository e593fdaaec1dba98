/**
 * Fills the USE-lite vector cache (bench/support/use-lite.ts) with every turn of every
 * conversation of ../shared (as a reply, in ~60-word chunks, and as a question or context), so
 * the engine experiment of issue 22 (third round) finds them all. That experiment is not in the
 * engine (it did not gain on the development split); to re-run it:
 *
 *   node --import tsx bench/support/use-warm.ts          (≈ 8 min the first time, on one core)
 *   git apply bench/support/use-engine-experiment.patch
 *   MINDPRINT_USE_EXPERIMENT=extra,blend[,mode] node --import tsx bench/fidelity.ts --development
 *
 * (extra: the nearest turns by USE, text + question, added to the candidates; blend: weight of the
 * USE similarity in the final score; mode: sum (text + question), text, max, or rank (1 / USE rank
 * among the candidates).) Then `git apply -R` it.
 */
import { loadConversations } from './fidelity-split.ts';
import { chunkVectors, embedStats, loadStats } from './use-lite.ts';
import { requireSharedData } from '../../test/support/shared-data.ts';

requireSharedData('bench/support/use-warm.ts');
const convs = await loadConversations();
const texts = [...new Set(convs.flatMap((c) => c.turns.map((t) => t.text)))];
await chunkVectors(texts);
console.log(`${texts.length} texts; model load ${Math.round(loadStats.ms)} ms; embedded ${embedStats.chunks} chunks, ${embedStats.words} words in ${(embedStats.ms / 1000).toFixed(1)} s (${embedStats.chunks ? (embedStats.ms / embedStats.chunks).toFixed(1) : '–'} ms per chunk)`);
