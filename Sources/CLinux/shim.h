// Linux system headers the Glibc module leaves out (signalfd, timerfd, glibc's malloc
// statistics, prctl). No library to link.
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/prctl.h>
#include <malloc.h>

// prctl is variadic, which Swift cannot call: the calling thread's name (15 bytes kept).
static inline int bw_name_current_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}
