#include "collector/core/heap_release.h"

#include <malloc.h>

namespace rdmascope::collector {

void ReleaseFreedHeap() { malloc_trim(0); }

void FixHeapThresholds() {
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  mallopt(M_TRIM_THRESHOLD, 4 << 20);
}

}  // namespace rdmascope::collector
