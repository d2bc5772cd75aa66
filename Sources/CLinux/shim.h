// Linux system headers the Glibc module leaves out (signalfd, timerfd, glibc's malloc
// statistics). No library to link.
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <malloc.h>
