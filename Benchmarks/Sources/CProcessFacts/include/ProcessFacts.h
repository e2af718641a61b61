// Facts about the process that Swift's C modules do not export: the heap in use (mallinfo2) and the
// calling thread's stack size (pthread_getattr_np, a GNU extension). The curves read them.
#ifndef ARBOR_PROCESS_FACTS_H
#define ARBOR_PROCESS_FACTS_H

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <stddef.h>

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>

/// Bytes the heap has handed out and not taken back, blocks it mapped on their own included.
static inline size_t arbor_allocated_bytes(void) {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

/// The calling thread's stack size in bytes, 0 when unknown. For the main thread glibc reports the
/// stack limit (`ulimit -s`).
static inline size_t arbor_stack_size(void) {
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) != 0) return 0;
  void *address = NULL;
  size_t size = 0;
  if (pthread_attr_getstack(&attributes, &address, &size) != 0) size = 0;
  pthread_attr_destroy(&attributes);
  return size;
}
#elif defined(__APPLE__)
#include <malloc/malloc.h>

static inline size_t arbor_allocated_bytes(void) {
  malloc_statistics_t statistics;
  malloc_zone_statistics(NULL, &statistics);
  return statistics.size_in_use;
}

static inline size_t arbor_stack_size(void) { return pthread_get_stacksize_np(pthread_self()); }
#else
// Unknown platform: the curves report neither.
static inline size_t arbor_allocated_bytes(void) { return 0; }
static inline size_t arbor_stack_size(void) { return 0; }
#endif

#endif
