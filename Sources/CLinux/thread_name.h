#include <sys/prctl.h>

// prctl is variadic, which Swift cannot call: the calling thread's name (15 bytes kept).
static inline int bw_name_current_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}
