// Hands memory the allocator keeps after large transient work back to the
// system.
//
// Contract: ReleaseFreedHeap() returns the free pages of every allocator arena
// (glibc's malloc_trim); memory in use is untouched. The background workers
// call it after each pass: a diagnosis pass reads every path of its window, a
// retention pass rolls up slices of raw summaries and forgets nodes, and what
// they free would otherwise stay in their threads' arenas, so the collector's
// resident memory would keep the peak of the largest burst it ever took.
// Not for the ingest path: a call walks the arenas (milliseconds on a large heap).
//
// FixHeapThresholds(), once at start, before any thread: allocations of 1 MiB
// and more are mapped on their own and unmapped when freed, and a thread's
// arena gives its free top back past 4 MiB. The allocator would otherwise
// raise both thresholds after the first large block it frees (up to 32 and
// 64 MiB), and every worker would keep tens of MB from one burst of large
// reports; malloc_trim does not return an arena's free top.
#pragma once

namespace rdmascope::collector {

void ReleaseFreedHeap();
void FixHeapThresholds();

}  // namespace rdmascope::collector
